package io.xio.engine.cluster;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The calls of a service client waiting for their next attempt's timer. Whoever takes a call off (its timer on the
 * client's thread, or the close) goes on with it, so no call is left without an end: one whose timer the close
 * dropped fails as closed. Any thread.
 */
final class CallRetries
{
    private final ClientThread thread;
    private final Supplier<? extends Throwable> closedFailure;
    private final Set<ServiceCall<?>> backingOff = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * @param closedFailure what a call that was waiting when the client closed fails with
     */
    CallRetries(final ClientThread thread, final Supplier<? extends Throwable> closedFailure)
    {
        this.thread = thread;
        this.closedFailure = closedFailure;
    }

    /**
     * Tries {@code call} again after {@code delayNanos} on the client's thread; fails it as closed when the client
     * closed first, or closes before the timer fires (its timers are dropped then).
     */
    void retryLater(final ServiceCall<?> call, final long delayNanos)
    {
        backingOff.add(call);
        thread.schedule(delayNanos, () ->
        {
            if (backingOff.remove(call))
            {
                call.attempt(false);
            }
        });
        if (closed)
        {
            failAll(); // the timer was refused, or close() swept the set before this call joined it
        }
    }

    /** Fails every call waiting, and any that comes later, as closed; after the client's thread was shut down. */
    void close()
    {
        closed = true;
        failAll();
    }

    private void failAll()
    {
        for (final ServiceCall<?> call : backingOff)
        {
            if (backingOff.remove(call))
            {
                call.result.completeExceptionally(closedFailure.get());
            }
        }
    }
}
