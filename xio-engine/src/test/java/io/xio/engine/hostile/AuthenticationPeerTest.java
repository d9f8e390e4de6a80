package io.xio.engine.hostile;

import io.xio.engine.BackPressureException;
import io.xio.engine.Credentials;
import io.xio.engine.InboundRequest;
import io.xio.engine.Limits;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.PeerRefusal;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.SessionAcceptor;
import io.xio.engine.SessionOptions;
import io.xio.engine.SessionRejectedException;
import io.xio.engine.SetupDecision;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioFuture;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Authenticated sessions against peers that guess, lie about their credentials' shape or hold on to one identity:
 * malformed credentials close the connection before the acceptor runs, a host that keeps failing is refused without
 * the acceptor being asked (other hosts are not), secrets never reach the log, and one principal's sessions and
 * calls are bounded. Raw peers connect from 127.0.0.2, another host than the engine clients on 127.0.0.1.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AuthenticationPeerTest
{
    private static final String ATTACKER = "127.0.0.2";
    private static final String TOKEN = "t0k3n-of-ann-9f8e7d";
    private final TestEngines engines = new TestEngines();
    private final List<RawPeer> peers = new ArrayList<>();
    private final AtomicInteger acceptorCalls = new AtomicInteger();
    private final List<io.xio.engine.SessionEvent> serverEvents = new java.util.concurrent.CopyOnWriteArrayList<>();
    private XioEngine server;
    private XioEngine client;

    @AfterEach
    void close() throws IOException
    {
        for (final RawPeer peer : peers)
        {
            peer.close();
        }
        engines.close();
    }

    /** ann's token makes ann's session, bob's makes bob's; anything else is unauthenticated. */
    private final SessionAcceptor acceptor = request ->
    {
        acceptorCalls.incrementAndGet();
        if (request.credentials() instanceof Credentials.Bearer bearer)
        {
            if (TOKEN.equals(bearer.token()))
            {
                return SetupDecision.accept(() -> "ann");
            }
            if ("bob's".equals(bearer.token()))
            {
                return SetupDecision.accept(() -> "bob");
            }
        }
        return SetupDecision.unauthenticated("no such token");
    };

    private Portal start(final Limits limits)
    {
        server = engines.start(engines.builder("server").limits(limits).sessionListener(serverEvents::add));
        client = engines.start("client");
        server.register("echo", TestEngines.ECHO);
        return server.bind("tcp://127.0.0.1:0", acceptor);
    }

    private RawPeer attacker(final Portal portal) throws IOException
    {
        final RawPeer peer = new RawPeer(ATTACKER, portal.uri().port(), 0);
        peers.add(peer);
        return peer;
    }

    private static SessionOptions as(final String token)
    {
        return SessionOptions.DEFAULT.withCredentials(Credentials.bearer(token));
    }

    private static String uri(final Portal portal)
    {
        return portal.uri().withResource("echo").toString();
    }

    @Test
    void malformedCredentialsCloseTheConnectionBeforeTheAcceptorRuns() throws Exception
    {
        final Portal portal = start(TestEngines.LIMITS.withMaxHeaderBytes(4096));
        final byte[][] malformed = {
            {9},                                                   // a kind that does not exist
            {1, 100, 0, 'a', 'b', 'c'},                            // a token announced longer than the body
            new SetupCodec.Writer().u8(2).string("ann").toBytes(), // a password without its password
        };
        for (final byte[] credentials : malformed)
        {
            final RawPeer liar = attacker(portal);
            liar.send(RawPeer.setup(1, "echo", credentials));
            assertThat(liar.read(Duration.ofSeconds(5))).as("closed, not answered").isNull();
        }
        final RawPeer huge = attacker(portal);
        huge.trySend(RawPeer.setup(1, "echo", "x".repeat(5000))); // over the set-up's 4096-byte limit
        assertThat(huge.closedWithin(Duration.ofSeconds(5))).isTrue();
        assertThat(acceptorCalls).as("none of them reached the acceptor").hasValue(0);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(serverEvents.stream()
            .filter(event -> String.valueOf(event.detail()).contains("protocol violation")).count())
            .isGreaterThanOrEqualTo(malformed.length));
        assertThat(serverEvents).anySatisfy(event -> assertThat(event.detail()).contains("unknown credentials kind 9"));
        assertThat(server.sessions()).as("no session, no quota taken").isEmpty();
        try (Session session = client.connect(uri(portal), as(TOKEN)))
        {
            assertThat(session.isOpen()).as("nobody else is harmed").isTrue();
        }
    }

    @Test
    void aSetUpWithoutTheCredentialsFieldPresentsNone() throws Exception
    {
        final Portal portal = start(TestEngines.LIMITS);
        final RawPeer old = attacker(portal);
        old.send(RawPeer.setup(1, "echo", new byte[0])); // a client from before credentials
        assertRefusedAsUnauthenticated(old.answer());
        assertThat(acceptorCalls).as("asked, with no credentials").hasValue(1);
    }

    @Test
    void aThrowingAcceptorCountsTowardTheHostsFailures() throws Exception
    {
        server = engines.start(engines.builder("server").limits(TestEngines.LIMITS
            .withMaxAuthenticationFailuresPerHost(3)));
        server.register("echo", TestEngines.ECHO);
        final Portal failing = server.bind("tcp://127.0.0.1:0", request ->
        {
            acceptorCalls.incrementAndGet();
            throw new IllegalStateException("bad jwt"); // as a JwtDecoder's BadJwtException
        });
        final RawPeer guesser = attacker(failing);
        for (int i = 0; i < 3; i++)
        {
            guesser.send(RawPeer.setup(i + 1, "echo", "guess-" + i));
            assertRefusedAsUnauthenticated(guesser.answer());
        }
        guesser.send(RawPeer.setup(4, "echo", "guess-4"));
        assertRefusedAsUnauthenticated(guesser.answer());
        assertThat(acceptorCalls).as("the fourth was refused unasked: the limit is 3").hasValue(3);
        assertThat(server.refusals().get(PeerRefusal.AUTHENTICATION)).isEqualTo(4);
    }

    @Test
    void aHostLockedOutAtOnePortalIsStillAskedAtAnother() throws Exception
    {
        final Portal guessed = start(TestEngines.LIMITS.withMaxAuthenticationFailuresPerHost(2)
            .withAuthenticationFailureInterval(Duration.ofMinutes(5)));
        final Portal other = server.bind("tcp://127.0.0.1:0", acceptor);
        final RawPeer guesser = attacker(guessed);
        for (int i = 0; i < 3; i++)
        {
            guesser.send(RawPeer.setup(i + 1, "echo", "guess-" + i));
            assertRefusedAsUnauthenticated(guesser.answer());
        }
        assertThat(acceptorCalls).as("locked out after 2 at that portal").hasValue(2);
        final RawPeer elsewhere = attacker(other);
        elsewhere.send(RawPeer.setup(1, "echo", TOKEN));
        final RawPeer.Received answer = elsewhere.answer();
        assertThat(answer.type()).as("the other portal still asks its acceptor").isEqualTo(FrameType.SETUP_ACCEPT);
        assertThat(acceptorCalls).hasValue(3);
    }

    @Test
    void aPrincipalWhoseNameThrowsIsRefusedAndReleasesItsHostsSessionCount() throws Exception
    {
        server = engines.start(engines.builder("server").limits(TestEngines.LIMITS.withMaxSessionsPerPeer(1)));
        client = engines.start("client");
        server.register("echo", TestEngines.ECHO);
        final Portal portal = server.bind("tcp://127.0.0.1:0", request ->
            request.credentials() instanceof Credentials.Bearer bearer && "broken".equals(bearer.token()) ?
                SetupDecision.accept(() ->
                {
                    throw new IllegalStateException("no name");
                }) : SetupDecision.accept(() -> "ann"));
        assertThatThrownBy(() -> client.connect(uri(portal), as("broken")))
            .isInstanceOf(SessionRejectedException.class);
        try (Session session = client.connect(uri(portal), as(TOKEN)))
        {
            assertThat(session.isOpen()).as("the refused set-up took none of the host's one session").isTrue();
        }
    }

    @Test
    void aHostThatKeepsFailingIsRefusedUnaskedWhileOtherHostsAreNot() throws Exception
    {
        final Portal portal = start(TestEngines.LIMITS);
        final RawPeer guesser = attacker(portal);
        for (int i = 0; i < 8; i++)
        {
            guesser.send(RawPeer.setup(i + 1, "echo", "guess-" + i));
            assertRefusedAsUnauthenticated(guesser.answer());
        }
        assertThat(acceptorCalls).hasValue(8);
        guesser.send(RawPeer.setup(9, "echo", TOKEN));
        assertRefusedAsUnauthenticated(guesser.answer());
        assertThat(acceptorCalls).as("the ninth try, even with the right token, was not put to the acceptor")
            .hasValue(8);
        final RawPeer again = attacker(portal);
        again.send(RawPeer.setup(1, "echo", TOKEN));
        assertRefusedAsUnauthenticated(again.answer());
        assertThat(acceptorCalls).as("a new connection from the same host neither").hasValue(8);
        assertThat(server.refusals().get(PeerRefusal.AUTHENTICATION)).isEqualTo(10);
        try (Session session = client.connect(uri(portal), as(TOKEN)))
        {
            assertThat(session.isOpen()).as("127.0.0.1 is another host").isTrue();
        }
        assertThat(acceptorCalls).hasValue(9);
    }

    private static void assertRefusedAsUnauthenticated(final RawPeer.Received answer)
    {
        assertThat(answer).isNotNull();
        assertThat(answer.type()).isEqualTo(FrameType.SETUP_REJECT);
        final SetupCodec.Reader body = answer.reader();
        assertThat(body.string()).as("a reason that tells nothing more").isEqualTo("authentication failed");
        assertThat(body.u8()).as("coded as an authentication failure").isEqualTo(SetupCodec.REJECT_AUTHENTICATION);
    }

    /**
     * Reads what the engine logs at warning level, which the fuzz execution turns off (a {@code -Dtest=} run takes
     * this class into that execution too, so it excludes this tag).
     */
    @Test
    @org.junit.jupiter.api.Tag("log-output")
    void noSecretReachesTheLogWhateverTheAcceptorDoes() throws Exception
    {
        final PrintStream original = System.err;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        // The engine's clock, moved on by the test: the log's interval per host passes without waiting for it.
        final java.util.concurrent.atomic.AtomicLong skipped = new java.util.concurrent.atomic.AtomicLong();
        server = engines.start(engines.builder("server").nanoClock(() -> System.nanoTime() + skipped.get()));
        client = engines.start("client");
        server.register("echo", TestEngines.ECHO);
        final Portal failing = server.bind("tcp://127.0.0.1:0", request ->
        {
            throw new IllegalStateException("acceptor broke");
        });
        final Portal refusing = server.bind("tcp://127.0.0.1:0", acceptor);
        System.setErr(new PrintStream(new TeeStream(original, captured), true, StandardCharsets.UTF_8));
        try
        {
            assertThatThrownBy(() -> client.connect(uri(failing), as("bearer-" + TOKEN)))
                .isInstanceOf(SessionRejectedException.class).hasMessageNotContaining(TOKEN)
                .satisfies(ex -> assertThat(((SessionRejectedException)ex).isAuthenticationFailure()).isTrue());
            assertThatThrownBy(() -> client.connect(uri(failing), as("again-" + TOKEN)))
                .isInstanceOf(SessionRejectedException.class);
            skipped.addAndGet(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(1_100)); // the next one is logged
            assertThatThrownBy(() -> client.connect(uri(refusing), SessionOptions.DEFAULT.withCredentials(
                Credentials.password("ann", "pw-" + TOKEN)))).isInstanceOf(SessionRejectedException.class)
                .hasMessageNotContaining(TOKEN);
        }
        finally
        {
            System.setErr(original);
        }
        final String log = captured.toString(StandardCharsets.UTF_8);
        assertThat(log).as("what was logged meanwhile").contains("acceptor broke").contains("bearer(redacted)")
            .contains("password(redacted)").contains("not authenticated");
        assertThat(log.split("IllegalStateException: acceptor broke\\R\\s+at ", -1))
            .as("the acceptor's stack trace once: the second throw, within a second, is only counted").hasSize(2);
        assertThat(log).doesNotContain(TOKEN);
    }

    @Test
    void aPrincipalsSessionsAreLimitedAndFreedWhenOneCloses() throws Exception
    {
        final Portal portal = start(TestEngines.LIMITS.withMaxSessionsPerPrincipal(2));
        final Session first = client.connect(uri(portal), as(TOKEN));
        final Session second = client.connect(uri(portal), as(TOKEN));
        assertThatThrownBy(() -> client.connect(uri(portal), as(TOKEN)))
            .isInstanceOf(SessionRejectedException.class)
            .satisfies(ex -> assertThat(((SessionRejectedException)ex).isAuthenticationFailure()).isFalse())
            .satisfies(ex -> assertThat(((SessionRejectedException)ex).reason()).doesNotContain("ann"));
        assertThat(server.refusals().get(PeerRefusal.SESSION_LIMIT)).isEqualTo(1);
        try (Session bob = client.connect(uri(portal), as("bob's")))
        {
            assertThat(bob.isOpen()).as("another principal is not affected").isTrue();
        }
        first.close();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        {
            try (Session third = client.connect(uri(portal), as(TOKEN)))
            {
                assertThat(third.isOpen()).as("the closed session's place is free").isTrue();
            }
        });
        second.close();
    }

    @Test
    void aPrincipalsExecutingCallsAreLimitedOverAllItsSessions() throws Exception
    {
        final LinkedBlockingQueue<InboundRequest> held = new LinkedBlockingQueue<>();
        final Portal portal = start(TestEngines.LIMITS.withMaxInFlightPerPrincipal(2));
        server.register("hold", held::add);
        final String hold = portal.uri().withResource("hold").toString();
        try (Session one = client.connect(hold, as(TOKEN));
             Session two = client.connect(hold, as(TOKEN));
             Session bob = client.connect(hold, as("bob's")))
        {
            final XioFuture<Message> a = one.request(Outbound.of(utf8("a")));
            final XioFuture<Message> b = two.request(Outbound.of(utf8("b")));
            await().atMost(Duration.ofSeconds(5)).until(() -> held.size() == 2);
            assertThatThrownBy(() -> one.request(Outbound.of(utf8("c"))).get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(BackPressureException.class);
            final XioFuture<Message> other = bob.request(Outbound.of(utf8("d")));
            await().atMost(Duration.ofSeconds(5)).until(() -> held.size() == 3);
            for (int i = 0; i < 3; i++)
            {
                final InboundRequest request = held.take();
                try (Message message = request.message())
                {
                    request.respond(Outbound.of(utf8("done " + text(message.header()))));
                }
            }
            a.get(5, TimeUnit.SECONDS).close();
            b.get(5, TimeUnit.SECONDS).close();
            other.get(5, TimeUnit.SECONDS).close();
            final XioFuture<Message> again = two.request(Outbound.of(utf8("e")));
            final InboundRequest late = held.poll(5, TimeUnit.SECONDS);
            assertThat(late).as("room again once the calls finished").isNotNull();
            try (Message message = late.message())
            {
                late.respond(Outbound.of(utf8("done " + text(message.header()))));
            }
            try (Message reply = again.get(5, TimeUnit.SECONDS))
            {
                assertThat(text(reply.header())).isEqualTo("done e");
            }
        }
    }

    @Test
    void aPrincipalsCallsStillRunningAfterItsSessionsClosedStillCount() throws Exception
    {
        final LinkedBlockingQueue<InboundRequest> held = new LinkedBlockingQueue<>();
        final Portal portal = start(TestEngines.LIMITS.withMaxInFlightPerPrincipal(1));
        server.register("hold", held::add);
        final String hold = portal.uri().withResource("hold").toString();
        final Session first = client.connect(hold, as(TOKEN));
        first.request(Outbound.of(utf8("a")));
        final InboundRequest running = held.poll(5, TimeUnit.SECONDS);
        assertThat(running).isNotNull();
        first.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> server.sessions().isEmpty());
        try (Session second = client.connect(hold, as(TOKEN)))
        {
            assertThatThrownBy(() -> second.request(Outbound.of(utf8("b"))).get(5, TimeUnit.SECONDS))
                .as("ann's call of the closed session still executes: no fresh allowance beside it")
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(BackPressureException.class);
            try (Message message = running.message())
            {
                running.respond(Outbound.of(utf8("late")));
            }
            final XioFuture<Message> again = second.request(Outbound.of(utf8("c")));
            final InboundRequest next = held.poll(5, TimeUnit.SECONDS);
            assertThat(next).as("room once it finished").isNotNull();
            try (Message message = next.message())
            {
                next.respond(Outbound.of(utf8("done")));
            }
            again.get(5, TimeUnit.SECONDS).close();
        }
    }

    @Test
    void aCancelledOrTimedOutCallGivesItsPrincipalsPlaceBackOnce() throws Exception
    {
        final LinkedBlockingQueue<InboundRequest> held = new LinkedBlockingQueue<>();
        final Portal portal = start(TestEngines.LIMITS.withMaxInFlightPerPrincipal(1));
        server.register("hold", held::add);
        try (Session session = client.connect(portal.uri().withResource("hold").toString(), as(TOKEN)))
        {
            final Admitted cancelled = admitted(held, () -> session.request(Outbound.of(utf8("a"))));
            cancelled.call().cancel(true);
            final Admitted timedOut = admitted(held, () -> session.request(Outbound.of(utf8("b")),
                io.xio.engine.CallOptions.DEFAULT.withTimeout(Duration.ofMillis(300))));
            assertThatThrownBy(() -> timedOut.call().get(5, TimeUnit.SECONDS)).as("its deadline passes")
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(io.xio.engine.XioTimeoutException.class);
            final Admitted third = admitted(held, () -> session.request(Outbound.of(utf8("c"))));
            for (final InboundRequest stale : List.of(cancelled.request(), timedOut.request()))
            {
                try (Message message = stale.message())
                {
                    stale.respond(Outbound.of(utf8("too late"))); // answered after it ended: counted off once only
                }
            }
            assertThatThrownBy(() -> session.request(Outbound.of(utf8("d"))).get(5, TimeUnit.SECONDS))
                .as("one executes, so no room for a second").isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(BackPressureException.class);
            try (Message message = third.request().message())
            {
                third.request().respond(Outbound.of(utf8("done")));
            }
            third.call().get(5, TimeUnit.SECONDS).close();
        }
    }

    /** A call and the server's view of it. */
    private record Admitted(InboundRequest request, XioFuture<Message> call)
    {
    }

    /**
     * A call made by {@code call} once the principal has room for it: one refused BACK_PRESSURE (the end of the
     * call before not through yet) is made again, for a while.
     */
    private static Admitted admitted(final LinkedBlockingQueue<InboundRequest> held,
        final java.util.function.Supplier<XioFuture<Message>> call) throws Exception
    {
        XioFuture<Message> attempt = call.get();
        for (int i = 0; i < 100; i++)
        {
            final InboundRequest request = held.poll(50, TimeUnit.MILLISECONDS);
            if (request != null)
            {
                return new Admitted(request, attempt);
            }
            if (attempt.isCompletedExceptionally())
            {
                attempt = call.get();
            }
        }
        throw new AssertionError("no room for the principal's call after its other one ended");
    }

    /** Writes to both streams: the test still shows its log, and reads it. */
    private static final class TeeStream extends java.io.OutputStream
    {
        private final PrintStream first;
        private final ByteArrayOutputStream second;

        TeeStream(final PrintStream first, final ByteArrayOutputStream second)
        {
            this.first = first;
            this.second = second;
        }

        @Override
        public synchronized void write(final int b)
        {
            first.write(b);
            second.write(b);
        }

        @Override
        public synchronized void write(final byte[] bytes, final int offset, final int length)
        {
            first.write(bytes, offset, length);
            second.write(bytes, offset, length);
        }
    }
}
