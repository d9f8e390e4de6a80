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
            {},                                                    // no credentials field at all
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

    @Test
    void noSecretReachesTheLogWhateverTheAcceptorDoes() throws Exception
    {
        final PrintStream original = System.err;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        server = engines.start(engines.builder("server"));
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
                .isInstanceOf(SessionRejectedException.class).hasMessageNotContaining(TOKEN);
            assertThatThrownBy(() -> client.connect(uri(failing), SessionOptions.DEFAULT.withCredentials(
                Credentials.password("ann", "pw-" + TOKEN)))).isInstanceOf(SessionRejectedException.class);
            assertThatThrownBy(() -> client.connect(uri(refusing), as("wrong-" + TOKEN)))
                .isInstanceOf(SessionRejectedException.class).hasMessageNotContaining(TOKEN);
        }
        finally
        {
            System.setErr(original);
        }
        final String log = captured.toString(StandardCharsets.UTF_8);
        assertThat(log).as("what was logged meanwhile").contains("acceptor broke").contains("bearer(redacted)")
            .contains("password(ann, redacted)").contains("not authenticated");
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
