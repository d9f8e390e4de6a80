package io.xio.engine;

import io.xio.engine.session.ApiBridge;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The outcome of a request or message. Cancelling it cancels the request at the peer too (the peer tries
 * to abort it; no response is delivered either way), and {@link #cancelOutcome()} then tells whether the
 * peer aborted it before it ran. {@link #receipt()} completes when the peer confirmed delivery, for calls
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
     * After {@link #cancel}: true when the peer aborted the request before it executed. It completes only once
     * xio no longer reads the request's buffers.
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

    @Override
    public T get() throws InterruptedException, ExecutionException
    {
        spin(spinNanos);
        return super.get();
    }

    @Override
    public T get(final long timeout, final TimeUnit unit)
        throws InterruptedException, ExecutionException, TimeoutException
    {
        spin(Math.min(spinNanos, unit.toNanos(timeout)));
        return super.get(timeout, unit);
    }

    @Override
    public T join()
    {
        spin(spinNanos);
        return super.join();
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
