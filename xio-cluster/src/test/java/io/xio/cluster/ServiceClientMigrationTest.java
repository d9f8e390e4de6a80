package io.xio.cluster;

import io.xio.engine.CallOptions;
import io.xio.engine.GoAway;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioUri;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A client's endpoints while their sessions move or reconnect: a GOAWAY migration that fails, or comes up slowly,
 * leaves the endpoint usable and no second session on the old server; with leastInFlight, an endpoint whose session
 * is reconnecting does not stall calls another endpoint can take.
 */
class ServiceClientMigrationTest
{
    private static final String SERVICE = "kv";
    private final TestEngines engines = new TestEngines();
    private final List<Socket> held = new CopyOnWriteArrayList<>();
    private ServerSocket blackHole;
    private ServiceClient client;

    @AfterEach
    void close() throws Exception
    {
        if (client != null)
        {
            client.close();
        }
        engines.close();
        if (blackHole != null)
        {
            blackHole.close();
        }
        for (final Socket socket : held)
        {
            socket.close();
        }
    }

    /**
     * A GOAWAY with portals on an idle session: the old session closes at once (nothing in flight), its CLOSED event
     * finds migrateTo already cleared by open() and schedules a reopen of the endpoint's own portals 50 ms later,
     * while the migration's opening is still under way. Here the migration target never answers the handshake: the
     * reopen to the endpoint succeeds, then the migration's failure marks the member UNREACHABLE over its healthy
     * session, and no reopen follows (the session is open): the endpoint never takes calls again.
     */
    @Test
    void aMigrationOutlastedByTheOldSessionLeavesTheEndpointUsable() throws Exception
    {
        final XioEngine server = engines.start("a");
        server.register(SERVICE, request ->
        {
            request.message().close();
            request.respond(Outbound.of(utf8("a")));
        });
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        blackHole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final Thread acceptor = new Thread(() ->
        {
            try
            {
                while (!blackHole.isClosed())
                {
                    held.add(blackHole.accept()); // accepts, never answers the handshake
                }
            }
            catch (final Exception ignored)
            {
                // closed
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();

        final StaticEndpointResolver resolver = StaticEndpointResolver.of(SERVICE,
            List.of(Endpoint.of("a", "", List.of(portal.uri()))));
        client = ServiceClient.builder(engines.start("client"), resolver, SERVICE).build();
        await().atMost(Duration.ofSeconds(20)).until(() -> client.pick(0) != null);
        try (Message m = client.request(Outbound.of(utf8("x")), CallOptions.DEFAULT).get(10, TimeUnit.SECONDS))
        {
            assertThat(text(m.header())).isEqualTo("a");
        }

        final Session moving = server.sessions().stream().filter(Session::isServerSide).findFirst().orElseThrow();
        moving.goAway(GoAway.redirect(List.of(XioUri.parse("tcp://127.0.0.1:" + blackHole.getLocalPort())),
            "resource moving"));
        // The migration's opening fails after the client's connect timeout (3 s, scaled); the member is usable after.
        await().atMost(TestEngines.scaled(Duration.ofSeconds(3)).plusSeconds(15)).untilAsserted(() ->
            assertThat(client.endpoints()).singleElement().satisfies(e ->
                assertThat(e.state()).as("state of a member whose session is open: %s", e)
                    .isEqualTo(EndpointStatus.State.ACTIVE)));
        try (Message m = client.request(Outbound.of(utf8("y")), CallOptions.timeout(Duration.ofSeconds(5)))
            .get(10, TimeUnit.SECONDS))
        {
            assertThat(text(m.header())).isEqualTo("a");
        }
    }
    /** A tcp forwarder to {@code target} that can be cut: its connections closed, its port refusing from then on. */
    private final class Cuttable implements AutoCloseable
    {
        final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private boolean cut;

        Cuttable(final int target) throws java.io.IOException
        {
            this(target, 0);
        }

        /** Each connection is forwarded only {@code delayMillis} after it was accepted (a slow path). */
        Cuttable(final int target, final long delayMillis) throws java.io.IOException
        {
            final Thread accept = new Thread(() ->
            {
                try
                {
                    while (true)
                    {
                        final Socket in = listener.accept();
                        Thread.sleep(delayMillis);
                        final Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
                        synchronized (sockets)
                        {
                            if (cut)
                            {
                                // accepted before the cut, forwarded after it: it must not outlive the cut
                                close(in);
                                close(out);
                                return;
                            }
                            sockets.add(in);
                            sockets.add(out);
                        }
                        pump(in, out);
                        pump(out, in);
                    }
                }
                catch (final Exception ignored)
                {
                    // cut
                }
            });
            accept.setDaemon(true);
            accept.start();
        }

        private void pump(final Socket from, final Socket to)
        {
            final Thread thread = new Thread(() ->
            {
                try
                {
                    from.getInputStream().transferTo(to.getOutputStream());
                }
                catch (final Exception ignored)
                {
                    // cut
                }
                close(from);
                close(to);
            });
            thread.setDaemon(true);
            thread.start();
        }

        private void close(final Socket socket)
        {
            try
            {
                socket.close();
            }
            catch (final Exception ignored)
            {
                // closing anyway
            }
        }

        int port()
        {
            return listener.getLocalPort();
        }

        @Override
        public void close() throws java.io.IOException
        {
            synchronized (sockets)
            {
                cut = true;
            }
            listener.close();
            sockets.forEach(this::close);
        }
    }

    /**
     * leastInFlight over two endpoints, one of whose sessions lost its connection and is reconnecting (a server
     * killed, a network cut): that one has the fewest calls in flight, so the balancer returns it on every one of
     * pick's 8 tries, pick passes it over each time (no connection up) and returns null; the call waits for a
     * publish that only the reconnect's end brings (up to the reconnect timeout), and fails at its deadline although
     * the other endpoint is up.
     */
    @Test
    void withLeastInFlightAReconnectingEndpointDoesNotStallCallsTheOtherCanTake() throws Exception
    {
        final List<CompletableFuture<Void>> holds = new CopyOnWriteArrayList<>();
        final java.util.Map<String, AtomicInteger> heldBy = new java.util.concurrent.ConcurrentHashMap<>();
        final List<Cuttable> proxies = new java.util.ArrayList<>();
        final List<Endpoint> endpoints = new java.util.ArrayList<>();
        for (final String name : List.of("a", "b"))
        {
            final XioEngine server = engines.start(name);
            server.register(SERVICE, request ->
            {
                final boolean hold = "hold".equals(text(request.message().header()));
                request.message().close();
                if (hold)
                {
                    heldBy.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
                    final CompletableFuture<Void> release = new CompletableFuture<>();
                    holds.add(release);
                    release.thenRun(() -> request.respond(Outbound.of(utf8(name))));
                    return;
                }
                request.respond(Outbound.of(utf8(name)));
            });
            final Portal portal = server.bind("tcp://127.0.0.1:0");
            final Cuttable proxy = new Cuttable(portal.uri().port());
            proxies.add(proxy);
            endpoints.add(Endpoint.of(name, "", List.of(XioUri.parse("tcp://127.0.0.1:" + proxy.port()))));
        }
        final XioEngine clientEngine = engines.start("client");
        client = ServiceClient.builder(clientEngine, StaticEndpointResolver.of(SERVICE, endpoints), SERVICE)
            .balancer(LoadBalancer.leastInFlight()).build();
        await().atMost(Duration.ofSeconds(20)).until(() -> client.endpoints().stream()
            .filter(e -> e.state() == EndpointStatus.State.ACTIVE).count() == 2);

        // One call held on one server; cut the other one's connection.
        final CompletableFuture<Message> held = client.request(Outbound.of(utf8("hold")),
            CallOptions.timeout(Duration.ofSeconds(60)), 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> !heldBy.isEmpty());
        final String holding = heldBy.keySet().iterator().next();
        final int cut = holding.equals("a") ? 1 : 0;
        proxies.get(cut).close();
        final int cutPort = proxies.get(cut).port();
        final Session cutSession = clientEngine.sessions().stream().filter(s -> s.uri().port() == cutPort)
            .findFirst().orElseThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> cutSession.connectionCount() == 0);
        assertThat(cutSession.isOpen()).as("reconnecting, not closed").isTrue();

        try (Message m = client.request(Outbound.of(utf8("x")), CallOptions.timeout(Duration.ofSeconds(3)), 0)
            .get(10, TimeUnit.SECONDS))
        {
            assertThat(text(m.header())).isEqualTo(holding);
        }
        finally
        {
            holds.forEach(h -> h.complete(null));
            held.get(10, TimeUnit.SECONDS).close();
        }
    }
    /**
     * As above, but the migration target answers, slowly (1 s): the endpoint's reopen (50 ms after the idle old
     * session closed) opens a second session to the old server first; when the migration's session comes up, that
     * second session is filed as "leaving" (DRAINING) although nothing told it to go away: it stays open on the old
     * server until the client closes.
     */
    @Test
    void aSlowMigrationLeavesNoSecondSessionOpenOnTheOldServer() throws Exception
    {
        final XioEngine from = engines.start("a");
        final XioEngine to = engines.start("b");
        for (final XioEngine server : List.of(from, to))
        {
            server.register(SERVICE, request ->
            {
                request.message().close();
                request.respond(Outbound.of(utf8(server == from ? "a" : "b")));
            });
        }
        final Portal fromPortal = from.bind("tcp://127.0.0.1:0");
        final Portal toPortal = to.bind("tcp://127.0.0.1:0");
        final Cuttable slow = new Cuttable(toPortal.uri().port(), 1_000);
        try
        {
            client = ServiceClient.builder(engines.start("client"), StaticEndpointResolver.of(SERVICE,
                List.of(Endpoint.of("a", "", List.of(fromPortal.uri())))), SERVICE).build();
            await().atMost(Duration.ofSeconds(20)).until(() -> client.pick(0) != null);
            final Session moving = from.sessions().stream().filter(Session::isServerSide).findFirst().orElseThrow();
            moving.goAway(GoAway.redirect(List.of(XioUri.parse("tcp://127.0.0.1:" + slow.port())), "moved"));
            await().atMost(Duration.ofSeconds(20)).until(() -> to.sessions().stream().anyMatch(Session::isServerSide));
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
            {
                assertThat(from.sessions()).as("sessions left on the server the session moved from")
                    .noneMatch(Session::isServerSide);
                assertThat(client.endpoints()).as("the client's endpoints").hasSize(1);
            });
        }
        finally
        {
            slow.close();
        }
    }
}
