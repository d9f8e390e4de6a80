package io.xio.engine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.TestEngines.ECHO;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Engine-wide behaviour seen through the public API: coalescing, a busy loop, leaks, lifecycle events. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EngineBehaviourTest
{
    private final TestEngines engines = new TestEngines();

    @AfterEach
    void close()
    {
        engines.close();
    }

    @Test
    void smallFramesOfOneLoopTurnLeaveInOneWrite() throws Exception
    {
        final XioEngine server = engines.start("server");
        final CountDownLatch received = new CountDownLatch(1_000);
        server.register("sink", request ->
        {
            request.message().close();
            received.countDown();
        });
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final XioEngine client = engines.start(engines.builder("client").contexts(1));
        try (Session session = client.connect(portal.uri().withResource("sink").toString()))
        {
            final EngineStatistics before = client.statistics();
            final CompletableFuture<List<XioFuture<Void>>> sent = new CompletableFuture<>();
            // Issued from the context's own thread, all 1000 are encoded in one loop turn.
            client.contexts().get(0).execute(() ->
            {
                final List<XioFuture<Void>> futures = new ArrayList<>();
                for (int i = 0; i < 1_000; i++)
                {
                    futures.add(session.send(Outbound.of(utf8("m" + i))));
                }
                sent.complete(futures);
            });
            for (final XioFuture<Void> future : sent.get(5, TimeUnit.SECONDS))
            {
                future.get(5, TimeUnit.SECONDS);
            }
            assertThat(received.await(10, TimeUnit.SECONDS)).isTrue();
            final EngineStatistics after = client.statistics();
            final long frames = after.framesSent() - before.framesSent();
            final long writes = after.writes() - before.writes();
            assertThat(frames).isGreaterThanOrEqualTo(1_000);
            assertThat(writes).as("writes for %d frames", frames).isLessThan(frames / 20);
            assertThat(server.statistics().framesReceived()).isGreaterThanOrEqualTo(1_000);
        }
    }

    @Test
    void aLargeMessageStuckInTheSocketDoesNotBlockTheLoop() throws Exception
    {
        final XioEngine server = engines.start(engines.builder("server")
            .keepalive(Duration.ofMillis(200), Duration.ofSeconds(60)));
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch bigArrived = new CountDownLatch(1);
        server.register("stall", request ->
        {
            bigArrived.countDown();
            release.await(); // this portal's context stops reading: the client's write cannot finish
            ECHO.onRequest(request);
        });
        server.register("echo", ECHO);
        final Portal stalled = server.bind("tcp://127.0.0.1:0", PortalOptions.DEFAULT.withContext(0));
        final Portal healthy = server.bind("tcp://127.0.0.1:0", PortalOptions.DEFAULT.withContext(1));
        final XioEngine client = engines.start(engines.builder("client").contexts(1)
            .keepalive(Duration.ofMillis(200), Duration.ofSeconds(60)));
        try (Session stall = client.connect(stalled.uri().withResource("stall").toString());
             Session echo = client.connect(healthy.uri().withResource("echo").toString()))
        {
            stall.request(Outbound.of(utf8("first"))).handle((m, ex) -> m).thenAccept(m -> m.close());
            assertThat(bigArrived.await(5, TimeUnit.SECONDS)).isTrue();
            // Written into the link first: the socket takes part of it, the rest waits there.
            final ByteBuffer impatientData = ByteBuffer.allocateDirect(32 << 20);
            final XioFuture<Message> impatient = stall.request(Outbound.of(utf8("impatient"), impatientData),
                CallOptions.timeout(Duration.ofMillis(200)));
            final XioFuture<Message> big = stall.request(Outbound.of(utf8("big"),
                ByteBuffer.allocateDirect(64 << 20)), CallOptions.timeout(Duration.ofSeconds(30)));
            for (int i = 0; i < 200; i++)
            {
                echo.request(Outbound.of(utf8("small " + i))).get(5, TimeUnit.SECONDS).close();
            }
            assertThat(big).isNotDone();
            // Past its deadline, but the socket still holds its buffer: the caller is not given it back yet.
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !impatient.isDone());
            release.countDown();
            big.get(30, TimeUnit.SECONDS).close();
            assertThatThrownBy(() -> impatient.get(30, TimeUnit.SECONDS)).cause()
                .isInstanceOf(XioTimeoutException.class);
        }
        finally
        {
            release.countDown();
        }
    }

    @Test
    void portalsSessionsAndContextFiguresCanBeListedForMonitoring() throws Exception
    {
        final XioEngine server = engines.start("server");
        server.register("echo", ECHO);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final Portal other = server.bind("local://monitor-" + java.util.UUID.randomUUID());
        final XioEngine client = engines.start("client");
        final Session session = client.connect(portal.uri().withResource("echo").toString());
        session.request(Outbound.of(utf8("x"))).get(5, TimeUnit.SECONDS).close();
        assertThat(server.portals()).containsExactlyInAnyOrder(portal, other);
        assertThat(client.sessions()).containsExactly(session);
        assertThat(session.isServerSide()).isFalse();
        assertThat(server.sessions()).singleElement().satisfies(accepted ->
        {
            assertThat(accepted.isServerSide()).isTrue();
            assertThat(accepted.id()).isEqualTo(session.id());
            assertThat(accepted.resource()).isEqualTo("echo");
        });
        assertThat(server.contexts()).anySatisfy(context ->
            assertThat(context.statistics().framesReceived()).isPositive());
        // Both contexts mostly waited for work: idle time is counted (when the idle spell ends, so a request ends
        // one) and busy time is what remains. On a loaded machine a spell may be cut short: a few tries.
        for (int i = 0; i < 50 && server.statistics().idleNanos() <= TimeUnit.MILLISECONDS.toNanos(50); i++)
        {
            Thread.sleep(50);
            session.request(Outbound.of(utf8("y"))).get(5, TimeUnit.SECONDS).close();
        }
        assertThat(server.statistics()).satisfies(figures ->
        {
            assertThat(figures.idleNanos()).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(50));
            assertThat(figures.busyNanos()).isPositive();
        });
        other.close();
        session.close();
        assertThat(server.portals()).containsExactly(portal);
        assertThat(client.sessions()).isEmpty();
        await().atMost(Duration.ofSeconds(5)).until(() -> server.sessions().isEmpty());
    }

    @Test
    void leakDetectorNamesMessagesNeverReleased() throws Exception
    {
        final XioEngine server = XioEngine.builder().name("leaky").contexts(1).leakDetection(true).build();
        try
        {
            server.register("forget", request -> request.respond(Outbound.empty())); // never closes the message
            final Portal portal = server.bind("tcp://127.0.0.1:0");
            final XioEngine client = engines.start("client");
            try (Session session = client.connect(portal.uri().withResource("forget").toString()))
            {
                session.request(Outbound.of(utf8("x"))).get(5, TimeUnit.SECONDS).close();
            }
            assertThat(server.unreleasedMessages()).hasSize(1);
        }
        finally
        {
            assertThatThrownBy(server::close).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("1 received message(s) never released")
                .satisfies(ex -> assertThat(ex.getSuppressed()[0].getStackTrace())
                    .anySatisfy(frame -> assertThat(frame.getClassName()).contains("Lane")));
        }
    }

    @Test
    void lifecycleEventsReachBothSidesListeners() throws Exception
    {
        final List<SessionEvent> serverEvents = new CopyOnWriteArrayList<>();
        final List<SessionEvent> clientEvents = new CopyOnWriteArrayList<>();
        final XioEngine server = engines.start(engines.builder("server").sessionListener(serverEvents::add));
        server.register("kv", ECHO);
        final Portal portal = server.bind("tcp://127.0.0.1:0", request -> request.attributes().containsKey("ok")
            ? SetupDecision.accept() : SetupDecision.reject("say ok"));
        final XioEngine client = engines.start(engines.builder("client").sessionListener(clientEvents::add));
        final String uri = portal.uri().withResource("kv").toString();
        final Session session = client.connect(uri, SessionOptions.DEFAULT.withAttributes(java.util.Map.of("ok", "1")));
        assertThatThrownBy(() -> client.connect(uri)).isInstanceOf(SessionRejectedException.class);
        session.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.stream()
            .anyMatch(e -> e.type() == SessionEvent.Type.CLOSED));
        assertThat(clientEvents).extracting(SessionEvent::type).containsExactly(
            SessionEvent.Type.ESTABLISHED, SessionEvent.Type.REFUSED, SessionEvent.Type.CLOSED);
        assertThat(clientEvents.get(1).cause()).isInstanceOf(SessionRejectedException.class)
            .hasMessageContaining("say ok");
        assertThat(serverEvents).extracting(SessionEvent::type).containsExactly(
            SessionEvent.Type.ESTABLISHED, SessionEvent.Type.CLOSED);
        assertThat(serverEvents.get(0).session().id()).isEqualTo(session.id());
    }
}
