package io.xio.spring.client;

import io.xio.engine.BackPressureException;
import io.xio.engine.ConnectionException;
import io.xio.engine.RemoteException;
import io.xio.engine.XioTimeoutException;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Runs one client call's attempts under a {@link RetryPolicy}: the call's timeout is the budget of all its attempts
 * together (each is given what is left of it), a failure the policy does not retry or the last attempt's failure
 * goes to the caller, and no attempt starts whose backoff would end past the deadline. Earlier failures are not
 * attached to it: a session's failure is one object shared by every call that waited for that session. But when an
 * earlier attempt was written and the last one's {@link ConnectionException} or {@link XioTimeoutException} says it
 * did not run, the caller gets that call's own instance saying it may have run ({@link #ending}), on the earlier
 * attempt's server; an exactly-once call that may have run, timed out or not, ends with
 * {@link ExactlyOnceUnsettledException}, carrying its key. The blocking form
 * runs on the caller's thread; the other starts each attempt after the first on the executor it is given, once the
 * JDK's delay scheduler has timed the backoff. Stateless.
 */
final class RetryingCall
{
    /** One attempt of a blocking call, given the time left of the call's budget. */
    @FunctionalInterface
    interface Attempt<T>
    {
        T run(Duration remaining) throws Throwable;
    }

    /** One attempt of a call returning a future, given the time left; cancelling the future cancels the attempt. */
    @FunctionalInterface
    interface AsyncAttempt<T>
    {
        CompletableFuture<T> start(Duration remaining);
    }

    /** The time a blocking call's deadline and backoff follow, and how its thread waits out a backoff. */
    interface Clock
    {
        /** {@link System#nanoTime()} and {@link TimeUnit#sleep}. */
        Clock SYSTEM = new Clock()
        {
            @Override
            public long nanoTime()
            {
                return System.nanoTime();
            }

            @Override
            public void sleep(final long nanos) throws InterruptedException
            {
                TimeUnit.NANOSECONDS.sleep(nanos);
            }
        };

        long nanoTime();

        void sleep(long nanos) throws InterruptedException;
    }

    private RetryingCall()
    {
    }

    /** Up to {@code attempts} attempts within {@code budget}; the first one's result, else the last failure. */
    static <T> T call(final RetryPolicy policy, final int attempts, final Duration budget, final Attempt<T> attempt)
        throws Throwable
    {
        return call(Clock.SYSTEM, policy, attempts, budget, attempt);
    }

    /** As {@link #call(RetryPolicy, int, Duration, Attempt)}, on {@code clock}'s time. */
    static <T> T call(final Clock clock, final RetryPolicy policy, final int attempts, final Duration budget,
        final Attempt<T> attempt) throws Throwable
    {
        final long deadline = clock.nanoTime() + budget.toNanos();
        try
        {
            return attempt.run(budget);
        }
        catch (final Throwable failure)
        {
            return callAfter(clock, policy, attempts, deadline, failure, null, attempt);
        }
    }

    /**
     * The attempts after a first one (run by the caller, so a call that succeeds at once makes no attempt object)
     * failed with {@code failure}: up to {@code attempts} in all, until {@code deadline} ({@link System#nanoTime()}).
     */
    static <T> T callAfter(final RetryPolicy policy, final int attempts, final long deadline,
        final Throwable firstFailure, final Attempt<T> attempt) throws Throwable
    {
        return callAfter(Clock.SYSTEM, policy, attempts, deadline, firstFailure, null, attempt);
    }

    /**
     * As {@link #callAfter(RetryPolicy, int, long, Throwable, Attempt)} for the exactly-once call with
     * {@code exactlyOnceKey} (null for another call): one that ends unsettled ends with
     * {@link ExactlyOnceUnsettledException} ({@link #ending(Throwable, boolean, String)}).
     */
    static <T> T callAfter(final RetryPolicy policy, final int attempts, final long deadline,
        final Throwable firstFailure, final @Nullable String exactlyOnceKey, final Attempt<T> attempt)
        throws Throwable
    {
        return callAfter(Clock.SYSTEM, policy, attempts, deadline, firstFailure, exactlyOnceKey, attempt);
    }

    private static <T> T callAfter(final Clock clock, final RetryPolicy policy, final int attempts,
        final long deadline, final Throwable firstFailure, final @Nullable String exactlyOnceKey,
        final Attempt<T> attempt) throws Throwable
    {
        Throwable failure = firstFailure;
        boolean written = false; // by an attempt before the one that failed with failure
        for (int n = 0; ; n++)
        {
            final long wait = nextWait(policy, attempts, n, failure, deadline, clock.nanoTime());
            if (wait < 0)
            {
                throw ending(failure, written, exactlyOnceKey);
            }
            try
            {
                clock.sleep(wait);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt(); // the caller gave up: it gets what failed so far
                throw ending(failure, written, exactlyOnceKey);
            }
            try
            {
                return attempt.run(Duration.ofNanos(deadline - clock.nanoTime()));
            }
            catch (final Throwable next)
            {
                written |= mayHaveRun(failure);
                failure = next;
            }
        }
    }

    /**
     * Whether an attempt that failed with {@code failure} may have run: not a connection failure or a timeout that
     * says not.
     */
    static boolean mayHaveRun(final Throwable failure)
    {
        if (failure instanceof ConnectionException lost)
        {
            return lost.mayHaveRun();
        }
        return !(failure instanceof XioTimeoutException late) || late.mayHaveRun();
    }

    /**
     * Whether a call whose last attempt failed with {@code last} ran, or may have, though no answer says how: its
     * server ran it and lost the answer ({@link RemoteException#isResponseLost() RESPONSE_LOST}), or its caller gave
     * up waiting, interrupted, for the answer of an attempt it had sent, or for the session of an attempt after one
     * that may have run ({@code written}).
     */
    private static boolean ranOrAbandoned(final Throwable last, final boolean written)
    {
        return last instanceof RemoteException remote && remote.isResponseLost() ||
            last instanceof CallerInterruptedException interrupted && (interrupted.sent() || written);
    }

    /**
     * What the caller of a call whose last attempt failed with {@code last} gets: {@code last}, unless it is a
     * {@link ConnectionException} or an {@link XioTimeoutException} saying the attempt did not run while an earlier
     * attempt may have ({@code written}): then the call's own instance saying it may have run.
     */
    static Throwable ending(final Throwable last, final boolean written)
    {
        if (written && last instanceof ConnectionException lost && !lost.mayHaveRun())
        {
            return lost.forCall(true);
        }
        return last instanceof XioTimeoutException late ? late.forCall(written) : last;
    }

    /**
     * As {@link #ending(Throwable, boolean)}, for the exactly-once call with {@code exactlyOnceKey} (null for another
     * call): when it may have run, an {@link ExactlyOnceUnsettledException} carrying its key, so that its caller
     * resumes it with that key rather than running it again under a new one. It may have run when the last server
     * refused it (another attempt of its key holds the key there, and may be committing), when the last attempt's
     * connection failure or timeout says it may have run (a server that held it past the deadline may run it still),
     * or when an earlier attempt may have run ({@code written}) and the last one's failure is one that leaves the
     * outcome open (a connection failure, a refusal or a timeout, not an answer). Also when it ran or was abandoned
     * ({@link #ranOrAbandoned}).
     */
    static Throwable ending(final Throwable last, final boolean written, final @Nullable String exactlyOnceKey)
    {
        if (exactlyOnceKey != null && ranOrAbandoned(last, written))
        {
            return new ExactlyOnceUnsettledException(exactlyOnceKey, last);
        }
        if (exactlyOnceKey == null || last instanceof ExactlyOnceUnsettledException)
        {
            return ending(last, written);
        }
        final boolean lostOrLate = last instanceof ConnectionException || last instanceof XioTimeoutException;
        final boolean open = lostOrLate || last instanceof BackPressureException;
        final boolean mayHaveRun = RetryPolicy.refusedByServer(last) || lostOrLate && mayHaveRun(last) ||
            written && open;
        return mayHaveRun ? new ExactlyOnceUnsettledException(exactlyOnceKey, last) : ending(last, written);
    }

    /**
     * Up to {@code attempts} attempts within {@code budget}: a future of the first one's result, else of the last
     * failure. Cancelling it cancels the attempt under way and starts no other. The attempts after the first start on
     * {@code afterBackoff}, which must not block.
     */
    static <T> CompletableFuture<T> callAsync(final RetryPolicy policy, final int attempts, final Duration budget,
        final Executor afterBackoff, final AsyncAttempt<T> attempt)
    {
        return callAsync(policy, attempts, budget, null, afterBackoff, attempt);
    }

    /**
     * As {@link #callAsync(RetryPolicy, int, Duration, Executor, AsyncAttempt)} for the exactly-once call with
     * {@code exactlyOnceKey} (null for another call), which ends as {@link #ending(Throwable, boolean, String)} says.
     */
    static <T> CompletableFuture<T> callAsync(final RetryPolicy policy, final int attempts, final Duration budget,
        final @Nullable String exactlyOnceKey, final Executor afterBackoff, final AsyncAttempt<T> attempt)
    {
        final Attempts<T> run = new Attempts<>(policy, attempts, budget, exactlyOnceKey, afterBackoff, attempt);
        run.start(0);
        return run.result;
    }

    /** The wait before attempt {@code n + 1} after attempt {@code n} failed so, or -1 when there is none. */
    static long nextWait(final RetryPolicy policy, final int attempts, final int n, final Throwable failure,
        final long deadline)
    {
        return nextWait(policy, attempts, n, failure, deadline, System.nanoTime());
    }

    private static long nextWait(final RetryPolicy policy, final int attempts, final int n, final Throwable failure,
        final long deadline, final long now)
    {
        // A call a draining session refused unsent may go elsewhere even when it is not idempotent.
        final int allowed = RetryPolicy.neverSent(failure) ? Math.max(attempts, policy.maxAttempts()) : attempts;
        if (n + 1 >= allowed || !policy.retries(failure))
        {
            return -1;
        }
        final long wait = policy.backoff().delayNanos(n);
        // An attempt needs some time of its own: one that starts at the deadline can only time out.
        return now + wait < deadline ? wait : -1;
    }

    /** The attempts of one call returning a future; each runs once the one before it failed. */
    private static final class Attempts<T>
    {
        private final RetryPolicy policy;
        private final int attempts;
        private final Duration budget;
        private final long deadline;
        private final @Nullable String exactlyOnceKey;
        private final Executor afterBackoff;
        private final AsyncAttempt<T> attempt;
        private final CompletableFuture<T> result = new CompletableFuture<>();
        private volatile @Nullable CompletableFuture<T> current;
        /** Whether a failed attempt may have run; set before the next attempt is scheduled. */
        private volatile boolean written;

        Attempts(final RetryPolicy policy, final int attempts, final Duration budget,
            final @Nullable String exactlyOnceKey, final Executor afterBackoff, final AsyncAttempt<T> attempt)
        {
            this.exactlyOnceKey = exactlyOnceKey;
            this.policy = policy;
            this.attempts = attempts;
            this.budget = budget;
            this.deadline = System.nanoTime() + budget.toNanos();
            this.afterBackoff = afterBackoff;
            this.attempt = attempt;
            result.whenComplete((value, ex) ->
            {
                final CompletableFuture<T> running = current;
                if (result.isCancelled() && running != null)
                {
                    running.cancel(true); // cancels the call on the server too
                }
            });
        }

        private void start(final int n)
        {
            if (result.isDone())
            {
                return; // cancelled during the backoff
            }
            CompletableFuture<T> started;
            try
            {
                started = attempt.start(n == 0 ? budget : Duration.ofNanos(deadline - System.nanoTime()));
            }
            catch (final RuntimeException ex)
            {
                started = CompletableFuture.failedFuture(ex); // else the caller's future would never complete
            }
            current = started;
            if (result.isCancelled())
            {
                started.cancel(true); // cancelled while this attempt started
            }
            started.whenComplete((value, ex) ->
            {
                if (ex == null)
                {
                    result.complete(value);
                    return;
                }
                final Throwable failure = CallFailures.unwrap(ex);
                final long wait = result.isDone() ? -1 : nextWait(policy, attempts, n, failure, deadline);
                if (wait < 0)
                {
                    result.completeExceptionally(ending(failure, written, exactlyOnceKey));
                    return;
                }
                if (mayHaveRun(failure))
                {
                    written = true;
                }
                CompletableFuture.delayedExecutor(wait, TimeUnit.NANOSECONDS, afterBackoff).execute(() -> start(n + 1));
            });
        }
    }
}
