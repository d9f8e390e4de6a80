package io.xio.engine.hostile;

import io.xio.engine.PortalOptions;
import io.xio.engine.Limits;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.PeerRefusal;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.TestEngines;
import io.xio.engine.TlsOptions;
import io.xio.engine.XioEngine;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.transport.tls.TestCertificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import static io.xio.engine.TestEngines.ECHO;
import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What a hostile peer can do to a TLS portal, from raw sockets: plaintext garbage, a TLS client driven by hand
 * ({@link TlsStreams}) that trickles a record, renegotiates, or attaches with a stolen session secret but without
 * the certificate that set the session up. Attackers connect from 127.0.0.2, another host for per-peer limits.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TlsHostilePeerTest
{
    private static final String ATTACKER = "127.0.0.2";
    private static final TestCertificates CERTIFICATES = TestCertificates.create();
    private static final List<String> TLS13 = List.of("TLSv1.3");
    private static final List<String> TLS12 = List.of("TLSv1.2");

    private final TestEngines engines = new TestEngines();
    private final List<Socket> sockets = new ArrayList<>();

    /** A TLS client end and the frames over it. */
    private record TlsPeer(RawPeer frames, TlsStreams tls)
    {
    }

    @AfterEach
    void close() throws IOException
    {
        for (final Socket socket : sockets)
        {
            socket.close();
        }
        engines.close();
    }

    private XioEngine server(final Limits limits, final TlsOptions tls)
    {
        final XioEngine server = engines.start(engines.builder("server").limits(limits).tls(tls));
        server.register("echo", ECHO);
        return server;
    }

    private static SSLContext clientContext(final TestCertificates.Identity identity)
    {
        return TestCertificates.context(identity, CERTIFICATES.ca().certificate());
    }

    private Socket socket(final String from, final Portal portal, final int receiveBuffer) throws IOException
    {
        final Socket socket = new Socket();
        sockets.add(socket);
        if (receiveBuffer > 0)
        {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), portal.uri().port()), 5_000);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** A TLS client from {@code from}, handshaken, with {@code identity}'s certificate (none when null). */
    private TlsPeer tlsPeer(final Portal portal, final String from, final TestCertificates.Identity identity,
        final List<String> protocols, final int receiveBuffer) throws IOException
    {
        final Socket socket = socket(from, portal, receiveBuffer);
        final TlsStreams tls = new TlsStreams(socket, clientContext(identity), protocols);
        return new TlsPeer(new RawPeer(socket, tls.input(), tls.output()), tls);
    }

    private TlsPeer tlsPeer(final Portal portal, final String from, final TestCertificates.Identity identity,
        final List<String> protocols) throws IOException
    {
        return tlsPeer(portal, from, identity, protocols, 0);
    }

    private static void stillServes(final Session session, final String what) throws Exception
    {
        try (Message reply = session.request(Outbound.of(utf8(what))).get(5, TimeUnit.SECONDS))
        {
            assertThat(text(reply.header())).isEqualTo(what);
        }
    }

    @Test
    void aRecordTrickledAByteAtATimeIsClosedAsASlowFrame() throws Exception
    {
        final XioEngine server = server(Limits.DEFAULT, CERTIFICATES.serverOptions());
        final Portal portal = server.bind("tls://127.0.0.1:0");
        final TlsPeer trickler = tlsPeer(portal, ATTACKER, null, TLS13);
        final long session = trickler.frames().setUp("echo"); // past the handshake, where frames may be large
        // The record's bytes sit before the frame assembler, which sees none of them until the record is whole.
        final byte[] record = trickler.tls().seal(RawPeer.request(session, 1, new byte[64]));
        final long start = System.nanoTime();
        boolean taken = true;
        for (int i = 0; i < record.length - 1 && taken; i++)
        {
            try
            {
                trickler.tls().sendRaw(new byte[] {record[i]});
            }
            catch (final IOException closed)
            {
                taken = false;
            }
            Thread.sleep(100);
            taken &= server.refusals(PeerRefusal.SLOW_FRAME) == 0;
        }
        assertThat(server.refusals(PeerRefusal.SLOW_FRAME)).isEqualTo(1);
        assertThat(System.nanoTime() - start).as("closed with the default limits, before the record completed")
            .isLessThan(TimeUnit.MILLISECONDS.toNanos(100L * (record.length - 1)));
        assertThat(trickler.frames().closedWithin(Duration.ofSeconds(5))).isTrue();
    }

    @Test
    void anAttachWithAStolenSecretNeedsTheCertificateAndThePortalOfTheSetUp() throws Exception
    {
        final XioEngine server = server(Limits.DEFAULT, CERTIFICATES.serverOptions());
        final Portal portal = server.bind("tls://127.0.0.1:0",
            PortalOptions.DEFAULT.withTls(CERTIFICATES.serverOptions().withClientAuth(TlsOptions.ClientAuth.WANT)));
        final Portal plain = server.bind("tcp://127.0.0.1:0");
        final TlsPeer victim = tlsPeer(portal, "127.0.0.1", CERTIFICATES.client(), TLS13);
        victim.frames().send(RawPeer.setup(1, "echo"));
        final RawPeer.Received accept = victim.frames().read(Duration.ofSeconds(5));
        assertThat(accept.type()).isEqualTo(FrameType.SETUP_ACCEPT);
        final SetupCodec.Reader body = accept.reader();
        body.map();
        body.i32();
        body.i32();
        final byte[] secret = body.bytes(); // stolen, say from the victim's memory or logs
        final long id = accept.sessionId();

        final List<String> reasons = new ArrayList<>();
        final TestCertificates.Identity other = CERTIFICATES.issue("other-client", List.of(), List.of(),
            Duration.ofDays(1), Duration.ofDays(2), CERTIFICATES.ca());
        for (final TestCertificates.Identity identity : new TestCertificates.Identity[] {null, other})
        {
            final RawPeer thief = tlsPeer(portal, ATTACKER, identity, TLS13).frames();
            thief.send(RawPeer.attach(1, id, secret));
            final RawPeer.Received reject = thief.read(Duration.ofSeconds(5));
            assertThat(reject.type()).as("certificate %s", identity == null ? "none" : identity.subject())
                .isEqualTo(FrameType.ATTACH_REJECT);
            reasons.add(reject.reader().string());
        }
        final RawPeer elsewhere = new RawPeer(ATTACKER, plain.uri().port(), 0);
        try (elsewhere)
        {
            elsewhere.send(RawPeer.attach(1, id, secret));
            final RawPeer.Received reject = elsewhere.read(Duration.ofSeconds(5));
            assertThat(reject.type()).as("through another portal").isEqualTo(FrameType.ATTACH_REJECT);
            reasons.add(reject.reader().string());
        }
        final RawPeer unknown = tlsPeer(portal, ATTACKER, null, TLS13).frames();
        unknown.send(RawPeer.attach(1, id + 1_000, secret));
        final String noSuchSession = unknown.read(Duration.ofSeconds(5)).reader().string();
        assertThat(reasons).as("the same answer as for a session that does not exist").containsOnly(noSuchSession);
        assertThat(server.refusals(PeerRefusal.ATTACH_PROOF)).isEqualTo(4);

        // The certificate that set the session up attaches with the secret, and the session serves both.
        final RawPeer second = tlsPeer(portal, "127.0.0.1", CERTIFICATES.client(), TLS13).frames();
        second.send(RawPeer.attach(2, id, secret));
        assertThat(second.read(Duration.ofSeconds(5)).type()).isEqualTo(FrameType.ATTACH_ACCEPT);
        for (final RawPeer peer : new RawPeer[] {victim.frames(), second})
        {
            peer.send(RawPeer.request(id, peer == second ? 2 : 1, "mine".getBytes(StandardCharsets.UTF_8)));
            final RawPeer.Received reply = peer.answer();
            assertThat(reply.type()).isEqualTo(FrameType.RESPONSE);
            assertThat(new String(reply.body(), StandardCharsets.UTF_8)).isEqualTo("mine");
        }
    }

    @Test
    void aTls12RenegotiationClosesTheConnection() throws Exception
    {
        final XioEngine server = server(Limits.DEFAULT, CERTIFICATES.serverOptions().withProtocols(List.of(
            "TLSv1.3", "TLSv1.2")));
        final Portal portal = server.bind("tls://127.0.0.1:0");
        final TlsPeer peer = tlsPeer(portal, ATTACKER, null, TLS12);
        assertThat(peer.tls().protocol()).isEqualTo("TLSv1.2");
        final long session = peer.frames().setUp("echo");
        RawPeer.Received answer;
        try
        {
            peer.tls().rehandshake(); // a full handshake on the server's context thread, as often as it likes
            peer.frames().send(RawPeer.request(session, 1, utf8Bytes("after")));
            answer = peer.frames().answer();
        }
        catch (final IOException closed)
        {
            answer = null;
        }
        assertThat(answer).as("closed, not answered").isNull();
        await().atMost(Duration.ofSeconds(5)).until(() -> server.refusals(PeerRefusal.TLS_HANDSHAKE) == 1);
        // A TLS 1.2 peer's orderly close, which the server must answer with its own close_notify, is no renegotiation.
        final TlsPeer closing = tlsPeer(portal, "127.0.0.1", null, TLS12);
        closing.frames().setUp("echo");
        closing.tls().closeNotify();
        assertThat(closing.frames().closedWithin(Duration.ofSeconds(5))).isTrue();
        assertThat(server.refusals(PeerRefusal.TLS_HANDSHAKE)).isEqualTo(1);
    }

    @Test
    void tls13KeyUpdatesAreAnswered() throws Exception
    {
        final XioEngine server = server(Limits.DEFAULT, CERTIFICATES.serverOptions());
        final Portal portal = server.bind("tls://127.0.0.1:0");
        final TlsPeer peer = tlsPeer(portal, ATTACKER, null, TLS13);
        assertThat(peer.tls().protocol()).isEqualTo("TLSv1.3");
        final long session = peer.frames().setUp("echo");
        for (int i = 1; i <= 3; i++)
        {
            peer.tls().rehandshake(); // TLS 1.3: a KeyUpdate asking the server to update its keys too
            peer.frames().send(RawPeer.request(session, i, utf8Bytes("after update " + i)));
            final RawPeer.Received reply = peer.frames().answer();
            assertThat(reply.type()).isEqualTo(FrameType.RESPONSE);
            assertThat(new String(reply.body(), StandardCharsets.UTF_8)).isEqualTo("after update " + i);
        }
        assertThat(server.refusals(PeerRefusal.TLS_HANDSHAKE)).isZero();
    }

    @Test
    void aHostWhoseHandshakesKeepFailingIsClosedBeforeAnyHandshakeWork() throws Exception
    {
        // A handshake timeout long enough that a socket closed at once was not closed by it.
        final XioEngine server = server(Limits.DEFAULT.withHandshakeTimeout(Duration.ofSeconds(60)),
            CERTIFICATES.serverOptions());
        final Portal portal = server.bind("tls://127.0.0.1:0");
        for (int i = 0; i < 16; i++)
        {
            try (RawPeer garbage = new RawPeer(ATTACKER, portal.uri().port(), 0))
            {
                garbage.send(RawPeer.setup(1, "echo")); // plaintext: a failed handshake
                assertThat(garbage.closedWithin(Duration.ofSeconds(5))).isTrue();
            }
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> server.refusals(PeerRefusal.TLS_HANDSHAKE) == 16);
        // Over the limit, even a proper TLS client of that host gets no handshake, and a silent one is closed at once.
        assertThatThrownBy(() -> tlsPeer(portal, ATTACKER, null, TLS13)).isInstanceOf(IOException.class);
        try (RawPeer silent = new RawPeer(ATTACKER, portal.uri().port(), 0))
        {
            assertThat(silent.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
        assertThat(server.refusals(PeerRefusal.TLS_HANDSHAKE)).isEqualTo(18);
        // Another host is not refused for what that one did.
        final XioEngine client = engines.start(engines.builder("client").tls(CERTIFICATES.options(null)));
        try (Session session = client.connect(portal.uri().withResource("echo").toString()))
        {
            stillServes(session, "not refused");
        }
        assertThat(server.refusals(PeerRefusal.TLS_HANDSHAKE)).isEqualTo(18);
    }

    @Test
    void connectionsAreLimitedPerPeerBeforeAnyTlsStateIsMadeAndThoseThatNeverHandshakeAreClosed() throws Exception
    {
        final SSLContext context = CERTIFICATES.serverOptions().context().get();
        final LongAdder made = new LongAdder();
        final XioEngine server = server(Limits.DEFAULT.withMaxConnectionsPerPeer(40)
            .withHandshakeTimeout(Duration.ofSeconds(1)), TlsOptions.of(() ->
            {
                made.increment(); // asked once for each SSLEngine made
                return context;
            }));
        final Portal portal = server.bind("tls://127.0.0.1:0");
        final List<RawPeer> all = new ArrayList<>();
        for (int i = 0; i < 60; i++)
        {
            all.add(new RawPeer(ATTACKER, portal.uri().port(), 0));
        }
        try
        {
            await().atMost(Duration.ofSeconds(5))
                .until(() -> server.refusals(PeerRefusal.CONNECTION_LIMIT) == 20 && made.sum() >= 40);
            assertThat(made.sum()).as("SSLEngines made: none for the connections refused").isEqualTo(40);
            await().atMost(Duration.ofSeconds(5)).until(() -> server.refusals(PeerRefusal.HANDSHAKE_TIMEOUT) == 40);
            for (final RawPeer peer : all)
            {
                assertThat(peer.closedWithin(Duration.ofSeconds(2))).isTrue();
            }
        }
        finally
        {
            for (final RawPeer peer : all)
            {
                peer.close();
            }
        }
        final XioEngine client = engines.start(engines.builder("client").tls(CERTIFICATES.options(null)));
        try (Session session = client.connect(portal.uri().withResource("echo").toString()))
        {
            stillServes(session, "another host connects");
        }
        assertThat(server.refusals(PeerRefusal.TLS_HANDSHAKE)).isZero();
    }

    @Test
    void aTlsPeerThatNeverReadsIsDisconnectedForTheWriteStall() throws Exception
    {
        final Limits limits = Limits.DEFAULT.withMaxQueuedBytes(1 << 20).withMaxUnsentBytes(4 << 20)
            .withWriteStallTimeout(Duration.ofSeconds(2));
        final XioEngine server = server(limits, CERTIFICATES.serverOptions());
        final ByteBuffer big = ByteBuffer.allocateDirect(256 << 10);
        server.register("big", request ->
        {
            request.message().close();
            request.respond(Outbound.of(utf8("big"), big.duplicate()));
        });
        final Portal portal = server.bind("tls://127.0.0.1:0");
        final XioEngine client = engines.start(engines.builder("client").tls(CERTIFICATES.options(null)));
        try (Session session = client.connect(portal.uri().withResource("echo").toString()))
        {
            stillServes(session, "warm up");
            final long directBefore = directBytes();
            final TlsPeer reader = tlsPeer(portal, ATTACKER, null, TLS13, 4096);
            final long id = reader.frames().setUp("big");
            long peakDirect = 0;
            boolean cut = false;
            long next = 1;
            final long start = System.nanoTime();
            while (!cut && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20))
            {
                for (int i = 0; i < 10 && !cut; i++)
                {
                    cut = !reader.frames().trySend(RawPeer.request(id, next++, new byte[8]));
                }
                peakDirect = Math.max(peakDirect, directBytes() - directBefore);
                stillServes(session, "meanwhile " + next);
                cut |= server.refusals(PeerRefusal.WRITE_STALL) + server.refusals(PeerRefusal.UNSENT_LIMIT) > 0;
                Thread.sleep(100);
            }
            assertThat(cut).as("the peer that never reads is disconnected").isTrue();
            assertThat(server.refusals(PeerRefusal.WRITE_STALL)).isEqualTo(1);
            assertThat(peakDirect).as("what the peer cost: unsent bound plus one message plus buffers")
                .isLessThan(12L << 20);
            stillServes(session, "after");
        }
    }

    private static byte[] utf8Bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static long directBytes()
    {
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if (pool.getName().equals("direct"))
            {
                return pool.getMemoryUsed();
            }
        }
        throw new IllegalStateException("no direct buffer pool bean");
    }
}
