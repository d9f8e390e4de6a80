package io.xio.engine.session;

import io.xio.engine.Message;
import io.xio.engine.XioFuture;

/** Makes and settles {@link XioFuture}s for the session layer, through {@link ApiBridge}. Any thread. */
public final class Futures
{
    private static final ApiBridge.FutureAccess ACCESS = ApiBridge.futures();

    private Futures()
    {
    }

    public static <T> XioFuture<T> newFuture(final long requestId, final boolean receipt,
        final ApiBridge.FutureOwner owner)
    {
        return ACCESS.newFuture(requestId, receipt, owner);
    }

    /** A future to reuse with its own response message; null when futures cannot be reused on this JVM. */
    public static <T> XioFuture<T> newRecyclable(final ApiBridge.FutureOwner owner)
    {
        return ACCESS.newRecyclable(owner, Messages.released());
    }

    public static void reuse(final XioFuture<?> future, final long requestId)
    {
        ACCESS.reuse(future, requestId);
    }

    /** A recycled future's own response message (released while the call is in flight), or null. */
    public static Message response(final XioFuture<?> future)
    {
        return ACCESS.response(future);
    }

    public static Runnable onResponseClosed(final XioFuture<?> future)
    {
        return ACCESS.onResponseClosed(future);
    }

    /** The peer's answer to a cancel. */
    public static void cancelAnswered(final XioFuture<?> future, final boolean aborted)
    {
        ACCESS.cancelAnswered(future, aborted);
    }

    /** A cancel is over; a future it told nothing is not known to be aborted. */
    public static void cancelUnanswered(final XioFuture<?> future)
    {
        ACCESS.cancelUnanswered(future);
    }

    /** No link references the request's buffers any more. */
    public static void buffersReleased(final XioFuture<?> future)
    {
        ACCESS.buffersReleased(future);
    }

    public static void receiptArrived(final XioFuture<?> future)
    {
        ACCESS.receiptArrived(future);
    }
}
