package io.xio.spring.client;

import io.xio.engine.BackPressureException;
import io.xio.engine.ConnectionException;
import io.xio.engine.ContextFailedException;
import io.xio.engine.GoAway;
import io.xio.engine.RemoteException;
import io.xio.engine.RequestCancelledException;
import io.xio.engine.SessionDrainingException;
import io.xio.engine.SessionRejectedException;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.support.Backoff;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/** Which failures a client retries, how the policy is bound, and the attempts' loop with its budget. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RetryingCallTest
{
    private static final RetryPolicy POLICY = new RetryPolicy(5, Backoff.of(Duration.ofMillis(2),
        Duration.ofMillis(4)));
    private static final String URI = "tcp://h:1/kv";
    /** Starts an attempt after its backoff on the JDK's delay scheduler itself. */
    private static final Executor ON_THE_TIMER = Runnable::run;

    @Test
    void onlyFailuresThatMayNotHaveRunOrLostTheirAnswerAreRetried()
    {
        assertThat(RetryPolicy.mayRetry(new ConnectionException("session closed by the peer"))).isTrue();
        assertThat(RetryPolicy.mayRetry(new ContextFailedException("context failed", new Error()))).isTrue();
        assertThat(RetryPolicy.mayRetry(new RemoteException(URI, 4, null, null))).as("RESPONSE_LOST").isTrue();

        assertThat(RetryPolicy.mayRetry(new RemoteException(URI, 1, "java.lang.IllegalStateException", "x")))
            .as("the server answered").isFalse();
        assertThat(RetryPolicy.mayRetry(new BackPressureException("busy", new RemoteException(URI, 2, null, null))))
            .isFalse();
        assertThat(RetryPolicy.mayRetry(new XioTimeoutException("late"))).isFalse();
        assertThat(RetryPolicy.mayRetry(new RemoteException(URI, 5, null, null))).as("OUTSIDE_WINDOW").isFalse();
        assertThat(RetryPolicy.mayRetry(new RequestCancelledException("cancelled"))).isFalse();
        assertThat(RetryPolicy.mayRetry(new SessionRejectedException(URI, "no"))).isFalse();
        assertThat(RetryPolicy.mayRetry(new IllegalArgumentException("cannot encode"))).isFalse();
    }

    @Test
    void aCallADrainingSessionRefusedUnsentIsRetriedEvenWhenNotIdempotent() throws Throwable
    {
        final AtomicInteger attempts = new AtomicInteger();
        // One attempt allowed (not idempotent): a refusal before sending still goes again, up to max-attempts.
        final Object result = RetryingCall.call(POLICY, 1, Duration.ofSeconds(10), remaining ->
        {
            if (attempts.incrementAndGet() < 3)
            {
                throw new SessionDrainingException("draining", GoAway.of("shutting down"));
            }
            return "elsewhere";
        });
        assertThat(result).isEqualTo("elsewhere");
        assertThat(attempts).hasValue(3);

        // But a failure after it was sent is not retried for a call that is not idempotent.
        attempts.set(0);
        assertThatThrownBy(() -> RetryingCall.call(POLICY, 1, Duration.ofSeconds(10), remaining ->
        {
            if (attempts.incrementAndGet() == 1)
            {
                throw new SessionDrainingException("draining", GoAway.of("shutting down"));
            }
            throw new ConnectionException("lost after sending");
        })).isInstanceOf(ConnectionException.class).hasMessage("lost after sending");
        assertThat(attempts).hasValue(2);

        // And never more than max-attempts, the asynchronous form alike.
        attempts.set(0);
        final CompletableFuture<Object> refused = RetryingCall.callAsync(POLICY, 1, Duration.ofSeconds(10),
            ON_THE_TIMER, remaining ->
            {
                attempts.incrementAndGet();
                return CompletableFuture.failedFuture(new SessionDrainingException("draining",
                    GoAway.of("shutting down")));
            });
        await().until(refused::isDone);
        assertThat(refused).isCompletedExceptionally();
        assertThat(attempts).hasValue(POLICY.maxAttempts());
    }

    @Test
    void aRetryWhoseFirstWaitIsLongerThanItsLongestIsRefused()
    {
        assertThat(new XioClientSettings.Retry(3, Duration.ofMillis(50), Duration.ofMillis(50)).maxBackoff())
            .isEqualTo(Duration.ofMillis(50));
        assertThatThrownBy(() -> new XioClientSettings.Retry(3, Duration.ofSeconds(1), Duration.ofMillis(200)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceeds the max backoff");
    }

    @Test
    void aBlockingCallIsTriedAgainUntilItSucceedsEachAttemptWithWhatIsLeftOfTheBudget() throws Throwable
    {
        final List<Duration> given = new CopyOnWriteArrayList<>();
        final Object result = RetryingCall.call(POLICY, 5, Duration.ofSeconds(10), remaining ->
        {
            given.add(remaining);
            if (given.size() < 3)
            {
                throw new ConnectionException("lost");
            }
            return "third";
        });
        assertThat(result).isEqualTo("third");
        assertThat(given).hasSize(3);
        assertThat(given.get(0)).isEqualTo(Duration.ofSeconds(10));
        assertThat(given.get(1)).isLessThan(given.get(0));
        assertThat(given.get(2)).isLessThan(given.get(1));
    }

    @Test
    void aFailureThatIsNotRetriedOrTheLastAttemptsGoesToTheCaller()
    {
        final AtomicInteger attempts = new AtomicInteger();
        final IllegalStateException answered = new IllegalStateException("the service said no");
        assertThatThrownBy(() -> RetryingCall.call(POLICY, 5, Duration.ofSeconds(10), remaining ->
        {
            attempts.incrementAndGet();
            throw answered;
        })).isSameAs(answered);
        assertThat(attempts).hasValue(1);

        attempts.set(0);
        assertThatThrownBy(() -> RetryingCall.call(POLICY, 4, Duration.ofSeconds(10), remaining ->
        {
            throw new ConnectionException("lost " + attempts.incrementAndGet());
        })).hasMessage("lost 4");
        assertThat(attempts).hasValue(4);
        attempts.set(0);
        assertThatThrownBy(() -> RetryingCall.call(POLICY, 1, Duration.ofSeconds(10), remaining ->
        {
            throw new ConnectionException("lost " + attempts.incrementAndGet());
        })).as("one attempt: not idempotent").hasMessage("lost 1");
    }

    @Test
    void aCallAnEarlierAttemptOfWhichWasWrittenMayHaveRunWhenItsLastAttemptWasNeverWritten()
    {
        final ConnectionException lost = new ConnectionException("connection lost", null, true);
        final ConnectionException refused = new ConnectionException("no connection up", null, false);
        final AtomicInteger attempts = new AtomicInteger();

        final Throwable blocking = catchThrowable(() -> RetryingCall.call(POLICY, 2, Duration.ofSeconds(10),
            remaining ->
            {
                throw attempts.incrementAndGet() == 1 ? lost : refused;
            }));
        final Throwable async = CallFailures.unwrap(catchThrowable(RetryingCall.callAsync(POLICY, 2,
            Duration.ofSeconds(10), ON_THE_TIMER, remaining -> CompletableFuture.failedFuture(
                attempts.incrementAndGet() == 3 ? lost : refused))::join));
        final Throwable neverWritten = catchThrowable(() -> RetryingCall.call(POLICY, 2, Duration.ofSeconds(10),
            remaining ->
            {
                throw refused;
            }));

        for (final Throwable failure : List.of(blocking, async))
        {
            assertThat(failure).isInstanceOf(ConnectionException.class).isNotSameAs(refused)
                .hasMessage("no connection up (the request was written: it may have run)");
            assertThat(((ConnectionException)failure).mayHaveRun()).as("the first attempt was written").isTrue();
        }
        assertThat(neverWritten).as("no attempt was written").isSameAs(refused);
        assertThat(attempts).hasValue(4);
    }

    @Test
    void noAttemptStartsWhoseBackoffEndsPastTheDeadline()
    {
        final RetryPolicy slow = new RetryPolicy(100, Backoff.of(Duration.ofMillis(200), Duration.ofMillis(200)));
        final SteppedClock clock = new SteppedClock();
        final long deadline = clock.nanoTime() + Duration.ofMillis(250).toNanos();
        final List<Long> startedAt = new ArrayList<>();
        final List<Duration> given = new ArrayList<>();
        assertThatThrownBy(() -> RetryingCall.call(clock, slow, 100, Duration.ofMillis(250), remaining ->
        {
            startedAt.add(clock.nanoTime());
            given.add(remaining);
            throw new ConnectionException("lost");
        })).isInstanceOf(ConnectionException.class);
        // Waits of 100-200 ms: the first ends in time, so a second attempt runs; a third when both waits together end
        // before 250 ms (one draw in eight); a fourth never (three take 300 ms at least).
        assertThat(startedAt).hasSizeBetween(2, 3).allMatch(at -> at < deadline);
        assertThat(given.get(0)).isEqualTo(Duration.ofMillis(250));
        for (int i = 1; i < given.size(); i++)
        {
            assertThat(given.get(i)).as("what is left of the budget").isEqualTo(
                Duration.ofNanos(deadline - startedAt.get(i)));
        }
        assertThat(clock.nanoTime()).as("no wait that would end past the deadline").isLessThan(deadline);
    }

    @Test
    void aCallReturningAFutureIsTriedAgainTheSameWayEachAttemptAfterTheFirstOnTheExecutorGiven()
    {
        final AtomicInteger attempts = new AtomicInteger();
        final ThreadLocal<Boolean> inExecutor = ThreadLocal.withInitial(() -> false);
        final List<Boolean> onExecutor = new CopyOnWriteArrayList<>();
        final Executor afterBackoff = task ->
        {
            inExecutor.set(true);
            try
            {
                task.run();
            }
            finally
            {
                inExecutor.set(false);
            }
        };
        final CompletableFuture<Object> result = RetryingCall.callAsync(POLICY, 5, Duration.ofSeconds(10),
            afterBackoff, remaining ->
            {
                onExecutor.add(inExecutor.get());
                return attempts.incrementAndGet() < 3
                    ? CompletableFuture.failedFuture(new ConnectionException("lost"))
                    : CompletableFuture.completedFuture("third");
            });
        assertThat(result.join()).isEqualTo("third");
        assertThat(attempts).hasValue(3);
        assertThat(onExecutor).as("the first on the caller's thread, the others where the client said")
            .containsExactly(false, true, true);

        final CompletableFuture<Object> refused = RetryingCall.callAsync(POLICY, 5, Duration.ofSeconds(10),
            ON_THE_TIMER,
            remaining -> CompletableFuture.failedFuture(new XioTimeoutException("late " + attempts.incrementAndGet())));
        assertThatThrownBy(refused::join).cause().isInstanceOf(XioTimeoutException.class).hasMessage("late 4");
    }

    @Test
    void cancellingTheCallCancelsTheAttemptUnderWayAndStartsNoOther()
    {
        final List<CompletableFuture<Object>> started = new CopyOnWriteArrayList<>();
        final CompletableFuture<Object> result = RetryingCall.callAsync(POLICY, 5, Duration.ofSeconds(10),
            ON_THE_TIMER, remaining ->
            {
                final CompletableFuture<Object> attempt = new CompletableFuture<>();
                started.add(attempt);
                if (started.size() == 1)
                {
                    attempt.completeExceptionally(new ConnectionException("lost"));
                }
                return attempt;
            });
        await().atMost(Duration.ofSeconds(5)).until(() -> started.size() == 2);
        assertThat(result.cancel(true)).isTrue();
        assertThat(started.get(1)).isCancelled();
        assertThat(started).hasSize(2);
    }

    /** Time that passes only when the call waits out a backoff: the test runs in no time, whatever the machine does. */
    private static final class SteppedClock implements RetryingCall.Clock
    {
        private long now = 1_000_000_000L;

        @Override
        public long nanoTime()
        {
            return now;
        }

        @Override
        public void sleep(final long nanos)
        {
            now += nanos;
        }
    }
}
