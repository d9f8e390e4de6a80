package io.xio.spring.client;

import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.XioException;
import io.xio.engine.XioTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.mockito.Mockito.mock;

/**
 * Where an attempt takes its session and with what budget: an open session at once with the whole budget, else the
 * session once open with what opening left, and a timeout naming the last failure when it does not open in time.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AttemptSessionsTest
{
    private static final Outbound MESSAGE = Outbound.of(new byte[] {1});
    private static final CallOptions BUDGET = CallOptions.timeout(Duration.ofSeconds(5));
    private final Session open = mock(Session.class);
    private final Sessions sessions = new Sessions();
    private final AttemptSessions attempts = new AttemptSessions(sessions);

    @Test
    void anOpenSessionTakesTheAttemptAtOnceWithItsWholeBudget() throws Throwable
    {
        sessions.next = CompletableFuture.completedFuture(open);
        final Attempt attempt = new Attempt();

        attempts.whenOpen(MESSAGE, BUDGET, attempt);

        assertThat(attempt.session).isSameAs(open);
        assertThat(attempt.message).isSameAs(MESSAGE);
        assertThat(attempt.options).isSameAs(BUDGET);
        assertThat(attempts.await(attempts.opening(), Duration.ofMillis(1))).isSameAs(open);
    }

    @Test
    void aSessionThatOpensLaterTakesTheAttemptWithWhatOpeningLeft()
    {
        sessions.next = new CompletableFuture<>();
        final Attempt attempt = new Attempt();

        attempts.whenOpen(MESSAGE, BUDGET, attempt);
        assertThat(attempt.session).isNull();
        sessions.next.complete(open);

        assertThat(attempt.session).isSameAs(open);
        assertThat(attempt.options.timeout()).isPositive().isLessThan(BUDGET.timeout());
    }

    @Test
    void aCallerInterruptedWhileItsSessionOpensKeepsItsInterruptAndLeavesTheSessionOpening()
    {
        sessions.next = new CompletableFuture<>();
        Thread.currentThread().interrupt();
        try
        {
            assertThatThrownBy(() -> attempts.await(sessions.next, Duration.ofSeconds(5)))
                .isInstanceOf(XioException.class).hasMessageContaining("interrupted while waiting for a session to")
                .hasCauseInstanceOf(InterruptedException.class);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
            assertThat(sessions.next).as("shared by the other calls: not cancelled").isNotDone();
        }
        finally
        {
            Thread.interrupted();
        }
    }

    @Test
    void noSessionWithinTheBudgetIsATimeoutNamingTheLastFailure()
    {
        sessions.next = new CompletableFuture<>();
        sessions.lastFailure = "connection refused";
        final Attempt attempt = new Attempt();

        attempts.whenOpen(MESSAGE, CallOptions.timeout(Duration.ofMillis(20)), attempt);

        await().until(() -> attempt.failure != null);
        assertThat(attempt.failure).isInstanceOf(XioTimeoutException.class)
            .hasMessageContaining("no session to tcp://h:1/kv").hasMessageContaining("connection refused");
        assertThat(attempt.session).isNull();
        assertThatThrownBy(() -> attempts.await(sessions.next, Duration.ofMillis(20)))
            .isInstanceOf(XioTimeoutException.class).hasMessageContaining("connection refused");
    }

    @Test
    void aSessionThatFailedToOpenFailsTheAttemptWithWhy()
    {
        final ConnectionException refused = new ConnectionException("refused");
        sessions.next = CompletableFuture.failedFuture(refused);
        final Attempt attempt = new Attempt();

        attempts.whenOpen(MESSAGE, BUDGET, attempt);

        assertThat(attempt.failure).isSameAs(refused);
        assertThatThrownBy(() -> attempts.await(sessions.next, Duration.ofMillis(20))).isSameAs(refused);
    }

    @Test
    void anIdempotentAttemptFailsFastOnlyWhenAnotherInstanceCouldTakeIt()
    {
        final CallOptions idempotent = BUDGET.withIdempotent(true);

        assertThat(attempts.elsewhere(idempotent).idempotent()).as("nowhere else to go").isFalse();
        sessions.elsewhere = true;
        assertThat(attempts.elsewhere(idempotent)).isSameAs(idempotent);
    }

    @Test
    void aBudgetSpentWhileTheSessionOpenedIsATimeout()
    {
        final long begun = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(5);

        assertThatThrownBy(() -> attempts.afterOpening(CallOptions.timeout(Duration.ofMillis(2)), begun))
            .isInstanceOf(XioTimeoutException.class).hasMessageContaining("passed while its session opened");
    }

    /** One address whose next session is what the test says. */
    private static final class Sessions implements ClientSessions
    {
        private volatile CompletableFuture<Session> next;
        private volatile String lastFailure;
        private volatile boolean elsewhere;

        @Override
        public String target()
        {
            return "tcp://h:1/kv";
        }

        @Override
        public String resource()
        {
            return "kv";
        }

        @Override
        public String transport()
        {
            return "tcp";
        }

        @Override
        public CompletableFuture<Session> session()
        {
            return next;
        }

        @Override
        public boolean elsewhere()
        {
            return elsewhere;
        }

        @Override
        public String lastFailure()
        {
            return lastFailure;
        }

        @Override
        public XioClientStatus status(final String name, final Class<?> api)
        {
            throw new UnsupportedOperationException();
        }
    }

    /** What an attempt was told. */
    private static final class Attempt implements AttemptSessions.AsyncSend
    {
        private volatile Session session;
        private volatile Outbound message;
        private volatile CallOptions options;
        private volatile Throwable failure;

        @Override
        public void send(final Session session, final Outbound message, final CallOptions options)
        {
            this.message = message;
            this.options = options;
            this.session = session;
        }

        @Override
        public void notSent(final Throwable failure)
        {
            this.failure = failure;
        }
    }
}
