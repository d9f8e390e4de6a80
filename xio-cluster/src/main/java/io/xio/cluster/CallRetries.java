package io.xio.cluster;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The calls of a service client waiting for their next attempt's timer. Whoever takes a call off (its timer on the
 * client's thread, or the close) goes on with it, so no call is left without an end: one whose timer the close
 * dropped fails as closed. Any thread.
 */
final class CallRetries
{
    private final ClientThread thread;
    private final BooleanSupplier clientClosed;
    private final Supplier<? extends Throwable> closedFailure;
    private final Set<ServiceCall<?>> backingOff = ConcurrentHashMap.newKeySet();

    /**
     * @param clientClosed whether the client closed (the one flag its close sets first)
     * @param closedFailure what a call that was waiting when the client closed fails with
     */
    CallRetries(final ClientThread thread, final BooleanSupplier clientClosed,
        final Supplier<? extends Throwable> closedFailure)
    {
        this.thread = thread;
        this.clientClosed = clientClosed;
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
        if (clientClosed.getAsBoolean())
        {
            failAll(); // the timer was refused, or close() swept the set before this call joined it
        }
    }

    /** Fails every call waiting as closed (any that comes later fails at once); after the client's thread stopped. */
    void close()
    {
        failAll();
    }

    private void failAll()
    {
        for (final ServiceCall<?> call : backingOff)
        {
            if (backingOff.remove(call))
            {
                call.fail(closedFailure.get());
            }
        }
    }
}
