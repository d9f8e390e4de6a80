package io.xio.engine.session;

import io.xio.engine.XioFuture;

/** Makes and settles {@link XioFuture}s for the session layer, through {@link ApiBridge}. Any thread. */
final class Futures
{
    private static final ApiBridge.FutureAccess ACCESS = ApiBridge.futures();

    private Futures()
    {
    }

    static <T> XioFuture<T> newFuture(final long requestId, final boolean receipt, final long spinNanos)
    {
        return ACCESS.newFuture(requestId, receipt, spinNanos);
    }

    /** What to run when the application cancels. */
    static void onCancel(final XioFuture<?> future, final Runnable action)
    {
        ACCESS.onCancel(future, action);
    }

    /** The peer's answer to a cancel. */
    static void cancelAnswered(final XioFuture<?> future, final boolean aborted)
    {
        ACCESS.cancelAnswered(future, aborted);
    }

    /** No link references the request's buffers any more. */
    static void buffersReleased(final XioFuture<?> future)
    {
        ACCESS.buffersReleased(future);
    }

    static void receiptArrived(final XioFuture<?> future)
    {
        ACCESS.receiptArrived(future);
    }
}
