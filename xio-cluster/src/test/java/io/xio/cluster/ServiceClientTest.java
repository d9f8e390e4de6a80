package io.xio.cluster;

import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.IdempotencyKeys;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.RequestHandler;
import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.XioUri;
import io.xio.engine.support.Backoff;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** A client over several servers of one service, through the public API: real engines over tcp, local and shm. */
class ServiceClientTest
{
    private static final String SERVICE = "kv";
    private final TestEngines engines = new TestEngines();
    private final List<ServiceClient> clients = new ArrayList<>();

    @AfterEach
    void close()
    {
        clients.forEach(ServiceClient::close);
        engines.close();
    }

    /** One server: an engine with a tcp portal whose handler counts and answers with the server's name. */
    private final class Server
    {
        final String name;
        final XioEngine engine;
        final AtomicInteger served = new AtomicInteger();
        final List<Portal> portals = new ArrayList<>();

        Server(final String name, final RequestHandler inner)
        {
            this.name = name;
            this.engine = engines.start(name);
            engine.register(SERVICE, request ->
            {
                served.incrementAndGet();
                if (inner != null)
                {
                    inner.onRequest(request);
                    return;
                }
                request.message().close();
                request.respond(Outbound.of(utf8(name)));
            });
            portals.add(engine.bind("tcp://127.0.0.1:0"));
        }

        Server(final String name)
        {
            this(name, null);
        }

        Server withPortal(final String uri)
        {
            portals.add(engine.bind(uri));
            return this;
        }

        Endpoint endpoint(final String host)
        {
            return Endpoint.of(name, host, portals.stream().map(Portal::uri).toList());
        }
    }

    private ServiceClient client(final XioEngine engine, final EndpointResolver resolver,
        final java.util.function.UnaryOperator<ServiceClient.Builder> settings)
    {
        final ServiceClient client = settings.apply(ServiceClient.builder(engine, resolver, SERVICE)
            .sessionOptions(SessionOptions.DEFAULT.withTimeout(TestEngines.scaled(Duration.ofSeconds(5))))).build();
        clients.add(client);
        return client;
    }

    private static String call(final ServiceClient client, final CallOptions options, final long key)
        throws Exception
    {
        try (Message response = client.request(Outbound.of(utf8("hi")), options, key).get(20, TimeUnit.SECONDS))
        {
            return text(response.header());
        }
    }

    private static void awaitActive(final ServiceClient client, final int count)
    {
        await().atMost(Duration.ofSeconds(20)).until(() -> client.endpoints().stream()
            .filter(e -> e.state() == EndpointStatus.State.ACTIVE).count() == count);
    }

    @Test
    void callsSpreadOverEveryEndpointAndFollowMembership() throws Exception
    {
        final Server a = new Server("a");
        final Server b = new Server("b");
        final StaticEndpointResolver resolver = StaticEndpointResolver.of(SERVICE,
            List.of(a.endpoint("elsewhere"), b.endpoint("elsewhere")));
        final ServiceClient client = client(engines.start("client"), resolver,
            c -> c.removalGrace(Duration.ofMillis(100)));
        awaitActive(client, 2);

        for (int i = 0; i < 100; i++)
        {
            call(client, CallOptions.DEFAULT, 0);
        }
        assertThat(a.served.get()).isEqualTo(50);
        assertThat(b.served.get()).isEqualTo(50);

        // A third server joins: it takes a share of new calls once its session is up.
        final Server c = new Server("c");
        resolver.set(SERVICE, List.of(a.endpoint("elsewhere"), b.endpoint("elsewhere"), c.endpoint("elsewhere")));
        awaitActive(client, 3);
        for (int i = 0; i < 90; i++)
        {
            call(client, CallOptions.DEFAULT, 0);
        }
        assertThat(c.served.get()).isEqualTo(30);

        // One leaves the resolver's list: after the grace it takes no new calls, and its session is closed.
        resolver.set(SERVICE, List.of(b.endpoint("elsewhere"), c.endpoint("elsewhere")));
        await().atMost(Duration.ofSeconds(10)).until(() -> a.engine.sessions().isEmpty());
        final int servedByA = a.served.get();
        for (int i = 0; i < 20; i++)
        {
            call(client, CallOptions.DEFAULT, 0);
        }
        assertThat(a.served.get()).isEqualTo(servedByA);
        assertThat(client.endpoints()).extracting(e -> e.endpoint().id()).containsExactly("b", "c");
    }

    @Test
    void anEndpointMissingFromOneReportKeepsItsSessionThroughTheGraceAndIsRetiredAfterIt() throws Exception
    {
        final Server a = new Server("a");
        final Server b = new Server("b");
        final StaticEndpointResolver resolver = StaticEndpointResolver.of(SERVICE, List.of(a.endpoint(""),
            b.endpoint("")));
        final ServiceClient client = client(engines.start("client"), resolver,
            c -> c.removalGrace(Duration.ofSeconds(3)));
        awaitActive(client, 2);
        final Session first = a.engine.sessions().get(0);

        // A resolver's gap (a ZooKeeper outage rebuilt): both vanish from one report and come back.
        resolver.set(SERVICE, List.of());
        for (int i = 0; i < 10; i++)
        {
            call(client, CallOptions.DEFAULT, 0); // still served meanwhile
        }
        resolver.set(SERVICE, List.of(a.endpoint(""), b.endpoint("")));
        // Past the grace nothing was retired: the session stays the same throughout.
        await().during(Duration.ofMillis(3_500)).atMost(Duration.ofSeconds(10)).untilAsserted(() ->
            assertThat(a.engine.sessions()).containsExactly(first));
        assertThat(a.served.get() + b.served.get()).isEqualTo(10);

        // Gone for longer than the grace: retired and closed.
        resolver.set(SERVICE, List.of(b.endpoint("")));
        await().atMost(Duration.ofSeconds(10)).until(() -> a.engine.sessions().isEmpty());
        assertThat(client.endpoints()).extracting(e -> e.endpoint().id()).containsExactly("b");
    }

    @Test
    void transportIsChosenByLocalityWithTheReasonShown() throws Exception
    {
        final String name = "svc-" + UUID.randomUUID().toString().substring(0, 8);
        final Server near = new Server("near").withPortal("local://" + name);
        final Server shm = new Server("shm").withPortal("shm://" + name);
        final Server far = new Server("far").withPortal("local://" + name + "-far");
        final XioEngine engine = engines.start("client");
        final ServiceClient client = client(engine, StaticEndpointResolver.of(SERVICE,
            List.of(near.endpoint("this-host"), shm.endpoint("this-host"), far.endpoint("another-host"))),
            c -> c.localHost("this-host"));
        awaitActive(client, 3);

        final java.util.Map<String, EndpointStatus> byId = new java.util.HashMap<>();
        client.endpoints().forEach(e -> byId.put(e.endpoint().id(), e));
        assertThat(byId.get("near").transport()).isEqualTo("local");
        assertThat(byId.get("near").reason()).isEqualTo("same host");
        assertThat(byId.get("shm").transport()).isEqualTo("shm");
        assertThat(byId.get("shm").reason()).isEqualTo("same host");
        assertThat(byId.get("far").transport()).isEqualTo("tcp");
        assertThat(byId.get("far").reason()).isEqualTo("network (passed over: local: another host)");
        for (int i = 0; i < 30; i++)
        {
            call(client, CallOptions.DEFAULT, 0);
        }
        assertThat(List.of(near.served.get(), shm.served.get(), far.served.get())).containsOnly(10);
    }

    @Test
    void aSameHostPortalThatCannotBeReachedFallsBackToTheNetworkSayingWhy() throws Exception
    {
        final Server server = new Server("s");
        final Endpoint listed = new Endpoint("s", "this-host", List.of(server.portals.get(0).uri(),
            XioUri.parse("shm://no-such-portal-" + UUID.randomUUID())), java.util.Map.of());
        final ServiceClient client = client(engines.start("client"), StaticEndpointResolver.of(SERVICE,
            List.of(listed)), c -> c.localHost("this-host"));
        awaitActive(client, 1);
        final EndpointStatus status = client.endpoints().get(0);
        assertThat(status.transport()).isEqualTo("tcp");
        assertThat(status.reason()).startsWith("network (passed over: shm: ");
        assertThat(call(client, CallOptions.DEFAULT, 0)).isEqualTo("s");
    }

    @Test
    void theTransportPreferenceCanBeOverridden() throws Exception
    {
        final String name = "svc-" + UUID.randomUUID().toString().substring(0, 8);
        final Server server = new Server("s").withPortal("local://" + name);
        final ServiceClient client = client(engines.start("client"), StaticEndpointResolver.of(SERVICE,
            List.of(server.endpoint("this-host"))), c -> c.localHost("this-host").transports(List.of("tcp")));
        awaitActive(client, 1);
        assertThat(client.endpoints().get(0).transport()).isEqualTo("tcp");
        assertThatThrownBy(() -> ServiceClient.builder(engines.start("x"), new StaticEndpointResolver(), SERVICE)
            .transports(List.of("tcp", "tcp"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void equalKeysLandOnOneEndpointWithTheRendezvousPolicy() throws Exception
    {
        final Server a = new Server("a");
        final Server b = new Server("b");
        final Server c = new Server("c");
        final ServiceClient client = client(engines.start("client"), StaticEndpointResolver.of(SERVICE,
            List.of(a.endpoint(""), b.endpoint(""), c.endpoint(""))), s -> s.balancer(LoadBalancer.rendezvous()));
        awaitActive(client, 3);
        for (long key = 1; key <= 30; key++)
        {
            final String first = call(client, CallOptions.DEFAULT, key);
            assertThat(call(client, CallOptions.DEFAULT, key)).isEqualTo(first);
        }
        assertThat(List.of(a.served.get(), b.served.get(), c.served.get())).allSatisfy(n -> assertThat(n).isPositive());
    }

    @Test
    void anIdempotentCallWhoseServerWasKilledIsRetriedOnAnotherAtOnceAndOneThatIsNotFailsClearly() throws Exception
    {
        final CountDownLatch arrived = new CountDownLatch(2);
        final RequestHandler stall = request ->
        {
            arrived.countDown(); // never answers: the server dies with the calls in flight
            request.message().close();
        };
        final Server dying = new Server("dying", stall);
        final Server healthy = new Server("healthy");
        // The client would wait long for a re-attach: the idempotent call must not spend its deadline waiting.
        final ServiceClient client = client(engines.start(engines.builder("client")
            .reconnectTimeout(Duration.ofSeconds(60))), StaticEndpointResolver.of(SERVICE,
            List.of(dying.endpoint(""), healthy.endpoint(""))), c -> c.balancer(LoadBalancer.rendezvous()));
        awaitActive(client, 2);
        final long key = keyOwnedBy(client, "dying");
        final CallOptions options = CallOptions.timeout(TestEngines.scaled(Duration.ofSeconds(5)));
        final CompletableFuture<Message> idempotent = client.request(Outbound.of(utf8("read")),
            options.withIdempotent(true), key);
        final CompletableFuture<Message> write = client.request(Outbound.of(utf8("write")), options, key);
        assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
        // As a killed process: its connections drop without a CLOSE, and nothing answers there any more.
        dying.portals.forEach(Portal::close);
        dying.engine.sessions().stream().filter(Session::isServerSide).forEach(Session::abortConnections);

        try (Message response = idempotent.get(30, TimeUnit.SECONDS))
        {
            assertThat(text(response.header())).isEqualTo("healthy");
        }
        assertThatThrownBy(() -> write.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(ConnectionException.class);
        assertThat(healthy.served.get()).isEqualTo(1); // the write was not run again anywhere
    }

    @Test
    void anExactlyOnceCallWhoseServerWasKilledIsRetriedOnAnotherWithItsKeyAndAPlainOneMayHaveRun() throws Exception
    {
        final BlockingQueue<List<String>> arrivals = new LinkedBlockingQueue<>();
        final CountDownLatch arrived = new CountDownLatch(2);
        final Server dying = new Server("dying", request ->
        {
            arrivals.add(identity(request.metadata()));
            arrived.countDown(); // never answers: the server dies with the calls in flight
            request.message().close();
        });
        final Server healthy = new Server("healthy", request ->
        {
            arrivals.add(identity(request.metadata()));
            request.message().close();
            request.respond(Outbound.of(utf8("healthy")));
        });
        final ServiceClient client = client(engines.start(engines.builder("client")
            .reconnectTimeout(Duration.ofSeconds(60))), StaticEndpointResolver.of(SERVICE,
            List.of(dying.endpoint(""), healthy.endpoint(""))), c -> c.balancer(LoadBalancer.rendezvous()));
        awaitActive(client, 2);
        final long key = keyOwnedBy(client, "dying");
        final CallOptions options = CallOptions.timeout(TestEngines.scaled(Duration.ofSeconds(5)));
        final CompletableFuture<Message> transfer = client.request(Outbound.of(utf8("transfer")),
            options.withExactlyOnce(true), key);
        final List<String> first = arrivals.poll(10, TimeUnit.SECONDS);
        final CompletableFuture<Message> write = client.request(Outbound.of(utf8("write")), options, key);
        assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(arrivals.poll(10, TimeUnit.SECONDS)).as("the plain call").containsOnlyNulls();
        dying.portals.forEach(Portal::close);
        dying.engine.sessions().stream().filter(Session::isServerSide).forEach(Session::abortConnections);

        try (Message response = transfer.get(30, TimeUnit.SECONDS))
        {
            assertThat(text(response.header())).isEqualTo("healthy");
        }
        assertThat(first.get(1)).as("the first attempt of a key made for it").isNull();
        assertThat(arrivals.poll(10, TimeUnit.SECONDS)).as("the same call, one attempt before it")
            .containsExactly(IdempotencyKeys.check(first.get(0)), "1");
        assertThatThrownBy(() -> write.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(ConnectionException.class)
            .satisfies(ex -> assertThat(((ConnectionException)ex).mayHaveRun()).as("it was written").isTrue());
        assertThat(healthy.served.get()).isEqualTo(1); // the write was not run again anywhere
    }

    @Test
    void anExactlyOnceCallToTheOnlyEndpointCarriesAKeyMadeForItAndAnInvalidKeyFailsItsFuture() throws Exception
    {
        final BlockingQueue<List<String>> arrivals = new LinkedBlockingQueue<>();
        final Server only = new Server("only", request ->
        {
            arrivals.add(identity(request.metadata()));
            request.message().close();
            request.respond(Outbound.of(utf8("only")));
        });
        final ServiceClient client = client(engines.start("client"), StaticEndpointResolver.of(SERVICE,
            List.of(only.endpoint(""))), c -> c);
        awaitActive(client, 1);

        assertThat(call(client, CallOptions.DEFAULT.withExactlyOnce(true), 0)).isEqualTo("only");
        final List<String> identity = arrivals.poll(10, TimeUnit.SECONDS);
        assertThat(identity.get(0)).as("a key, though the call waits for its session's re-attach").isNotNull();
        assertThat(IdempotencyKeys.check(identity.get(0))).isNotEmpty();
        assertThat(identity.get(1)).isNull();
        final CompletableFuture<Message> invalid = client.request(Outbound.of(utf8("x")).metadata(new Metadata()
            .add(IdempotencyKeys.METADATA_KEY, "order 42")), CallOptions.DEFAULT.withExactlyOnce(true), 0);
        assertThatThrownBy(() -> invalid.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(IllegalArgumentException.class).hasMessageContaining("idempotency key");
        assertThat(arrivals).isEmpty();
    }

    @Test
    void anExactlyOnceCallItsServerHoldsPastTheDeadlineTimesOutSayingItMayHaveRunAndResumesWithItsKey()
        throws Exception
    {
        final BlockingQueue<List<String>> arrivals = new LinkedBlockingQueue<>();
        final Server holding = new Server("holding", request ->
        {
            final List<String> identity = identity(request.metadata());
            arrivals.add(identity);
            request.message().close();
            if (identity.get(1) != null)
            {
                request.respond(Outbound.of(utf8("resumed"))); // the first attempt is held past its deadline
            }
        });
        final ServiceClient client = client(engines.start("client"), StaticEndpointResolver.of(SERVICE,
            List.of(holding.endpoint(""))), c -> c);
        awaitActive(client, 1);
        final Outbound transfer = Outbound.of(utf8("transfer"));

        final CompletableFuture<Message> call = client.request(transfer,
            CallOptions.timeout(Duration.ofMillis(300)).withExactlyOnce(true), 0);

        assertThatThrownBy(() -> call.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(XioTimeoutException.class)
            .satisfies(ex -> assertThat(((XioTimeoutException)ex).mayHaveRun()).as("its server holds it").isTrue());
        final List<String> first = arrivals.poll(10, TimeUnit.SECONDS);
        assertThat(IdempotencyKeys.of(transfer.metadata())).as("the key it was sent with, kept by its message")
            .isEqualTo(first.get(0)).isNotNull();
        try (Message resumed = client.request(transfer.sameData().metadata(
            IdempotencyKeys.forRetry(transfer.metadata(), 1)), CallOptions.DEFAULT.withExactlyOnce(true), 0)
            .get(20, TimeUnit.SECONDS))
        {
            assertThat(text(resumed.header())).isEqualTo("resumed");
        }
        assertThat(arrivals.poll(10, TimeUnit.SECONDS)).containsExactly(first.get(0), "1");
    }

    /** The idempotency key and attempts entry a request arrived with (nulls when absent). */
    private static List<String> identity(final Metadata metadata)
    {
        return java.util.Arrays.asList(metadata.get(IdempotencyKeys.METADATA_KEY),
            metadata.get(IdempotencyKeys.PREVIOUS_ATTEMPTS_KEY));
    }

    @Test
    void closingTheClientEndsItsCallsInFlightAndThoseWaitingToBeTriedAgain() throws Exception
    {
        final CountDownLatch arrived = new CountDownLatch(2);
        final RequestHandler stall = request ->
        {
            arrived.countDown(); // never answers
            request.message().close();
        };
        final Server first = new Server("first", stall);
        final Server second = new Server("second", stall);
        // Waits of 15-30 s between attempts: a call tried again is still waiting when the client closes.
        final ServiceClient client = client(engines.start("client"), StaticEndpointResolver.of(SERVICE,
            List.of(first.endpoint(""), second.endpoint(""))), c -> c.balancer(LoadBalancer.rendezvous())
            .retry(3, Backoff.of(Duration.ofSeconds(30), Duration.ofSeconds(30))));
        awaitActive(client, 2);
        final CallOptions idempotent = CallOptions.timeout(Duration.ofSeconds(60)).withIdempotent(true);
        final CompletableFuture<Message> waiting = client.request(Outbound.of(utf8("read")), idempotent,
            keyOwnedBy(client, "first"));
        final CompletableFuture<Message> inFlight = client.request(Outbound.of(utf8("read")), idempotent,
            keyOwnedBy(client, "second"));
        assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
        // The first server closes its session with the call in it: that call waits to be tried again.
        first.engine.sessions().stream().filter(Session::isServerSide).forEach(Session::close);
        await().atMost(Duration.ofSeconds(10)).until(() -> first.engine.sessions().isEmpty());
        assertThat(waiting).isNotDone();

        client.close();
        for (final CompletableFuture<Message> call : List.of(waiting, inFlight))
        {
            assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(ConnectionException.class);
        }
        assertThat(first.served.get() + second.served.get()).as("neither was tried again").isEqualTo(2);
    }

    private static long keyOwnedBy(final ServiceClient client, final String server)
    {
        long key = 1;
        while (!server.equals(ownerOf(client, key)))
        {
            key++;
        }
        return key;
    }

    private static String ownerOf(final ServiceClient client, final long key)
    {
        final Session session = client.pick(key);
        return client.endpoints().stream().filter(e -> e.portal() != null &&
            session.uri().endpoint().equals(e.portal().endpoint())).findFirst().orElseThrow().endpoint().id();
    }

    @Test
    void withNoEndpointACallFailsWithinItsDeadlineNamingTheService()
    {
        final ServiceClient client = client(engines.start("client"), new StaticEndpointResolver(), c -> c);
        assertThatThrownBy(() -> client.request(Outbound.of(utf8("x")),
            CallOptions.timeout(Duration.ofMillis(300)), 0).get(10, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class).cause().isInstanceOf(ConnectionException.class)
            .hasMessageContaining("service kv").hasMessageContaining("the resolver lists none")
            .satisfies(ex -> assertThat(((ConnectionException)ex).mayHaveRun()).as("never sent").isFalse());
    }

    @Test
    void anUnreachableEndpointIsShownAndTriedAgainUntilItIsUp() throws Exception
    {
        final XioEngine probe = engines.start("probe");
        final Portal taken = probe.bind("tcp://127.0.0.1:0");
        final XioUri address = taken.uri();
        taken.close(); // nothing listens there now
        final ServiceClient client = client(engines.start("client"), StaticEndpointResolver.of(SERVICE,
            List.of(Endpoint.of("late", "", List.of(address)))), c -> c);
        await().atMost(Duration.ofSeconds(10)).until(() ->
            client.endpoints().get(0).state() == EndpointStatus.State.UNREACHABLE);
        assertThat(client.endpoints().get(0).lastFailure()).startsWith("tcp: ");

        final XioEngine late = engines.start("late");
        late.register(SERVICE, request ->
        {
            request.message().close();
            request.respond(Outbound.of(utf8("late")));
        });
        late.bind(address.toString());
        awaitActive(client, 1);
        assertThat(call(client, CallOptions.DEFAULT, 0)).isEqualTo("late");
    }
}
