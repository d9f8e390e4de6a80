package io.xio.cluster;

import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.ContextFailedException;
import io.xio.engine.HeldRequests;
import io.xio.engine.IdempotencyKeys;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.support.Backoff;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.IdempotencyKeys.METADATA_KEY;
import static io.xio.engine.IdempotencyKeys.PREVIOUS_ATTEMPTS_KEY;
import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One call's attempts, given sessions by a stand-in service client on a fake clock: an attempt refused unwritten is
 * not one and backs off, and the failure that ends a call is its own instance saying whether any attempt was written,
 * whatever its last attempt or a shared failure says. Real sessions: one to a server that holds its calls (an attempt
 * there is written, then lost when the test aborts its connection), one closed (an attempt there is never written),
 * one to a server that answers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServiceCallTest
{
    private static final String WRITTEN = "(the request was written: it may have run)";
    private static final String NEVER_WRITTEN = "(the request was never written: it did not run)";
    private static final long BUDGET = TimeUnit.SECONDS.toNanos(60);
    private static final CallOptions EXACTLY_ONCE = CallOptions.DEFAULT.withExactlyOnce(true);

    private final TestEngines engines = new TestEngines();
    private final HeldRequests held = new HeldRequests();
    /** The idempotency key and attempts entry of each request the answering server took. */
    private final BlockingQueue<List<String>> arrivals = new LinkedBlockingQueue<>();
    private final Client client = new Client();
    private Portal portal;
    private int holders;
    private Session closed;
    private Session answering;
    private Session refusing;
    private final java.util.concurrent.atomic.AtomicInteger refusals = new java.util.concurrent.atomic.AtomicInteger();

    /** A service client whose attempts take the sessions the test gives, and whose waits the test runs. */
    private static final class Client implements ServiceCall.Client
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final BlockingQueue<CompletableFuture<Session>> sessions = new LinkedBlockingQueue<>();
        /** The waits before the next attempt asked for, in order. */
        final BlockingQueue<Long> waits = new LinkedBlockingQueue<>();

        @Override
        public String service()
        {
            return "kv";
        }

        @Override
        public NanoClock clock()
        {
            return clock;
        }

        @Override
        public long defaultTimeoutNanos()
        {
            return BUDGET;
        }

        @Override
        public int maxAttempts()
        {
            return 2;
        }

        @Override
        public Backoff backoff()
        {
            return Backoff.of(Duration.ofMillis(10), Duration.ofMillis(80));
        }

        @Override
        public CompletableFuture<Session> session(final long key)
        {
            final CompletableFuture<Session> next = sessions.poll();
            assertThat(next).as("a session for the attempt").isNotNull();
            return next;
        }

        @Override
        public boolean hasAlternatives()
        {
            return true;
        }

        @Override
        public void retryLater(final ServiceCall<?> call, final long delayNanos)
        {
            waits.add(delayNanos);
        }

        @Override
        public String describe()
        {
            return "the test's sessions";
        }
    }

    @BeforeEach
    void connect()
    {
        final XioEngine server = engines.start("server");
        server.register("hold", held::add);
        server.register("refuse", request ->
        {
            refusals.incrementAndGet();
            request.message().close();
            request.refuse();
        });
        server.register("answer", request ->
        {
            final Metadata metadata = request.metadata();
            arrivals.add(Arrays.asList(metadata.get(METADATA_KEY), metadata.get(PREVIOUS_ATTEMPTS_KEY)));
            TestEngines.ECHO.onRequest(request);
        });
        portal = server.bind("tcp://127.0.0.1:0");
        final XioEngine engine = engines.start("client");
        closed = engine.connect(portal.uri().withResource("hold").toString());
        closed.close();
        answering = engine.connect(portal.uri().withResource("answer").toString());
        refusing = engine.connect(portal.uri().withResource("refuse").toString());
    }

    @AfterEach
    void close()
    {
        held.releaseAll();
        engines.close();
    }

    private ServiceCall<Message> call(final String data)
    {
        return new ServiceCall<>(client, Outbound.of(utf8(data)), EXACTLY_ONCE, 0, false);
    }

    /** The next attempt of {@code call}, on {@code session}, once the wait the call asked for has passed. */
    private long again(final ServiceCall<?> call, final CompletableFuture<Session> session) throws Exception
    {
        final Long wait = client.waits.poll(10, TimeUnit.SECONDS);
        assertThat(wait).as("the call is tried again").isNotNull();
        client.clock.update(client.clock.nanoTime() + wait);
        client.sessions.add(session);
        call.attempt(false);
        return wait;
    }

    /**
     * Sends {@code call}'s first attempt to the holding server, from an engine of its own (whose connection the test
     * aborts), then loses it there: the key it was sent with.
     */
    private String writtenAndLost(final ServiceCall<?> call)
    {
        // A re-attach far away: an attempt is not kept for it.
        final Session holding = engines.start(engines.builder("holder-" + ++holders)
            .reconnectTimeout(Duration.ofMinutes(5))).connect(portal.uri().withResource("hold").toString());
        final int before = held.size();
        client.sessions.add(CompletableFuture.completedFuture(holding));
        call.attempt(true);
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == before + 1);
        final String key = held.stream().skip(before).findFirst().orElseThrow().metadata().get(METADATA_KEY);
        holding.abortConnections();
        return key;
    }

    private static ConnectionException lost(final ServiceCall<?> call) throws InterruptedException
    {
        final Throwable failure = TestEngines.failure(call.result);
        assertThat(failure).isInstanceOf(ConnectionException.class);
        return (ConnectionException)failure;
    }

    @Test
    void attemptsRefusedUnwrittenAreNotAttemptsAndBackOffUntilOneIsTakenWithTheCallsKey() throws Exception
    {
        final ServiceCall<Message> call = call("transfer");
        final String key = writtenAndLost(call);

        again(call, CompletableFuture.completedFuture(closed)); // the one attempt left: refused unwritten
        final long firstRefusal = again(call, CompletableFuture.completedFuture(closed));
        final long secondRefusal = again(call, CompletableFuture.completedFuture(answering));

        try (Message response = call.result.get(10, TimeUnit.SECONDS))
        {
            assertThat(text(response.header())).isEqualTo("transfer");
        }
        assertThat(arrivals.poll(10, TimeUnit.SECONDS)).as("the call's key, one attempt written before")
            .containsExactly(IdempotencyKeys.check(key), "1");
        // Their own backoff, from its first step: no spin.
        assertThat(firstRefusal).isBetween(TimeUnit.MILLISECONDS.toNanos(5), TimeUnit.MILLISECONDS.toNanos(10));
        assertThat(secondRefusal).isBetween(TimeUnit.MILLISECONDS.toNanos(10), TimeUnit.MILLISECONDS.toNanos(20));
    }

    @Test
    void anExactlyOnceCallTurnedAwayUnrunIsTriedAgainWithItsKeyWithoutUsingUpItsAttempts() throws Exception
    {
        final ServiceCall<Message> call = call("transfer");
        client.sessions.add(CompletableFuture.completedFuture(refusing));
        call.attempt(true);
        again(call, CompletableFuture.completedFuture(refusing)); // a ledger: another attempt has not settled
        again(call, CompletableFuture.completedFuture(refusing)); // more than maxAttempts (2) refusals
        again(call, CompletableFuture.completedFuture(answering));

        try (Message response = call.result.get(10, TimeUnit.SECONDS))
        {
            assertThat(text(response.header())).isEqualTo("transfer");
        }
        assertThat(refusals).hasValue(3);
        final List<String> arrived = arrivals.poll(10, TimeUnit.SECONDS);
        assertThat(arrived).isNotNull();
        assertThat(arrived.get(0)).as("the key the call was made with").isNotNull();
        assertThat(arrived.get(1)).as("attempts before it").isNotNull();
    }

    @Test
    void aCallThatIsNotExactlyOnceTurnedAwayUnrunFailsWithBackPressure() throws Exception
    {
        final ServiceCall<Message> call = new ServiceCall<>(client, Outbound.of(utf8("read")),
            CallOptions.DEFAULT.withIdempotent(true), 0, false);
        client.sessions.add(CompletableFuture.completedFuture(refusing));
        call.attempt(true);

        assertThat(TestEngines.failure(call.result)).isInstanceOf(io.xio.engine.BackPressureException.class);
        assertThat(client.waits).isEmpty();
    }

    @Test
    void aCallWhoseEarlierAttemptWasWrittenAndWhoseLastWasNotMayHaveRun() throws Exception
    {
        final ServiceCall<Message> call = call("transfer");
        writtenAndLost(call);
        final Long wait = client.waits.poll(10, TimeUnit.SECONDS);
        assertThat(wait).isNotNull();
        // The deadline is 1 ms away: no backoff fits before it.
        client.clock.update(call.begun + BUDGET - TimeUnit.MILLISECONDS.toNanos(1));
        client.sessions.add(CompletableFuture.completedFuture(closed));
        call.attempt(false);

        final ConnectionException failure = lost(call);

        assertThat(failure.mayHaveRun()).as("the first attempt was written").isTrue();
        assertThat(failure).hasMessageContaining("is closed").hasMessageEndingWith(WRITTEN)
            .hasMessageNotContaining(NEVER_WRITTEN);
        assertThat(client.waits).as("no attempt past the deadline").isEmpty();
    }

    @Test
    void aCallWhoseDeadlinePassedAfterAWrittenAttemptTimesOutSayingItMayHaveRun() throws Exception
    {
        final ServiceCall<Message> call = call("transfer");
        writtenAndLost(call);
        final Long wait = client.waits.poll(10, TimeUnit.SECONDS);
        assertThat(wait).isNotNull();
        client.clock.update(call.begun + BUDGET);
        call.attempt(false);

        final Throwable failure = TestEngines.failure(call.result);

        assertThat(failure).isInstanceOf(XioTimeoutException.class)
            .hasMessageEndingWith("(an earlier attempt was written: it may have run)");
        assertThat(((XioTimeoutException)failure).mayHaveRun()).isTrue();
    }

    @Test
    void aSharedFailureEndsEachCallAsItsOwnInstanceOfItsTypeSayingOnceWhetherAnyAttemptWasWritten() throws Exception
    {
        final Error stopped = new OutOfMemoryError("test");
        final ContextFailedException shared = new ContextFailedException("context c-0 failed", stopped);
        final ServiceCall<Message> written = call("written");
        final ServiceCall<Message> writtenThenUnsent = call("written, then unsent");
        final ServiceCall<Message> never = call("never written");

        writtenAndLost(written);
        again(written, CompletableFuture.failedFuture(shared));
        writtenAndLost(writtenThenUnsent);
        again(writtenThenUnsent, CompletableFuture.failedFuture(shared.forCall(false)));
        client.sessions.add(CompletableFuture.failedFuture(shared));
        never.attempt(true);

        for (final ServiceCall<Message> call : List.of(written, writtenThenUnsent))
        {
            final ConnectionException failure = lost(call);
            assertThat(failure).isInstanceOf(ContextFailedException.class).isNotSameAs(shared).hasCause(stopped)
                .hasMessage("context c-0 failed " + WRITTEN);
            assertThat(failure.mayHaveRun()).isTrue();
        }
        final ConnectionException unsent = lost(never);
        assertThat(unsent).isInstanceOf(ContextFailedException.class).isNotSameAs(shared).hasCause(stopped)
            .hasMessage("context c-0 failed " + NEVER_WRITTEN);
        assertThat(unsent.mayHaveRun()).isFalse();
    }
}
