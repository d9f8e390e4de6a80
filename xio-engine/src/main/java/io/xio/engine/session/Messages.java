package io.xio.engine.session;

import io.xio.engine.LeakTracker;
import io.xio.engine.Message;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Makes and rewraps {@link Message}s for the session layer. Their constructors and {@code wrap} are not public
 * API (only xio creates messages), so they are reached through method handles into the package; constant
 * handles cost nothing on the hot path once compiled. Stateless; any thread.
 */
final class Messages
{
    private static final MethodHandle WRAPPED;
    private static final MethodHandle RELEASED;
    private static final MethodHandle REWRAP;
    private static final MethodHandle PLACE_IN;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(Message.class, MethodHandles.lookup());
            WRAPPED = lookup.findConstructor(Message.class,
                MethodType.methodType(void.class, Slab.class, Frame.class, LeakTracker.class));
            RELEASED = lookup.findConstructor(Message.class, MethodType.methodType(void.class));
            REWRAP = lookup.findVirtual(Message.class, "wrap",
                MethodType.methodType(Message.class, Slab.class, Frame.class, LeakTracker.class, Runnable.class));
            PLACE_IN = lookup.findVirtual(Message.class, "placeIn",
                MethodType.methodType(void.class, java.nio.ByteBuffer.class, int.class));
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private Messages()
    {
    }

    /** A new message over the frame at {@code frame}, retaining the slab. */
    static Message of(final Slab slab, final Frame frame, final LeakTracker leaks)
    {
        try
        {
            return (Message)WRAPPED.invokeExact(slab, frame, leaks);
        }
        catch (final Throwable ex)
        {
            throw rethrown(ex);
        }
    }

    /** A released message to {@link #rewrap} again and again. */
    static Message released()
    {
        try
        {
            return (Message)RELEASED.invokeExact();
        }
        catch (final Throwable ex)
        {
            throw rethrown(ex);
        }
    }

    /** Makes the released {@code message} the one in {@code frame}; {@code onClose} (may be null) runs on close. */
    static Message rewrap(final Message message, final Slab slab, final Frame frame, final LeakTracker leaks,
        final Runnable onClose)
    {
        try
        {
            return (Message)REWRAP.invokeExact(message, slab, frame, leaks, onClose);
        }
        catch (final Throwable ex)
        {
            throw rethrown(ex);
        }
    }

    /** Says that the message's data segments lie in {@code output} back to back from index {@code at}. */
    static void placeIn(final Message message, final java.nio.ByteBuffer output, final int at)
    {
        try
        {
            PLACE_IN.invokeExact(message, output, at);
        }
        catch (final Throwable ex)
        {
            throw rethrown(ex);
        }
    }

    private static RuntimeException rethrown(final Throwable ex)
    {
        if (ex instanceof RuntimeException runtime)
        {
            throw runtime;
        }
        if (ex instanceof Error error)
        {
            throw error;
        }
        throw new IllegalStateException(ex);
    }
}
