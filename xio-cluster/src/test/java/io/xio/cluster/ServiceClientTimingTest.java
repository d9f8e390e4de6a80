package io.xio.cluster;

import io.xio.engine.ConnectionException;
import io.xio.engine.GoAway;
import io.xio.engine.Session;
import io.xio.engine.SessionRejectedException;
import io.xio.engine.TestEngines;
import io.xio.engine.XioUri;
import io.xio.engine.support.Backoff;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A service client's timing on a fake clock: when it opens an endpoint's session again, how long an endpoint the
 * resolver stopped listing keeps taking calls, and on which thread a waiting caller is woken. Its sessions are fake
 * and its thread is run by hand ({@link ManualClientThread}), so nothing waits in real time; the engine the builder
 * asks for opens nothing.
 */
class ServiceClientTimingTest
{
    private static final String SERVICE = "kv";
    private static final long MILLI = TimeUnit.MILLISECONDS.toNanos(1);

    private final TestEngines engines = new TestEngines();
    private final ManualClientThread thread = new ManualClientThread();
    private final StaticEndpointResolver resolver = new StaticEndpointResolver();
    /** How often the client asked the resolver to look again ({@link EndpointResolver.Watch#refresh()}). */
    private int refreshes;
    /** The failures the next openings meet, in order; an opening with none left succeeds. */
    private final Queue<RuntimeException> refusals = new ArrayDeque<>();
    /** Every opening tried, by uri. */
    private final List<String> tried = new ArrayList<>();
    private final List<FakeSession> opened = new ArrayList<>();
    private ServiceClient client;

    @AfterEach
    void close()
    {
        if (client != null)
        {
            client.close();
        }
        engines.close();
    }

    private ServiceClient client(final UnaryOperator<ServiceClient.Builder> settings)
    {
        final EndpointResolver counting = (service, listener) ->
        {
            final EndpointResolver.Watch watch = resolver.watch(service, listener);
            return new EndpointResolver.Watch()
            {
                @Override
                public void refresh()
                {
                    refreshes++;
                }

                @Override
                public void close()
                {
                    watch.close();
                }
            };
        };
        final ServiceClient.Builder builder = settings.apply(ServiceClient.builder(engines.start("unused"), counting,
            SERVICE));
        final Connector.Opener opener = (uri, options) ->
        {
            tried.add(uri);
            final RuntimeException refusal = refusals.poll();
            if (refusal != null)
            {
                return CompletableFuture.failedFuture(refusal);
            }
            final FakeSession session = new FakeSession(XioUri.parse(uri), options.listener());
            opened.add(session);
            return CompletableFuture.completedFuture(session);
        };
        client = new ServiceClientImpl(builder, new ServiceClientImpl.Environment(thread.clock, thread, opener,
            Set.of("tcp", "tls")::contains));
        return client;
    }

    private static Endpoint endpoint(final String id, final int port)
    {
        return Endpoint.of(id, "", List.of(XioUri.parse("tcp://10.0.0.1:" + port)));
    }

    private EndpointStatus status(final String id)
    {
        return client.endpoints().stream().filter(e -> e.endpoint().id().equals(id)).findFirst().orElseThrow();
    }

    /** Moves the fake clock on a millisecond at a time until the next opening is tried; returns how long it took. */
    private long untilNextOpening()
    {
        final int before = tried.size();
        long waited = 0;
        while (tried.size() == before)
        {
            assertThat(waited).as("no opening within a minute").isLessThan(TimeUnit.MINUTES.toNanos(1));
            thread.advance(MILLI);
            waited += MILLI;
        }
        return waited;
    }

    @Test
    void anEndpointThatCannotBeReachedIsTriedAgainOnABackoffThatGrowsAndTakesCallsOnceUp()
    {
        refusals.add(new ConnectionException("connection refused"));
        refusals.add(new ConnectionException("connection refused"));
        resolver.set(SERVICE, List.of(endpoint("a", 7000)));
        client(c -> c.retry(3, Backoff.of(Duration.ofMillis(100), Duration.ofSeconds(1))));
        assertThat(tried).hasSize(1);
        assertThat(status("a").state()).isEqualTo(EndpointStatus.State.UNREACHABLE);
        assertThat(status("a").lastFailure()).isEqualTo("tcp: connection refused");
        assertThat(client.pick(0)).isNull();

        // One failure in a row: a wait of 100-200 ms; two: 200-400 ms.
        assertThat(untilNextOpening()).isBetween(100 * MILLI, 200 * MILLI);
        assertThat(untilNextOpening()).isBetween(200 * MILLI, 400 * MILLI);
        assertThat(status("a").state()).isEqualTo(EndpointStatus.State.ACTIVE);
        assertThat(client.pick(0)).isSameAs(opened.get(0));
        assertThat(thread.advance(TimeUnit.MINUTES.toNanos(1))).as("nothing more to do").isZero();
        assertThat(tried).hasSize(3);
    }

    @Test
    void anEndpointIsNotTriedAgainSoonerThanFiftyMillisecondsHoweverShortItsBackoff()
    {
        refusals.add(new ConnectionException("connection refused"));
        resolver.set(SERVICE, List.of(endpoint("a", 7000)));
        client(c -> c.retry(3, Backoff.of(Duration.ofNanos(1), Duration.ofNanos(1))));
        assertThat(untilNextOpening()).isEqualTo(50 * MILLI);
    }

    @Test
    void aServerRefusingAsDrainingIsAskedAgainAfterASecondAndOneRefusingTheCredentialsAfterFifteen()
    {
        refusals.add(SessionRejectedException.draining("tcp://10.0.0.1:7000/kv", "draining"));
        refusals.add(new SessionRejectedException("tcp://10.0.0.1:7000/kv", "bad token", true));
        resolver.set(SERVICE, List.of(endpoint("a", 7000)));
        client(c -> c.retry(3, Backoff.of(Duration.ofMillis(1), Duration.ofMillis(1))));
        assertThat(untilNextOpening()).isEqualTo(TimeUnit.SECONDS.toNanos(1));
        assertThat(untilNextOpening()).isEqualTo(TimeUnit.SECONDS.toNanos(15));
        assertThat(status("a").state()).isEqualTo(EndpointStatus.State.ACTIVE);
    }

    @Test
    void aLostSessionIsOpenedAgainAndOneThatLivedFiveSecondsStartsTheBackoffAgain()
    {
        resolver.set(SERVICE, List.of(endpoint("a", 7000)));
        client(c -> c.retry(3, Backoff.of(Duration.ofMillis(100), Duration.ofSeconds(10))));
        assertThat(opened).hasSize(1);

        // Closed a second after it opened: one failure in a row, a wait of 100-200 ms.
        thread.advance(TimeUnit.SECONDS.toNanos(1));
        opened.get(0).lost("the connection dropped");
        assertThat(status("a").state()).isEqualTo(EndpointStatus.State.UNREACHABLE);
        assertThat(status("a").lastFailure()).isEqualTo("the connection dropped");
        assertThat(untilNextOpening()).isBetween(100 * MILLI, 200 * MILLI);
        assertThat(status("a").state()).isEqualTo(EndpointStatus.State.ACTIVE);

        // Closed after five seconds: it proved the endpoint, so the next wait is the first of the backoff again,
        // 50-100 ms (two failures in a row would wait 200-400 ms).
        thread.advance(TimeUnit.SECONDS.toNanos(5));
        opened.get(1).lost("the connection dropped");
        assertThat(untilNextOpening()).isBetween(50 * MILLI, 100 * MILLI);
    }

    @Test
    void anEndpointThatCannotBeReachedOrIsLostAsksTheResolverToLookAgainAndAHealthyOneDoesNot()
    {
        refusals.add(new ConnectionException("connection refused"));
        resolver.set(SERVICE, List.of(endpoint("a", 7000), endpoint("b", 7001)));
        client(c -> c.retry(3, Backoff.of(Duration.ofMillis(100), Duration.ofSeconds(1))));
        assertThat(refreshes).as("a could not be reached").isEqualTo(1);

        untilNextOpening();
        assertThat(status("a").state()).isEqualTo(EndpointStatus.State.ACTIVE);
        thread.advance(TimeUnit.SECONDS.toNanos(10));
        assertThat(refreshes).as("both up: nothing to ask").isEqualTo(1);

        opened.get(0).lost("the connection dropped");
        assertThat(refreshes).as("b's session lost").isEqualTo(2);
    }

    @Test
    void aSessionLosingAConnectionItTriesAgainAsksTheResolverToLookAgainAndOneBackDoesNot()
    {
        resolver.set(SERVICE, List.of(endpoint("a", 7000)));
        client(c -> c);
        thread.runDue();
        assertThat(refreshes).isZero();

        opened.get(0).reconnecting(false);
        assertThat(refreshes).as("a connection lost, the session reconnecting").isEqualTo(1);
        opened.get(0).reconnecting(true);
        assertThat(refreshes).as("back: nothing to ask").isEqualTo(1);
    }

    @Test
    void aCallerWaitingForASessionIsWokenOnTheClientsThreadNotOnTheThreadThatOpenedIt() throws Exception
    {
        refusals.add(new ConnectionException("connection refused"));
        resolver.set(SERVICE, List.of(endpoint("a", 7000)));
        client(c -> c);
        final CompletableFuture<Session> waiting = client.session(0);
        assertThat(waiting).isNotDone();

        // Another endpoint comes up on the resolver's thread (this one): the caller is woken only by the client's.
        resolver.set(SERVICE, List.of(endpoint("a", 7000), endpoint("b", 7001)));
        assertThat(client.pick(0)).isSameAs(opened.get(0));
        assertThat(waiting).isNotDone();
        thread.runDue();
        assertThat(waiting.get(0, TimeUnit.SECONDS)).isSameAs(opened.get(0));
    }

    @Test
    void anEndpointMissingFromAReportTakesCallsThroughTheGraceAndIsRetiredAfterIt()
    {
        resolver.set(SERVICE, List.of(endpoint("a", 7000), endpoint("b", 7001)));
        client(c -> c.removalGrace(Duration.ofSeconds(2)));
        final FakeSession a = opened.get(0);

        resolver.set(SERVICE, List.of(endpoint("b", 7001)));
        thread.advance(TimeUnit.SECONDS.toNanos(2) - 1);
        assertThat(status("a").state()).isEqualTo(EndpointStatus.State.ACTIVE);
        assertThat(picks()).contains(a);

        thread.advance(1);
        assertThat(picks()).doesNotContain(a);
        assertThat(a.goAwayReceived()).as("drained").isNotNull();
        // Listed while its session drains, then gone.
        assertThat(status("a").state()).isEqualTo(EndpointStatus.State.DRAINING);
        assertThat(status("a").lastFailure()).isEqualTo("no longer listed by the resolver");
        a.lost("drained");
        assertThat(client.endpoints()).extracting(e -> e.endpoint().id()).containsExactly("b");
    }

    @Test
    void anEndpointBackWithinTheGraceIsKeptAndItsNextGapHasAWholeGraceAgain()
    {
        resolver.set(SERVICE, List.of(endpoint("a", 7000), endpoint("b", 7001)));
        client(c -> c.removalGrace(Duration.ofSeconds(2)));
        final FakeSession a = opened.get(0);

        resolver.set(SERVICE, List.of(endpoint("b", 7001))); // at 0: the first gap
        thread.advance(TimeUnit.SECONDS.toNanos(1));
        resolver.set(SERVICE, List.of(endpoint("a", 7000), endpoint("b", 7001))); // at 1 s: back
        thread.advance(TimeUnit.MILLISECONDS.toNanos(500));
        resolver.set(SERVICE, List.of(endpoint("b", 7001))); // at 1.5 s: the second gap
        thread.advance(TimeUnit.MILLISECONDS.toNanos(500)); // at 2 s: the first gap's grace ends, not the second's
        assertThat(status("a").state()).isEqualTo(EndpointStatus.State.ACTIVE);
        assertThat(a.goAwayReceived()).isNull();

        thread.advance(TimeUnit.MILLISECONDS.toNanos(1_500)); // at 3.5 s
        assertThat(status("a").state()).isEqualTo(EndpointStatus.State.DRAINING);
        assertThat(a.goAwayReceived()).isNotNull();
        assertThat(opened).as("the same session throughout").hasSize(2);
    }

    @Test
    void withoutAGraceAnEndpointMissingFromAReportIsRetiredAtOnce()
    {
        resolver.set(SERVICE, List.of(endpoint("a", 7000), endpoint("b", 7001)));
        client(c -> c.removalGrace(Duration.ZERO));
        resolver.set(SERVICE, List.of(endpoint("b", 7001)));
        assertThat(status("a").state()).isEqualTo(EndpointStatus.State.DRAINING);
        assertThat(opened.get(0).goAwayReceived()).isNotNull();
    }

    @Test
    void aGoAwayWithPortalsMovesTheSessionAndTheOldOneDrainsUntilItCloses()
    {
        resolver.set(SERVICE, List.of(endpoint("a", 7000)));
        client(c -> c);
        final FakeSession before = opened.get(0);

        before.sentAway(GoAway.redirect(List.of(XioUri.parse("tcp://10.0.0.1:7100")), "moved"));
        assertThat(tried).containsExactly("tcp://10.0.0.1:7000/kv", "tcp://10.0.0.1:7100/kv");
        final FakeSession after = opened.get(1);
        assertThat(client.pick(0)).isSameAs(after);
        assertThat(client.endpoints()).extracting(EndpointStatus::state)
            .containsExactlyInAnyOrder(EndpointStatus.State.ACTIVE, EndpointStatus.State.DRAINING);
        before.lost("drained");
        assertThat(client.endpoints()).extracting(EndpointStatus::portal)
            .containsExactly(XioUri.parse("tcp://10.0.0.1:7100"));
        assertThat(thread.pending()).as("no reopen: the old session was replaced, not lost").isZero();
    }

    @Test
    void closingDropsTheTimersAndFailsTheCallersWaiting()
    {
        refusals.add(new ConnectionException("connection refused"));
        resolver.set(SERVICE, List.of(endpoint("a", 7000)));
        client(c -> c);
        final CompletableFuture<Session> waiting = client.session(0);
        assertThat(thread.pending()).as("the reopen's timer").isOne();

        client.close();
        assertThatThrownBy(() -> waiting.get(0, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(ConnectionException.class).hasMessage("service client of kv is closed");
        assertThat(thread.pending()).isZero();
        thread.advance(TimeUnit.MINUTES.toNanos(1));
        assertThat(tried).hasSize(1);
        assertThat(client.endpoints()).isEmpty();
    }

    /** The sessions a hundred picks land on. */
    private Set<Session> picks()
    {
        final Map<Long, Session> seen = new java.util.HashMap<>();
        for (int i = 0; i < 100; i++)
        {
            final Session session = client.pick(0);
            seen.put(session.id(), session);
        }
        return Set.copyOf(seen.values());
    }
}
