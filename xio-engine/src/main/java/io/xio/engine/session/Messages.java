package io.xio.engine.session;

import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.CallContext;
import io.xio.engine.protocol.Frame;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * Makes and rewraps {@link Message}s for the session layer (only xio creates messages), through the message's
 * package-private members, bound once through a private lookup as {@link Futures} binds the future's: the exported
 * API package names nothing of this one. Stateless; any thread.
 */
public final class Messages
{
    private static final MethodHandle WRAPPED;
    private static final MethodHandle RELEASED;
    private static final MethodHandle REWRAP;
    private static final MethodHandle PLACE_IN;
    private static final MethodHandle COPY_OUT_OF_SHARED;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(Message.class, MethodHandles.lookup());
            WRAPPED = lookup.findConstructor(Message.class,
                MethodType.methodType(void.class, Slab.class, Frame.class, Consumer.class));
            RELEASED = lookup.findConstructor(Message.class, MethodType.methodType(void.class));
            REWRAP = lookup.findVirtual(Message.class, "wrap", MethodType.methodType(Message.class, Slab.class,
                Frame.class, Consumer.class, Runnable.class));
            PLACE_IN = lookup.findVirtual(Message.class, "placeIn",
                MethodType.methodType(void.class, ByteBuffer.class, int.class));
            COPY_OUT_OF_SHARED = lookup.findVirtual(Message.class, "copyOutOfShared",
                MethodType.methodType(void.class));
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private Messages()
    {
    }

    /** A new message over the frame at {@code frame}, retaining the slab; {@code leaks} (may be null) tracks it. */
    public static Message of(final Slab slab, final Frame frame, final LeakTracker leaks)
    {
        final Consumer<Message> untrack = leaks == null ? null : leaks.untracker(); // exactly typed, for invokeExact
        final Message message;
        try
        {
            message = (Message)WRAPPED.invokeExact(slab, frame, untrack);
        }
        catch (final Throwable ex)
        {
            throw Futures.unchecked(ex);
        }
        return tracked(message, leaks);
    }

    /** A released message to {@link #rewrap} again and again. */
    public static Message released()
    {
        try
        {
            return (Message)RELEASED.invokeExact();
        }
        catch (final Throwable ex)
        {
            throw Futures.unchecked(ex);
        }
    }

    /**
     * Makes the released {@code message} the one in {@code frame}; {@code leaks} (may be null) tracks it,
     * {@code onClose} (may be null) runs on close.
     */
    public static Message rewrap(final Message message, final Slab slab, final Frame frame, final LeakTracker leaks,
        final Runnable onClose)
    {
        final Consumer<Message> untrack = leaks == null ? null : leaks.untracker(); // exactly typed, for invokeExact
        final Message wrapped;
        try
        {
            wrapped = (Message)REWRAP.invokeExact(message, slab, frame, untrack, onClose);
        }
        catch (final Throwable ex)
        {
            throw Futures.unchecked(ex);
        }
        return tracked(wrapped, leaks);
    }

    /** Says that the message's data segments lie in {@code output} back to back from index {@code at}. */
    public static void placeIn(final Message message, final ByteBuffer output, final int at)
    {
        try
        {
            PLACE_IN.invokeExact(message, output, at);
        }
        catch (final Throwable ex)
        {
            throw Futures.unchecked(ex);
        }
    }

    /**
     * Copies the segments of a message that came by reference out of the sender's shared memory, which goes back to
     * the sender now; nothing for another message. Only on a message the application does not hold yet.
     */
    public static void copyOutOfShared(final Message message)
    {
        try
        {
            COPY_OUT_OF_SHARED.invokeExact(message);
        }
        catch (final Throwable ex)
        {
            throw Futures.unchecked(ex);
        }
    }

    /** Once wrapped, before it is delivered: the message is live from here on for the leak tracker, if any. */
    private static Message tracked(final Message message, final LeakTracker leaks)
    {
        if (leaks != null)
        {
            leaks.track(message);
        }
        return message;
    }

    /**
     * Makes the message's metadata read-only: it is read again whenever the message is written (a retransmit
     * too), so a change the application makes afterwards must not reach this call, or tear a frame being encoded.
     */
    public static void sealMetadata(final Outbound message)
    {
        final Metadata metadata = message.metadata();
        if (metadata != null && !metadata.isReadOnly())
        {
            CallContext.seal(metadata);
        }
    }
}
