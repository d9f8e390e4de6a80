package io.xio.engine.session;

import io.xio.engine.ConnectionException;
import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.SessionRejectedException;
import io.xio.engine.XioUri;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.session.handshake.ClientHandshake;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client handshake against a scripted server on a fake clock: set-up, redirect, reconnect backoff and its
 * jitter.
 */
class ClientHandshakeTest
{
    /** Timers fire on the next tick of the context's timer wheel (2^20 ns) after their deadline. */
    static final long TICK_SLACK = 2_200_000L;

    private final ScriptedEngine client = new ScriptedEngine();

    @AfterEach
    void close()
    {
        client.close();
    }

    /** Starts opening a session; its SETUP is on the wire when this returns. */
    private CompletableFuture<Session> open()
    {
        final CompletableFuture<Session> opening = client.engine.openSession("wire://server/kv",
            SessionOptions.DEFAULT);
        client.turn();
        return opening;
    }

    private static long setupToken(final ScriptedWire.Link link)
    {
        return link.sent(FrameType.SETUP).get(0).requestId();
    }

    @Test
    void aLostConnectionIsRetriedWithDoublingBackoffUntilTheReconnectTimeout()
    {
        final Session session = client.openSession();
        final SessionImpl impl = (SessionImpl)session;
        impl.engine.reconnectJitter = () -> -1L; // the top of each step: the schedule without jitter
        client.wire.refuseConnects = true;
        final long lostAt = client.clock.nanoTime();
        client.wire.last().reset();
        client.turn();
        assertThat(impl.connectionCount()).isZero();
        assertThat(session.isOpen()).as("reconnecting, not closed").isTrue();

        final List<Long> attempts = reconnectAttempts(session);
        // 5 ms doubling up to 1 s, each counted from the failure before it: attempts about 5, 15, 35, 75, 155,
        // 315, 635, 1275 and 2555 ms after the loss; the last one fails past the 2 s reconnect timeout, and so
        // does the session. Timers fire on the context's timer-wheel ticks (about 1 ms), hence the tolerance.
        assertThat(attempts).hasSize(9);
        long previous = lostAt;
        for (int i = 0; i < attempts.size(); i++)
        {
            final long ceiling = ClientHandshake.RECONNECT.ceilingNanos(i);
            assertThat(attempts.get(i) - previous).as("wait before attempt " + i)
                .isBetween(ceiling, ceiling + TICK_SLACK);
            previous = attempts.get(i);
        }
        assertThat(session.isOpen()).isFalse();
        assertThat(ClientHandshake.RECONNECT.ceilingNanos(0)).isEqualTo(5_000_000L);
        assertThat(ClientHandshake.RECONNECT.ceilingNanos(20)).isEqualTo(1_000_000_000L);
    }

    @Test
    void reconnectWaitsAreJitteredWithinTheUpperHalfOfEachStep()
    {
        final Session session = client.openSession();
        final SessionImpl impl = (SessionImpl)session;
        final long[] draws = {0L, Long.MAX_VALUE / 2, 0L, 1L << 40, 0L, -7L, 0L, 3L, 0L, 0L, 0L, 0L};
        final int[] next = new int[1];
        impl.engine.reconnectJitter = () -> draws[next[0]++];
        client.wire.refuseConnects = true;
        final long lostAt = client.clock.nanoTime();
        client.wire.last().reset();
        client.turn();

        final List<Long> attempts = reconnectAttempts(session);
        long previous = lostAt;
        for (int i = 0; i < attempts.size(); i++)
        {
            final long wanted = ClientHandshake.RECONNECT.delayNanos(i, draws[i]);
            assertThat(wanted).as("within the upper half of step " + i)
                .isBetween(ClientHandshake.RECONNECT.ceilingNanos(i) / 2, ClientHandshake.RECONNECT.ceilingNanos(i));
            assertThat(attempts.get(i) - previous).as("wait before attempt " + i)
                .isBetween(wanted, wanted + TICK_SLACK);
            previous = attempts.get(i);
        }
        // Waits from the bottom of their steps fit more attempts into the 2 s reconnect timeout than the 9 above.
        assertThat(attempts).hasSizeGreaterThan(9);
        assertThat(session.isOpen()).isFalse();
    }

    /** Runs the fake clock until the session gave up reconnecting; the times of its connect attempts. */
    private List<Long> reconnectAttempts(final Session session)
    {
        final int before = client.wire.connectTimes.size();
        for (int ms = 0; ms < 2_700 && session.isOpen(); ms++)
        {
            client.advance(Duration.ofMillis(1));
        }
        return client.wire.connectTimes.subList(before, client.wire.connectTimes.size());
    }

    @Test
    void aReconnectAttachesTheSessionAgainAndTheBackoffStartsAfresh()
    {
        final Session session = client.openSession();
        client.wire.last().reset();
        client.advance(Duration.ofMillis(7));
        final ScriptedWire.Link second = client.wire.last();
        final ScriptedWire.Sent attach = second.sent(FrameType.ATTACH).get(0);
        assertThat(attach.sessionId()).isEqualTo(ScriptedEngine.SESSION_ID);
        assertThat(new SetupCodec.Reader(new UnsafeBuffer(attach.header()), 0,
            attach.header().length).bytes()).as("the attach proves it knows the secret the set-up was given")
            .isEqualTo(PeerFrames.SECRET);
        second.deliver(PeerFrames.attachAccept(attach.requestId(), ScriptedEngine.SESSION_ID));
        client.turn();
        assertThat(session.connectionCount()).isEqualTo(1);

        ((SessionImpl)session).engine.reconnectJitter = () -> -1L;
        final long lostAgain = client.clock.nanoTime();
        second.reset();
        client.advance(Duration.ofMillis(4));
        assertThat(client.wire.links).as("no retry before the first backoff").hasSize(2);
        client.advance(Duration.ofMillis(3));
        assertThat(client.wire.links).hasSize(3);
        assertThat(client.wire.connectTimes.get(2) - lostAgain).as("the first backoff again, not a later one")
            .isBetween(ClientHandshake.RECONNECT.ceilingNanos(0),
                ClientHandshake.RECONNECT.ceilingNanos(0) + TICK_SLACK);
    }

    @Test
    void aRejectedSetUpFailsTheOpeningWithTheServersReason()
    {
        final CompletableFuture<Session> opening = open();
        final ScriptedWire.Link link = client.wire.last();
        link.deliver(PeerFrames.frame(FrameType.SETUP_REJECT, 0, 0, setupToken(link), 0,
            new SetupCodec.Writer().string("not today").u8(SetupCodec.REJECT_REFUSED).toBytes()));
        client.turn();
        assertThat(opening).isCompletedExceptionally();
        assertThat(opening.handle((s, ex) -> ex).join()).isInstanceOf(SessionRejectedException.class)
            .hasMessageContaining("not today")
            .satisfies(ex -> assertThat(((SessionRejectedException)ex).isAuthenticationFailure()).isFalse());
    }

    @Test
    void aRejectCodedAuthenticationSaysSo()
    {
        final CompletableFuture<Session> opening = open();
        final ScriptedWire.Link link = client.wire.last();
        link.deliver(PeerFrames.frame(FrameType.SETUP_REJECT, 0, 0, setupToken(link), 0,
            new SetupCodec.Writer().string("authentication failed").u8(SetupCodec.REJECT_AUTHENTICATION).toBytes()));
        client.turn();
        assertThat(opening.handle((s, ex) -> ex).join()).isInstanceOf(SessionRejectedException.class)
            .satisfies(ex -> assertThat(((SessionRejectedException)ex).isAuthenticationFailure()).isTrue());
    }

    @Test
    void theCredentialsSupplierIsAskedAtEverySetUpAndItsAnswerSent()
    {
        final java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        final CompletableFuture<Session> opening = client.engine.openSession("wire://server/kv", SessionOptions
            .DEFAULT.withCredentials(() -> io.xio.engine.Credentials.bearer("token-" + asked.incrementAndGet()))
            .withCredentialsOnRedirect(true));
        client.turn();
        final ScriptedWire.Link first = client.wire.last();
        assertThat(credentialsOf(first.sent(FrameType.SETUP).get(0))).isEqualTo(io.xio.engine.Credentials
            .bearer("token-1"));
        first.deliver(PeerFrames.frame(FrameType.SETUP_REDIRECT, 0, 0, setupToken(first), 0,
            new SetupCodec.Writer().strings(List.of("wire://elsewhere")).toBytes()));
        client.turn();
        final ScriptedWire.Sent again = client.wire.last().sent(FrameType.SETUP).get(0);
        assertThat(credentialsOf(again)).as("asked again, not kept").isEqualTo(io.xio.engine.Credentials
            .bearer("token-2"));
        client.wire.last().deliver(PeerFrames.setupAccept(again.requestId(), 5));
        client.turn();
        assertThat(opening.join().id()).isEqualTo(5);
        assertThat(asked).hasValue(2);
    }

    @Test
    void credentialsDoNotFollowARedirectToAnotherHostUnlessAllowed()
    {
        final CompletableFuture<Session> opening = client.engine.openSession("wire://server/kv", SessionOptions
            .DEFAULT.withCredentials(io.xio.engine.Credentials.bearer("secret-token")));
        client.turn();
        final ScriptedWire.Link first = client.wire.last();
        first.deliver(PeerFrames.frame(FrameType.SETUP_REDIRECT, 0, 0, setupToken(first), 0,
            new SetupCodec.Writer().strings(List.of("wire://elsewhere")).toBytes()));
        client.turn();
        assertThat(opening.handle((s, ex) -> ex).join()).isInstanceOf(io.xio.engine.XioException.class)
            .hasMessageContaining("another host than server").hasMessageContaining("withCredentialsOnRedirect")
            .hasMessageNotContaining("secret-token");
        assertThat(client.wire.links).as("elsewhere was not dialled").hasSize(1);
    }

    @Test
    void credentialsFollowARedirectToAnotherPortOfTheSameHost()
    {
        final CompletableFuture<Session> opening = client.engine.openSession("wire://server/kv", SessionOptions
            .DEFAULT.withCredentials(io.xio.engine.Credentials.bearer("secret-token")));
        client.turn();
        final ScriptedWire.Link first = client.wire.last();
        first.deliver(PeerFrames.frame(FrameType.SETUP_REDIRECT, 0, 0, setupToken(first), 0,
            new SetupCodec.Writer().strings(List.of("wire://server:2")).toBytes()));
        client.turn();
        final ScriptedWire.Sent again = client.wire.last().sent(FrameType.SETUP).get(0);
        assertThat(credentialsOf(again)).isEqualTo(io.xio.engine.Credentials.bearer("secret-token"));
        client.wire.last().deliver(PeerFrames.setupAccept(again.requestId(), 5));
        client.turn();
        assertThat(opening.join().id()).isEqualTo(5);
    }

    @Test
    void aConnectionPortalOnAnotherHostIsSkippedAndGetsNoAttachWithTheSecret()
    {
        // No credentials, and allowed to follow redirects with them: the ATTACH's secret is what is at stake.
        final CompletableFuture<Session> opening = client.engine.openSession("wire://server/kv", SessionOptions
            .DEFAULT.withConnections(3).withCredentialsOnRedirect(true));
        client.turn();
        final ScriptedWire.Link first = client.wire.last();
        first.deliver(PeerFrames.frame(FrameType.SETUP_ACCEPT, 0, 5, setupToken(first), 0,
            PeerFrames.sizes(new SetupCodec.Writer().map(Map.of()).i32(1024).i32(4096).bytes(PeerFrames.SECRET))
                .strings(List.of("wire://evil:9", "wire://server:2")).toBytes()));
        client.turn();
        assertThat(client.wire.dialled).as("the hostile server's other host is never dialled")
            .doesNotContain(XioUri.parse("wire://evil:9")).contains(XioUri.parse("wire://server:2"));
        for (final ScriptedWire.Link link : client.wire.links)
        {
            for (final ScriptedWire.Sent attach : link.sent(FrameType.ATTACH))
            {
                link.deliver(PeerFrames.frame(FrameType.ATTACH_ACCEPT, 0, 5, attach.requestId(), 0, new byte[0]));
            }
        }
        client.turn();
        assertThat(opening.join().connectionCount()).isEqualTo(3);
    }

    @Test
    void aRedirectWeakensCredentialsWhenItLeavesTlsOrTheMachineOrTheHost()
    {
        assertThat(ClientHandshake.weakenedBy(XioUri.parse("tls://h:1/x"), XioUri.parse("tcp://h:1")))
            .isEqualTo("from tls to tcp");
        assertThat(ClientHandshake.weakenedBy(XioUri.parse("tls://h:1/x"), XioUri.parse("rdma://h:1")))
            .isEqualTo("from tls to rdma");
        assertThat(ClientHandshake.weakenedBy(XioUri.parse("shm://kv/x"), XioUri.parse("tcp://kv:1")))
            .contains("to the network");
        assertThat(ClientHandshake.weakenedBy(XioUri.parse("tcp://h:1/x"), XioUri.parse("tcp://other:1")))
            .contains("another host");
        assertThat(ClientHandshake.weakenedBy(XioUri.parse("tls://h:1/x"), XioUri.parse("tls://other:1")))
            .contains("another host");
        assertThat(ClientHandshake.weakenedBy(XioUri.parse("tls://h:1/x"), XioUri.parse("tls://H:2"))).isNull();
        assertThat(ClientHandshake.weakenedBy(XioUri.parse("tcp://h:1/x"), XioUri.parse("tls://h:2"))).isNull();
        assertThat(ClientHandshake.weakenedBy(XioUri.parse("shm://kv/x"), XioUri.parse("shm://kv2"))).isNull();
        assertThat(ClientHandshake.weakenedBy(XioUri.parse("shm://kv/x"), XioUri.parse("local://kv"))).isNull();
    }

    @Test
    void aRejectWithoutItsCodeIsARefusal()
    {
        final CompletableFuture<Session> opening = open();
        final ScriptedWire.Link link = client.wire.last();
        link.deliver(PeerFrames.frame(FrameType.SETUP_REJECT, 0, 0, setupToken(link), 0,
            new SetupCodec.Writer().string("an older server says no").toBytes()));
        client.turn();
        assertThat(opening.handle((s, ex) -> ex).join()).isInstanceOf(SessionRejectedException.class)
            .hasMessageContaining("an older server says no")
            .satisfies(ex -> assertThat(((SessionRejectedException)ex).isAuthenticationFailure()).isFalse());
    }

    @Test
    void aCredentialsSupplierThatThrowsFailsTheSetUpWithoutSendingIt()
    {
        final CompletableFuture<Session> opening = client.engine.openSession("wire://server/kv", SessionOptions
            .DEFAULT.withCredentials(() ->
            {
                throw new IllegalStateException("token service down");
            }));
        client.turn();
        assertThat(opening.handle((s, ex) -> ex).join()).isInstanceOf(io.xio.engine.XioException.class)
            .hasMessageContaining("credentials supplier").hasMessageContaining("token service down");
        assertThat(client.wire.links).as("nothing dialled").isEmpty();
    }

    /** The credentials field of a SETUP the client sent: after hops, resource, attributes and the five limits. */
    private static io.xio.engine.Credentials credentialsOf(final ScriptedWire.Sent setup)
    {
        final SetupCodec.Reader body = new SetupCodec.Reader(new UnsafeBuffer(setup.header()), 0,
            setup.header().length);
        body.u8();
        body.string();
        body.map();
        for (int i = 0; i < 6; i++)
        {
            body.i32();
        }
        return body.credentials();
    }

    @Test
    void aRedirectSetsTheSessionUpAtTheNamedPortal()
    {
        final CompletableFuture<Session> opening = open();
        final ScriptedWire.Link first = client.wire.last();
        first.deliver(PeerFrames.frame(FrameType.SETUP_REDIRECT, 0, 0, setupToken(first), 0,
            new SetupCodec.Writer().strings(List.of("wire://elsewhere")).toBytes()));
        client.turn();
        final ScriptedWire.Link second = client.wire.last();
        assertThat(second).isNotSameAs(first);
        final ScriptedWire.Sent setup = second.sent(FrameType.SETUP).get(0);
        assertThat(new SetupCodec.Reader(new org.agrona.concurrent.UnsafeBuffer(setup.header()), 0,
            setup.header().length).u8()).as("hops").isEqualTo(1);
        second.deliver(PeerFrames.setupAccept(setup.requestId(), 5));
        client.turn();
        assertThat(opening.join().id()).isEqualTo(5);
    }

    @Test
    void aSetUpAcceptedAfterTheSessionClosedIsClosedAtTheServer()
    {
        final CompletableFuture<Session> opening = open();
        final ScriptedWire.Link link = client.wire.last();
        client.engine.sessions().forEach(Session::close);
        client.turn();
        link.deliver(PeerFrames.setupAccept(setupToken(link), 91));
        client.turn();
        assertThat(opening).isCompletedExceptionally();
        assertThat(link.sent(FrameType.CLOSE)).singleElement()
            .satisfies(f -> assertThat(f.sessionId()).isEqualTo(91));
        assertThat(link.isClosed()).as("released: nothing else uses it").isTrue();
    }

    @Test
    void aSetUpNobodyAnswersFailsAfterTheConnectTimeout()
    {
        final CompletableFuture<Session> opening = open();
        client.advance(Duration.ofMillis(999));
        assertThat(opening).isNotDone();
        client.advance(Duration.ofMillis(2));
        assertThat(opening.handle((s, ex) -> ex).join()).isInstanceOf(ConnectionException.class)
            .hasMessageContaining("no answer to the session set-up");
    }
}
