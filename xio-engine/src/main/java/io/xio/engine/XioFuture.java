package io.xio.engine;

import io.xio.engine.session.ApiBridge;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The outcome of a request or message. Cancelling it cancels the request at the peer too (the peer tries
 * to abort it; no response is delivered either way), and {@link #cancelOutcome()} then tells whether the
 * request is known to be aborted. {@link #receipt()} completes when the peer confirmed delivery, for calls
 * that asked for a receipt. Blocking waits may spin briefly before parking
 * ({@link XioEngine.Builder#callerSpin}), since a response often arrives sooner than a parked thread wakes.
 * Thread-safe.
 */
public final class XioFuture<T> extends CompletableFuture<T>
{
    static
    {
        ApiBridge.register(new ApiBridge.FutureAccess()
        {
            @Override
            public <T> XioFuture<T> newFuture(final long requestId, final boolean receipt, final long spinNanos)
            {
                return new XioFuture<>(requestId, receipt, spinNanos);
            }

            @Override
            public void onCancel(final XioFuture<?> future, final Runnable action)
            {
                future.onCancel = action;
            }

            @Override
            public void cancelAnswered(final XioFuture<?> future, final boolean aborted)
            {
                future.cancelAnswer = aborted;
                future.settleCancelOutcome();
            }

            @Override
            public void buffersReleased(final XioFuture<?> future)
            {
                future.buffersReleased = true;
                future.settleCancelOutcome();
            }

            @Override
            public void receiptArrived(final XioFuture<?> future)
            {
                if (future.receipt != null)
                {
                    future.receipt.complete(null);
                }
            }
        });
    }

    private final long requestId;
    private final long spinNanos;
    private final CompletableFuture<Void> receipt;
    private volatile CompletableFuture<Boolean> cancelOutcome; // made on demand: most calls are never cancelled
    private volatile Runnable onCancel;
    private volatile boolean buffersReleased;
    private volatile Boolean cancelAnswer;

    XioFuture(final long requestId, final boolean receipt, final long spinNanos)
    {
        this.requestId = requestId;
        this.spinNanos = spinNanos;
        this.receipt = receipt ? new CompletableFuture<>() : null;
    }

    /** The request's id within its session. */
    public long requestId()
    {
        return requestId;
    }

    /** Completes when the peer confirmed delivery; fails if the call failed first. */
    public CompletableFuture<Void> receipt()
    {
        if (receipt == null)
        {
            throw new IllegalStateException("request " + requestId + " did not ask for a receipt");
        }
        return receipt;
    }

    /**
     * After a cancel (of this future, or by {@link Session#cancel(long, long)} or {@link Session#cancelAll()}): true
     * when the request is known to be aborted, that is, it never left this side, or the peer stopped it before
     * answering it. The peer stops a call that its handler has and has not answered yet (the handler may well have
     * begun the work; it hears of the cancel through {@link InboundRequest#onCancel}), or one that waits unstarted
     * in a queue (in a {@link QueueingHandler}, which then skips it, or behind a full connection, from where it
     * reaches the handler already cancelled). False when the peer had answered it already or never got it, and
     * whenever it is not known: it was written on a connection that was down when cancelled (the peer is not told)
     * or that dropped before the peer answered, or a range cancel's count does not tell request by request (the
     * peer answers a range with a count only, so a request of a range is known to be aborted only when the count
     * covers every id of its CANCEL; the count itself is the {@link Session#cancel(long, long)} future's).
     *
     * <p>It completes only once xio no longer reads the request's buffers (nor lets the peer write into its output
     * buffer), so they may be reused then. It stays incomplete when the request finished otherwise before the
     * cancel (answered, failed, timed out).
     */
    public CompletableFuture<Boolean> cancelOutcome()
    {
        CompletableFuture<Boolean> outcome = cancelOutcome;
        if (outcome == null)
        {
            synchronized (this)
            {
                outcome = cancelOutcome;
                if (outcome == null)
                {
                    outcome = new CompletableFuture<>();
                    cancelOutcome = outcome;
                }
            }
            settleCancelOutcome();
        }
        return outcome;
    }

    private void settleCancelOutcome()
    {
        final Boolean answer = cancelAnswer;
        if (answer != null && buffersReleased)
        {
            final CompletableFuture<Boolean> outcome = cancelOutcome;
            if (outcome != null)
            {
                outcome.complete(answer);
            }
        }
    }

    @Override
    public boolean completeExceptionally(final Throwable ex)
    {
        if (receipt != null)
        {
            receipt.completeExceptionally(ex);
        }
        return super.completeExceptionally(ex);
    }

    @Override
    public boolean cancel(final boolean mayInterruptIfRunning)
    {
        final boolean cancelled = super.completeExceptionally(
            new RequestCancelledException("request " + requestId + " was cancelled"));
        if (cancelled)
        {
            if (receipt != null)
            {
                receipt.cancel(false);
            }
            final Runnable action = onCancel;
            if (action != null)
            {
                action.run();
            }
            else
            {
                buffersReleased = true;
                cancelAnswer = false;
                settleCancelOutcome();
            }
        }
        return cancelled;
    }

    /** Throws a cancelled request's {@link RequestCancelledException} itself, on every JDK. */
    @Override
    public T get() throws InterruptedException, ExecutionException
    {
        spin(spinNanos);
        try
        {
            return super.get();
        }
        catch (final CancellationException e)
        {
            throw unwrapped(e);
        }
    }

    /** Throws a cancelled request's {@link RequestCancelledException} itself, on every JDK. */
    @Override
    public T get(final long timeout, final TimeUnit unit)
        throws InterruptedException, ExecutionException, TimeoutException
    {
        spin(Math.min(spinNanos, unit.toNanos(timeout)));
        try
        {
            return super.get(timeout, unit);
        }
        catch (final CancellationException e)
        {
            throw unwrapped(e);
        }
    }

    /** Throws a cancelled request's {@link RequestCancelledException} itself, on every JDK. */
    @Override
    public T join()
    {
        spin(spinNanos);
        try
        {
            return super.join();
        }
        catch (final CancellationException e)
        {
            throw unwrapped(e);
        }
    }

    /** Throws a cancelled request's {@link RequestCancelledException} itself, on every JDK. */
    @Override
    public T getNow(final T valueIfAbsent)
    {
        try
        {
            return super.getNow(valueIfAbsent);
        }
        catch (final CancellationException e)
        {
            throw unwrapped(e);
        }
    }

    /**
     * On JDK 25 CompletableFuture's get, join and getNow throw a new CancellationException ("get", "join", "getNow")
     * whose cause is the one the future was completed with; on 17 they throw that one. Callers catch
     * RequestCancelledException, so it is handed on as it was stored.
     */
    private static CancellationException unwrapped(final CancellationException thrown)
    {
        return thrown.getCause() instanceof CancellationException stored ? stored : thrown;
    }

    private void spin(final long nanos)
    {
        if (nanos <= 0 || isDone())
        {
            return;
        }
        final long end = System.nanoTime() + nanos;
        while (!isDone() && System.nanoTime() < end)
        {
            Thread.onSpinWait();
        }
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture()
    {
        return new CompletableFuture<>();
    }
}
