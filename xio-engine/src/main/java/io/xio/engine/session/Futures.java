package io.xio.engine.session;

import io.xio.engine.Message;
import io.xio.engine.XioFuture;
import org.agrona.LangUtil;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.function.Consumer;
import java.util.function.ObjLongConsumer;

/**
 * Makes and settles {@link XioFuture}s for the session layer, through the future's package-private members. They
 * are bound once, through a private lookup into the API class (allowed within the engine's module without an
 * {@code opens}), so the exported API package names nothing of this one and there is no cycle between them. Each
 * handle is a constant: the JIT inlines {@code invokeExact} on it like a direct call, with no boxing. Any thread.
 */
public final class Futures
{
    private static final MethodHandle OWNER;
    private static final MethodHandle NEW_FUTURE;
    private static final MethodHandle RECYCLABLE;
    private static final MethodHandle REUSE;
    private static final MethodHandle RESPONSE;
    private static final MethodHandle ON_RESPONSE_CLOSED;
    private static final MethodHandle CANCEL_ANSWERED;
    private static final MethodHandle CANCEL_UNANSWERED;
    private static final MethodHandle BUFFERS_RELEASED;
    private static final MethodHandle RECEIPT_ARRIVED;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(XioFuture.class, MethodHandles.lookup());
            // The owner's type is package-private to the API: this side holds owners as Objects, and the handles
            // that make or take one are adapted to that (a cast the JIT folds away).
            final Class<?> owner = lookup.findClass(XioFuture.class.getName() + "$Owner");
            OWNER = lookup.findConstructor(owner,
                MethodType.methodType(void.class, long.class, ObjLongConsumer.class, Consumer.class))
                .asType(MethodType.methodType(Object.class, long.class, ObjLongConsumer.class, Consumer.class));
            NEW_FUTURE = lookup.findConstructor(XioFuture.class,
                MethodType.methodType(void.class, long.class, boolean.class, owner))
                .asType(MethodType.methodType(XioFuture.class, long.class, boolean.class, Object.class));
            RECYCLABLE = lookup.findStatic(XioFuture.class, "recyclable",
                MethodType.methodType(XioFuture.class, owner, Message.class))
                .asType(MethodType.methodType(XioFuture.class, Object.class, Message.class));
            REUSE = lookup.findVirtual(XioFuture.class, "reuse", MethodType.methodType(void.class, long.class));
            RESPONSE = lookup.findVirtual(XioFuture.class, "response", MethodType.methodType(Message.class));
            ON_RESPONSE_CLOSED = lookup.findVirtual(XioFuture.class, "onResponseClosed",
                MethodType.methodType(Runnable.class));
            CANCEL_ANSWERED = lookup.findVirtual(XioFuture.class, "cancelAnswered",
                MethodType.methodType(void.class, boolean.class));
            CANCEL_UNANSWERED = lookup.findVirtual(XioFuture.class, "cancelUnanswered",
                MethodType.methodType(void.class));
            BUFFERS_RELEASED = lookup.findVirtual(XioFuture.class, "buffersReleased",
                MethodType.methodType(void.class));
            RECEIPT_ARRIVED = lookup.findVirtual(XioFuture.class, "receiptArrived", MethodType.methodType(void.class));
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private Futures()
    {
    }

    /**
     * What the futures of one session need of it, made once per session: an opaque token to hand to
     * {@link #newFuture} and {@link #newRecyclable}.
     *
     * @param spinNanos how long their blocking waits spin first
     * @param onCancel told when the application cancels one, with its request id
     * @param onRecycle takes a recycled one back each time its response was closed and it is incomplete again
     */
    public static Object owner(final long spinNanos, final ObjLongConsumer<XioFuture<?>> onCancel,
        final Consumer<XioFuture<?>> onRecycle)
    {
        try
        {
            return (Object)OWNER.invokeExact(spinNanos, onCancel, onRecycle);
        }
        catch (final Throwable ex)
        {
            throw unchecked(ex);
        }
    }

    /**
     * A future of one call.
     *
     * @param owner from {@link #owner}; null for a future of no session (one failed at once)
     */
    @SuppressWarnings("unchecked")
    public static <T> XioFuture<T> newFuture(final long requestId, final boolean receipt, final Object owner)
    {
        try
        {
            return (XioFuture<T>)NEW_FUTURE.invokeExact(requestId, receipt, owner);
        }
        catch (final Throwable ex)
        {
            throw unchecked(ex);
        }
    }

    /** A future to reuse with its own response message; null when futures cannot be reused on this JVM. */
    @SuppressWarnings("unchecked")
    public static <T> XioFuture<T> newRecyclable(final Object owner)
    {
        try
        {
            return (XioFuture<T>)RECYCLABLE.invokeExact(owner, Messages.released());
        }
        catch (final Throwable ex)
        {
            throw unchecked(ex);
        }
    }

    public static void reuse(final XioFuture<?> future, final long requestId)
    {
        try
        {
            REUSE.invokeExact(future, requestId);
        }
        catch (final Throwable ex)
        {
            throw unchecked(ex);
        }
    }

    /** A recycled future's own response message (released while the call is in flight), or null. */
    public static Message response(final XioFuture<?> future)
    {
        try
        {
            return (Message)RESPONSE.invokeExact(future);
        }
        catch (final Throwable ex)
        {
            throw unchecked(ex);
        }
    }

    public static Runnable onResponseClosed(final XioFuture<?> future)
    {
        try
        {
            return (Runnable)ON_RESPONSE_CLOSED.invokeExact(future);
        }
        catch (final Throwable ex)
        {
            throw unchecked(ex);
        }
    }

    /** The peer's answer to a cancel. */
    public static void cancelAnswered(final XioFuture<?> future, final boolean aborted)
    {
        try
        {
            CANCEL_ANSWERED.invokeExact(future, aborted);
        }
        catch (final Throwable ex)
        {
            throw unchecked(ex);
        }
    }

    /** A cancel is over; a future it told nothing is not known to be aborted. */
    public static void cancelUnanswered(final XioFuture<?> future)
    {
        try
        {
            CANCEL_UNANSWERED.invokeExact(future);
        }
        catch (final Throwable ex)
        {
            throw unchecked(ex);
        }
    }

    /** No link references the request's buffers any more. */
    public static void buffersReleased(final XioFuture<?> future)
    {
        try
        {
            BUFFERS_RELEASED.invokeExact(future);
        }
        catch (final Throwable ex)
        {
            throw unchecked(ex);
        }
    }

    public static void receiptArrived(final XioFuture<?> future)
    {
        try
        {
            RECEIPT_ARRIVED.invokeExact(future);
        }
        catch (final Throwable ex)
        {
            throw unchecked(ex);
        }
    }

    /** What a bound member threw, thrown on as it is: none of them declares a checked exception. */
    static RuntimeException unchecked(final Throwable ex)
    {
        LangUtil.rethrowUnchecked(ex);
        return new IllegalStateException(ex); // not reached: the line above throws
    }
}
