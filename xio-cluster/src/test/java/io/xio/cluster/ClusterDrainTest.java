package io.xio.cluster;

import io.xio.engine.CallOptions;
import io.xio.engine.GoAway;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Servers of one service drained and restarted one after another, and a session moved live, while a client keeps
 * calling: through the public API, real engines over tcp. Calls are not idempotent and carry unique ids that every
 * server counts, so a call run twice or lost shows.
 */
class ClusterDrainTest
{
    private static final String SERVICE = "orders";
    private final TestEngines engines = new TestEngines();
    private final StaticEndpointResolver resolver = new StaticEndpointResolver();
    /** Executions per call id, over every server. */
    private final Map<String, AtomicInteger> executed = new ConcurrentHashMap<>();
    private final AtomicLong generation = new AtomicLong();
    private ServiceClient client;
    private ExecutorService load;

    @AfterEach
    void close() throws InterruptedException
    {
        if (load != null)
        {
            load.shutdownNow();
            load.awaitTermination(10, TimeUnit.SECONDS);
        }
        if (client != null)
        {
            client.close();
        }
        engines.close();
    }

    /** A server instance: an engine whose handler counts each call id, registered in the resolver. */
    private final class Server
    {
        final String id = "server-" + generation.incrementAndGet();
        final XioEngine engine = engines.start(id);
        final Portal portal;
        final EndpointRegistry.Registration registration;

        Server()
        {
            engine.register(SERVICE, request ->
            {
                final String callId = text(request.message().header());
                request.message().close();
                executed.computeIfAbsent(callId, k -> new AtomicInteger()).incrementAndGet();
                // Answer a little later, from another thread, so calls are in flight when the drain starts.
                java.util.concurrent.CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS).execute(() ->
                    request.respond(Outbound.of(utf8(id))));
            });
            portal = engine.bind("tcp://127.0.0.1:0");
            registration = resolver.register(SERVICE, Endpoint.of(id, "", List.of(portal.uri())));
        }

        /** Deregisters, drains and stops, as a graceful shutdown does. */
        void stop() throws Exception
        {
            registration.close();
            engine.drain(List.of(), TestEngines.scaled(Duration.ofSeconds(10))).get(30, TimeUnit.SECONDS);
            assertThat(engine.sessions()).as("every session of %s closed by its client", id)
                .noneMatch(Session::isServerSide);
            engine.close();
        }
    }

    /** Outcomes of the load: calls answered, failed, and which ids were answered. */
    private static final class Tally
    {
        final AtomicLong ok = new AtomicLong();
        final List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        final List<String> answered = java.util.Collections.synchronizedList(new ArrayList<>());
    }

    private List<Future<?>> startLoad(final int threads, final AtomicBoolean running, final Tally tally)
    {
        load = Executors.newFixedThreadPool(threads);
        final List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++)
        {
            final int thread = t;
            workers.add(load.submit(() ->
            {
                long sequence = 0;
                while (running.get())
                {
                    final String callId = "t" + thread + "-" + sequence++;
                    try (Message response = client.request(Outbound.of(utf8(callId)),
                        CallOptions.timeout(TestEngines.scaled(Duration.ofSeconds(10)))).get(60, TimeUnit.SECONDS))
                    {
                        tally.ok.incrementAndGet();
                        tally.answered.add(callId);
                    }
                    catch (final java.util.concurrent.ExecutionException ex)
                    {
                        tally.failures.add(ex.getCause());
                    }
                    catch (final Exception ex)
                    {
                        tally.failures.add(ex);
                        return;
                    }
                }
            }));
        }
        return workers;
    }

    private void awaitActive(final int count)
    {
        await().atMost(Duration.ofSeconds(20)).until(() -> client.endpoints().stream()
            .filter(e -> e.state() == EndpointStatus.State.ACTIVE).count() == count);
    }

    private void awaitCalls(final Tally tally, final long more)
    {
        final long target = tally.ok.get() + more;
        await().atMost(Duration.ofSeconds(30)).until(() -> tally.ok.get() >= target || !tally.failures.isEmpty());
    }

    @Test
    void aRollingRestartOfEveryServerUnderLoadFailsNoCallAndRunsEachOnce() throws Exception
    {
        final List<Server> servers = new ArrayList<>(List.of(new Server(), new Server(), new Server()));
        client = ServiceClient.builder(engines.start("client"), resolver, SERVICE)
            .balancer(LoadBalancer.leastInFlight())
            .sessionOptions(SessionOptions.DEFAULT.withTimeout(TestEngines.scaled(Duration.ofSeconds(10)))).build();
        awaitActive(3);
        final AtomicBoolean running = new AtomicBoolean(true);
        final Tally tally = new Tally();
        final List<Future<?>> workers = startLoad(4, running, tally);
        awaitCalls(tally, 200);

        for (int i = 0; i < 3; i++)
        {
            final Server old = servers.remove(0);
            old.stop(); // under load: its sessions finish what they have, new calls go to the others
            awaitCalls(tally, 100);
            servers.add(new Server()); // restarted, under a new id as a new process registers
            awaitActive(3);
            awaitCalls(tally, 100);
        }
        running.set(false);
        for (final Future<?> worker : workers)
        {
            worker.get(60, TimeUnit.SECONDS);
        }

        assertThat(tally.failures).as("failed calls").isEmpty();
        assertThat(tally.answered).hasSize((int)tally.ok.get()).doesNotHaveDuplicates();
        for (final String callId : tally.answered)
        {
            assertThat(executed.get(callId)).as("executions of %s", callId).hasValue(1);
        }
        assertThat(executed).as("calls run but never answered: none is lost").hasSize(tally.answered.size());
        assertThat(client.endpoints()).extracting(e -> e.endpoint().id())
            .containsExactlyInAnyOrderElementsOf(servers.stream().map(s -> s.id).toList());
    }

    @Test
    void aLiveSessionMovedToAnotherServerFailsNoCall() throws Exception
    {
        final Server from = new Server();
        final Server to = new Server();
        resolver.set(SERVICE, List.of(resolver.endpoints(SERVICE).get(0))); // the client knows only the first
        client = ServiceClient.builder(engines.start("client"), resolver, SERVICE)
            .sessionOptions(SessionOptions.DEFAULT.withTimeout(TestEngines.scaled(Duration.ofSeconds(10)))).build();
        awaitActive(1);
        final AtomicBoolean running = new AtomicBoolean(true);
        final Tally tally = new Tally();
        final List<Future<?>> workers = startLoad(2, running, tally);
        awaitCalls(tally, 100);

        // The resource moves: the server asks the session to re-open at the other node.
        final Session moving = from.engine.sessions().stream().filter(Session::isServerSide).findFirst()
            .orElseThrow();
        moving.goAway(GoAway.redirect(List.of(to.portal.uri()), "resource moved"));
        await().atMost(Duration.ofSeconds(20)).until(() -> from.engine.sessions().stream()
            .noneMatch(Session::isServerSide));
        final long servedBefore = tally.ok.get();
        awaitCalls(tally, 100);
        running.set(false);
        for (final Future<?> worker : workers)
        {
            worker.get(60, TimeUnit.SECONDS);
        }

        assertThat(tally.failures).as("failed calls").isEmpty();
        assertThat(tally.ok.get()).isGreaterThan(servedBefore);
        assertThat(client.endpoints()).singleElement().satisfies(e ->
            assertThat(e.portal().endpoint()).isEqualTo(to.portal.uri().endpoint()));
        for (final String callId : tally.answered)
        {
            assertThat(executed.get(callId)).as("executions of %s", callId).hasValue(1);
        }
        try (Message response = client.request(Outbound.of(utf8("last")), CallOptions.DEFAULT).get(20,
            TimeUnit.SECONDS))
        {
            assertThat(text(response.header())).isEqualTo(to.id);
        }
    }
}
