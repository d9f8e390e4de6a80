package io.xio.engine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.TestEngines.ECHO;
import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@link XioEngine#drain} and GOAWAY through real engines: calls in flight when a drain starts finish, the clients
 * close their sessions by themselves, new sessions are refused as draining, re-attaches still work, and a session
 * that outstays the grace is closed at its end.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DrainTest
{
    private final TestEngines engines = new TestEngines();
    /** Requests the "hold" service has not answered yet. */
    private final HeldRequests held = new HeldRequests();
    private final List<SessionEvent> clientEvents = new CopyOnWriteArrayList<>();

    @AfterEach
    void close()
    {
        held.releaseAll();
        engines.close();
    }


    private XioEngine server()
    {
        final XioEngine server = engines.start("server");
        server.register("hold", held::add);
        server.register("echo", ECHO);
        return server;
    }

    private XioEngine client()
    {
        return engines.start(engines.builder("client").sessionListener(clientEvents::add));
    }

    private static String address(final String transport)
    {
        return "tcp".equals(transport) ? "tcp://127.0.0.1:0" : "local://drain-" + UUID.randomUUID();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "local"})
    void callsInFlightWhenTheDrainStartsAllCompleteAndTheSessionsCloseByThemselves(final String transport)
        throws Exception
    {
        final XioEngine server = server();
        final Portal portal = server.bind(address(transport));
        final XioEngine client = client();
        final Session first = client.connect(portal.uri().withResource("hold").toString());
        final Session second = client.connect(portal.uri().withResource("hold").toString());
        final List<XioFuture<Message>> calls = new ArrayList<>();
        for (int i = 0; i < 100; i++)
        {
            calls.add(first.request(Outbound.of(utf8("a" + i))));
            calls.add(second.request(Outbound.of(utf8("b" + i))));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 200);
        assertThat(first.inFlight()).isEqualTo(100);
        assertThat(second.inFlight()).isEqualTo(100);

        final CompletableFuture<Void> drained = server.drain(List.of(), Duration.ofSeconds(30));
        assertThat(server.isDraining()).isTrue();
        assertThat(server.drain(List.of(), Duration.ofSeconds(1))).as("a second call").isSameAs(drained);
        await().atMost(Duration.ofSeconds(10)).until(() -> first.isDraining() && second.isDraining());
        assertThat(first.goAwayReceived().portals()).isEmpty();
        assertThat(clientEvents).filteredOn(e -> e.type() == SessionEvent.Type.GOAWAY)
            .extracting(SessionEvent::session).containsExactlyInAnyOrder(first, second);
        assertThatThrownBy(() -> first.request(Outbound.of(utf8("late"))).get(5, TimeUnit.SECONDS))
            .cause().isInstanceOf(SessionDrainingException.class);
        assertThatThrownBy(() -> second.send(Outbound.of(utf8("late"))).get(5, TimeUnit.SECONDS))
            .cause().isInstanceOf(SessionDrainingException.class);
        assertThat(first.isOpen()).as("calls still in flight").isTrue();
        assertThat(drained).isNotDone();

        held.releaseAll();
        int answered = 0;
        for (final XioFuture<Message> call : calls)
        {
            try (Message response = call.get(10, TimeUnit.SECONDS))
            {
                assertThat(text(response.header())).isNotEmpty();
                answered++;
            }
        }
        assertThat(answered).isEqualTo(200);
        // Long before the grace: the clients closed their sessions after their last answers.
        drained.get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(5)).until(() -> !first.isOpen() && !second.isOpen());
        assertThat(server.sessions()).isEmpty();
        assertThat(first.inFlight()).isZero();
    }

    @Test
    void aSessionThatKeepsCallsRunningPastTheGraceIsClosedAtItsEnd() throws Exception
    {
        final XioEngine server = server();
        final Portal portal = server.bind(address("tcp"));
        final XioEngine client = client();
        final Session session = client.connect(portal.uri().withResource("hold").toString());
        final XioFuture<Message> stuck = session.request(Outbound.of(utf8("stuck")),
            CallOptions.timeout(Duration.ofSeconds(30)));
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);
        final long start = System.nanoTime();
        final CompletableFuture<Void> drained = server.drain(List.of(), Duration.ofMillis(500));
        drained.get(10, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(500));
        assertThat(server.sessions()).isEmpty();
        assertThatThrownBy(() -> stuck.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(ConnectionException.class)
            .isNotInstanceOf(SessionDrainingException.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> !session.isOpen());
    }

    @Test
    void theGraceEndsOnTimeWhenTheFirstContextFailsAndIsRestartedMeanwhile() throws Exception
    {
        final XioEngine server = engines.start(engines.builder("server")
            .onContextFailure(ContextFailurePolicy.RESTART_CONTEXT));
        server.register("hold", held::add);
        final Portal portal = server.bind(address("tcp"), PortalOptions.DEFAULT.withContext(1));
        final Session session = client().connect(portal.uri().withResource("hold").toString());
        final XioFuture<Message> stuck = session.request(Outbound.of(utf8("stuck")),
            CallOptions.timeout(Duration.ofSeconds(30)));
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);
        final Context first = server.contexts().get(0);
        final CompletableFuture<Void> drained = server.drain(List.of(), TestEngines.scaled(Duration.ofSeconds(1)));
        first.execute(() ->
        {
            throw new OutOfMemoryError("injected");
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> server.contexts().get(0) != first);
        assertThat(session.isOpen()).as("a session of the healthy context is not closed with the failed one")
            .isTrue();

        drained.get(20, TimeUnit.SECONDS);
        assertThat(server.sessions()).isEmpty();
        assertThatThrownBy(() -> stuck.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(ConnectionException.class);
    }

    @Test
    void theGraceEndsAndTheDrainCompletesWhileTheApplicationBlocksEveryWorkerOfTheCommonPool() throws Exception
    {
        final XioEngine server = server();
        final Portal portal = server.bind(address("tcp"));
        final Session session = client().connect(portal.uri().withResource("hold").toString());
        final XioFuture<Message> stuck = session.request(Outbound.of(utf8("stuck")),
            CallOptions.timeout(Duration.ofSeconds(30)));
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);
        try (BlockedCommonPool blocked = new BlockedCommonPool())
        {
            final CompletableFuture<String> completedOn = new CompletableFuture<>();
            // A grace long enough that the drain is still under way when the action is attached (else it would run
            // on this thread).
            server.drain(List.of(), TestEngines.scaled(Duration.ofSeconds(1)))
                .thenRun(() -> completedOn.complete(Thread.currentThread().getName()));
            assertThat(completedOn.get(10, TimeUnit.SECONDS)).isEqualTo("xio-server-drain");
        }
        assertThat(server.sessions()).isEmpty();
        assertThatThrownBy(() -> stuck.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(ConnectionException.class);
    }

    @Test
    void aSetUpWhoseAcceptorRanAsTheDrainBeganIsRefusedAsDraining() throws Exception
    {
        final XioEngine server = server();
        final CompletableFuture<CompletableFuture<Void>> drain = new CompletableFuture<>();
        // The drain begins after the set-up passed the draining check, before its session is registered.
        final Portal portal = server.bind(address("tcp"), PortalOptions.DEFAULT.withAcceptor(request ->
        {
            drain.complete(server.drain(List.of(), Duration.ofSeconds(30)));
            return SetupDecision.accept();
        }).withContext(0));
        assertThatThrownBy(() -> client().connect(portal.uri().withResource("echo").toString()))
            .isInstanceOfSatisfying(SessionRejectedException.class, refused ->
                assertThat(refused.isDraining()).isTrue());
        drain.join().get(10, TimeUnit.SECONDS);
        assertThat(server.sessions()).isEmpty();
    }

    @Test
    void aServedResourceTakesSessionsAndCallsThroughTheDrainWhichNeitherSendsItGoAwayNorWaitsForIt() throws Exception
    {
        final XioEngine server = server();
        final Portal portal = server.bind(address("tcp"));
        final XioEngine client = client();
        final Session before = client.connect(portal.uri().withResource("echo").toString());
        final Session held = client.connect(portal.uri().withResource("hold").toString());
        final XioFuture<Message> inFlight = held.request(Outbound.of(utf8("held")));
        await().atMost(Duration.ofSeconds(10)).until(() -> this.held.size() == 1);

        final CompletableFuture<Void> drained = server.drain(List.of(), Duration.ofSeconds(30), Set.of("echo"));
        await().atMost(Duration.ofSeconds(10)).until(held::isDraining);
        final Session during = client.connect(portal.uri().withResource("echo").toString());
        try (Message answer = during.request(Outbound.of(utf8("still here"))).get(10, TimeUnit.SECONDS))
        {
            assertThat(text(answer.header())).isEqualTo("still here");
        }
        try (Message answer = before.request(Outbound.of(utf8("no goaway"))).get(10, TimeUnit.SECONDS))
        {
            assertThat(text(answer.header())).isEqualTo("no goaway");
        }
        assertThat(before.isDraining()).isFalse();
        assertThatThrownBy(() -> client.connect(portal.uri().withResource("hold").toString()))
            .isInstanceOfSatisfying(SessionRejectedException.class, refused ->
                assertThat(refused.isDraining()).isTrue());
        assertThat(drained).as("the held call is in flight").isNotDone();

        this.held.releaseAll();
        inFlight.get(10, TimeUnit.SECONDS).close();
        drained.get(10, TimeUnit.SECONDS); // though the echo sessions are open
        assertThat(before.isOpen()).isTrue();
        assertThat(during.isOpen()).isTrue();
    }

    @Test
    void theDrainCompletesOffTheContextsSoThatItsDependentMayCloseTheEngine() throws Exception
    {
        final XioEngine server = server();
        final Portal portal = server.bind(address("tcp"));
        final Session session = client().connect(portal.uri().withResource("hold").toString());
        final XioFuture<Message> call = session.request(Outbound.of(utf8("last")));
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);
        final CompletableFuture<String> completedOn = new CompletableFuture<>();
        final CompletableFuture<Void> closed = server.drain(List.of(), Duration.ofSeconds(30)).thenRun(() ->
        {
            completedOn.complete(Thread.currentThread().getName());
            server.close();
        });
        held.releaseAll(); // then the client closes, and the server's context handling the CLOSE ends the drain
        call.get(10, TimeUnit.SECONDS).close();
        await().atMost(Duration.ofSeconds(10)).until(() -> !session.isOpen());
        assertThat(completedOn.get(10, TimeUnit.SECONDS)).doesNotContain("server-ctx");
        // On a context thread the close would wait 5 s for that very context to stop.
        closed.get(TestEngines.scaled(Duration.ofSeconds(3)).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(server.isOpen()).isFalse();
    }

    @Test
    void aGraceTooLongToCountInNanosecondsHasNoEndAndANegativeOneIsRefused() throws Exception
    {
        final XioEngine server = server();
        final Portal portal = server.bind(address("tcp"));
        final Session session = client().connect(portal.uri().withResource("hold").toString());
        final XioFuture<Message> call = session.request(Outbound.of(utf8("kept")),
            CallOptions.timeout(Duration.ofSeconds(30)));
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);
        assertThatThrownBy(() -> server.drain(List.of(), Duration.ofMillis(-1)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
        assertThat(server.isDraining()).isFalse();

        final CompletableFuture<Void> drained = server.drain(List.of(), Duration.ofSeconds(Long.MAX_VALUE));
        await().atMost(Duration.ofSeconds(10)).until(session::isDraining);
        assertThat(drained).isNotDone();
        assertThat(call).isNotDone();
        held.releaseAll();
        call.get(10, TimeUnit.SECONDS).close();
        drained.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aNewSessionDuringTheDrainIsRefusedAsDrainingAndAReattachStillWorks() throws Exception
    {
        final XioEngine server = server();
        final Portal portal = server.bind(address("tcp"));
        final XioEngine client = client();
        final Session session = client.connect(portal.uri().withResource("hold").toString());
        final XioFuture<Message> call = session.request(Outbound.of(utf8("kept")));
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);
        final CompletableFuture<Void> drained = server.drain(List.of(), Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(10)).until(session::isDraining);

        assertThatThrownBy(() -> client.connect(portal.uri().withResource("echo").toString()))
            .isInstanceOfSatisfying(SessionRejectedException.class, refused ->
            {
                assertThat(refused.isDraining()).isTrue();
                assertThat(refused.isAuthenticationFailure()).isFalse();
            });

        final int reconnects = count(SessionEvent.Type.RECONNECTED);
        session.abortConnections();
        await().atMost(Duration.ofSeconds(10)).until(() -> count(SessionEvent.Type.RECONNECTED) > reconnects);
        assertThat(session.isOpen()).isTrue();
        held.releaseAll();
        try (Message response = call.get(10, TimeUnit.SECONDS))
        {
            assertThat(text(response.header())).isEqualTo("kept");
        }
        drained.get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(5)).until(() -> !session.isOpen());
        assertThat(count(SessionEvent.Type.GOAWAY)).as("the GOAWAY sent again on the new connection is the same")
            .isEqualTo(1);
    }

    @Test
    void aDrainEndedOnceOverLetsThePortalsTakeNewSessionsAgainAndOneUnderWayCannotBeEnded() throws Exception
    {
        final XioEngine server = server();
        final Portal portal = server.bind(address("tcp"));
        final XioEngine client = client();
        server.endDrain(); // none began: nothing to end
        final Session session = client.connect(portal.uri().withResource("hold").toString());
        final XioFuture<Message> call = session.request(Outbound.of(utf8("kept")));
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);
        final CompletableFuture<Void> drained = server.drain(List.of(), Duration.ofSeconds(30));
        assertThatThrownBy(server::endDrain).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("still under way");
        assertThat(server.isDraining()).isTrue();
        held.releaseAll();
        call.get(10, TimeUnit.SECONDS).close();
        drained.get(10, TimeUnit.SECONDS);

        server.endDrain();
        assertThat(server.isDraining()).isFalse();
        final Session again = client.connect(portal.uri().withResource("echo").toString());
        try (Message response = again.request(Outbound.of(utf8("again"))).get(10, TimeUnit.SECONDS))
        {
            assertThat(text(response.header())).isEqualTo("again");
        }
        assertThat(server.drain(List.of(), Duration.ofSeconds(30))).as("a new drain after the ended one")
            .isNotSameAs(drained);
        await().atMost(Duration.ofSeconds(10)).until(again::isDraining);
    }

    @Test
    void aDrainingServerSendsTheClientNoNewRequestAndClientSessionsOfTheEngineAreUntouched() throws Exception
    {
        final XioEngine server = server();
        final Portal portal = server.bind(address("tcp"));
        final XioEngine other = engines.start("other");
        other.register("echo", ECHO);
        final Portal otherPortal = other.bind(address("tcp"));
        final Session outbound = server.connect(otherPortal.uri().withResource("echo").toString());
        final XioEngine client = client();
        final Session session = client.connect(portal.uri().withResource("hold").toString(),
            SessionOptions.DEFAULT.withHandler(ECHO));
        final XioFuture<Message> call = session.request(Outbound.of(utf8("kept")));
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);
        final Session serverSide = server.sessions().stream().filter(Session::isServerSide).findFirst()
            .orElseThrow();
        try (Message before = serverSide.request(Outbound.of(utf8("to the client"))).get(5, TimeUnit.SECONDS))
        {
            assertThat(text(before.header())).isEqualTo("to the client");
        }

        server.drain(List.of(XioUri.parse("tcp://127.0.0.1:1")), Duration.ofSeconds(30));
        assertThat(serverSide.isDraining()).isTrue();
        assertThat(serverSide.goAwayReceived()).as("server side").isNull();
        assertThatThrownBy(() -> serverSide.request(Outbound.of(utf8("new"))).get(5, TimeUnit.SECONDS))
            .cause().isInstanceOf(SessionDrainingException.class);
        await().atMost(Duration.ofSeconds(10)).until(session::isDraining);
        assertThat(session.goAwayReceived().portals()).containsExactly(XioUri.parse("tcp://127.0.0.1:1"));
        assertThat(session.goAwayReceived().reason()).isNotEmpty();

        assertThat(outbound.isDraining()).isFalse();
        try (Message echoed = outbound.request(Outbound.of(utf8("still"))).get(5, TimeUnit.SECONDS))
        {
            assertThat(text(echoed.header())).isEqualTo("still");
        }
        held.releaseAll();
        call.get(10, TimeUnit.SECONDS).close();
        await().atMost(Duration.ofSeconds(5)).until(() -> !session.isOpen());
        assertThat(outbound.isOpen()).isTrue();
        outbound.close();
    }

    @Test
    void goAwayOnAClientSessionDrainsItHereRefusingNewCallsUnsentAndClosingAfterTheLast() throws Exception
    {
        final XioEngine server = engines.start("server");
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.atomic.AtomicInteger served = new java.util.concurrent.atomic.AtomicInteger();
        server.register("slow", request ->
        {
            served.incrementAndGet();
            request.message().close();
            CompletableFuture.runAsync(() ->
            {
                try
                {
                    release.await(10, TimeUnit.SECONDS);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
                request.respond(Outbound.of(TestEngines.utf8("done")));
            });
        });
        final Portal portal = server.bind(address("tcp"));
        final Session session = client().connect(portal.uri().withResource("slow").toString());
        final XioFuture<Message> inFlight = session.request(Outbound.of(TestEngines.utf8("first")));
        await().atMost(Duration.ofSeconds(10)).until(() -> served.get() == 1);

        session.goAway(GoAway.of("no longer listed"));
        assertThat(session.isDraining()).isTrue();
        assertThatThrownBy(() -> session.request(Outbound.of(TestEngines.utf8("second"))).get(5, TimeUnit.SECONDS))
            .cause().isInstanceOf(SessionDrainingException.class).hasMessageContaining("not sent");
        assertThat(session.isOpen()).as("open while its call runs").isTrue();
        release.countDown();
        try (Message answer = inFlight.get(10, TimeUnit.SECONDS))
        {
            assertThat(TestEngines.text(answer.header())).isEqualTo("done");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> !session.isOpen());
        await().atMost(Duration.ofSeconds(10)).until(() -> server.sessions().isEmpty());
        assertThat(served).hasValue(1);
    }

    @Test
    void oneSessionToldToGoAwayMovesWhileTheServerTakesNewSessions() throws Exception
    {
        final XioEngine server = server();
        final Portal portal = server.bind(address("local"));
        final Portal elsewhere = server.bind(address("local"));
        final XioEngine client = client();
        final Session moving = client.connect(portal.uri().withResource("echo").toString());
        final Session serverSide = server.sessions().stream().filter(Session::isServerSide).findFirst()
            .orElseThrow();
        serverSide.goAway(GoAway.redirect(List.of(elsewhere.uri()), "resource moved"));
        await().atMost(Duration.ofSeconds(10)).until(() -> !moving.isOpen());
        assertThat(moving.goAwayReceived()).isEqualTo(GoAway.redirect(List.of(elsewhere.uri()), "resource moved"));
        assertThat(server.isDraining()).isFalse();
        try (Session reopened = client.connect(moving.goAwayReceived().portals().get(0).withResource("echo")
            .toString());
             Message echoed = reopened.request(Outbound.of(utf8("here"))).get(5, TimeUnit.SECONDS))
        {
            assertThat(text(echoed.header())).isEqualTo("here");
        }
    }

    @Test
    void inFlightAllocatesNothing() throws Exception
    {
        final XioEngine server = server();
        final Portal portal = server.bind(address("tcp"));
        try (Session session = client().connect(portal.uri().withResource("hold").toString()))
        {
            final XioFuture<Message> call = session.request(Outbound.of(utf8("one")));
            await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);
            final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
            long sum = 0;
            for (int i = 0; i < 20_000; i++)
            {
                sum += session.inFlight(); // warm
            }
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++)
            {
                sum += session.inFlight();
            }
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertThat(sum).isEqualTo(120_000);
            assertThat(allocated).as("bytes for 100,000 calls").isLessThan(10_000);
            held.releaseAll();
            call.get(5, TimeUnit.SECONDS).close();
        }
    }

    private int count(final SessionEvent.Type type)
    {
        return (int)clientEvents.stream().filter(e -> e.type() == type).count();
    }
}
