package io.xio.engine.transport.tls;

import io.xio.engine.PortalOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.PeerIdentity;
import io.xio.engine.PeerRefusal;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.SessionAcceptor;
import io.xio.engine.SessionOptions;
import io.xio.engine.SetupDecision;
import io.xio.engine.TestEngines;
import io.xio.engine.TlsHandshakeException;
import io.xio.engine.TlsOptions;
import io.xio.engine.XioEngine;
import io.xio.engine.XioException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static io.xio.engine.TestEngines.ECHO;
import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What the {@code tls} transport adds to tcp, through the public API: mutual TLS accepted and refused, certificates
 * refused with their reason (untrusted, expired, another host's), a plaintext client on a TLS portal, a TLS session's
 * further connections kept on TLS when its acceptor names a plaintext connection portal, raw sockets that never
 * finish the handshake, a reloaded context, the peer's certificate at the acceptor and in the session, and a turn's
 * frames coalescing into few records.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsTransportTest
{
    private static final TestCertificates CERTIFICATES = TestCertificates.create();

    private final TestEngines engines = new TestEngines();

    @AfterEach
    void closeEngines()
    {
        engines.close();
    }

    private XioEngine server(final TlsOptions tls)
    {
        final XioEngine engine = engines.start(engines.builder("server").tls(tls));
        engine.register("echo", ECHO);
        return engine;
    }

    private XioEngine client()
    {
        return engines.start(engines.builder("client").tls(CERTIFICATES.options(null)));
    }

    private static String echo(final Session session, final String text) throws Exception
    {
        try (Message reply = session.request(Outbound.of(utf8(text))).get(5, TimeUnit.SECONDS))
        {
            return text(reply.header());
        }
    }

    private static String uri(final Portal portal, final String resource)
    {
        return portal.uri().withResource(resource).toString();
    }

    @Test
    void mutualTlsShowsTheClientCertificateToTheAcceptorAndTheService() throws Exception
    {
        final XioEngine server = server(CERTIFICATES.serverOptions());
        server.register("who", request ->
        {
            final PeerIdentity peer = request.session().peer();
            request.message().close();
            request.respond(Outbound.of(utf8(peer.certificate().getSubjectX500Principal().getName() + " " +
                peer.tlsProtocol())));
        });
        final List<PeerIdentity> seen = new CopyOnWriteArrayList<>();
        final Portal portal = server.bind("tls://127.0.0.1:0", PortalOptions.DEFAULT.withAcceptor(request ->
        {
            seen.add(request.peer());
            return SessionAcceptor.DEFAULT.onSetup(request);
        }).withTls(CERTIFICATES.serverOptions().withClientAuth(TlsOptions.ClientAuth.REQUIRE)));
        final XioEngine client = client();
        try (Session session = client.connect(uri(portal, "who"),
            SessionOptions.DEFAULT.withTls(CERTIFICATES.options(CERTIFICATES.client()))))
        {
            try (Message reply = session.request(Outbound.of(utf8("?"))).get(5, TimeUnit.SECONDS))
            {
                assertThat(text(reply.header())).isEqualTo("CN=client TLSv1.3");
            }
        }
        assertThat(seen).hasSize(1);
        assertThat(seen.get(0).isTls()).isTrue();
        assertThat(seen.get(0).tlsProtocol()).isEqualTo("TLSv1.3");
        assertThat(seen.get(0).certificate()).isEqualTo(CERTIFICATES.client().certificate());
        assertThat(seen.get(0).address()).startsWith("tls://127.0.0.1:");
        assertThat(server.refusals(PeerRefusal.TLS_HANDSHAKE)).isZero();
    }

    @Test
    void aPortalThatWantsACertificateLetsAClientWithoutOneIn() throws Exception
    {
        final XioEngine server = server(CERTIFICATES.serverOptions());
        final List<PeerIdentity> seen = new CopyOnWriteArrayList<>();
        final Portal portal = server.bind("tls://127.0.0.1:0", PortalOptions.DEFAULT.withAcceptor(request ->
        {
            seen.add(request.peer());
            return SessionAcceptor.DEFAULT.onSetup(request);
        }).withTls(CERTIFICATES.serverOptions().withClientAuth(TlsOptions.ClientAuth.WANT)));
        try (Session session = client().connect(uri(portal, "echo")))
        {
            assertThat(echo(session, "in")).isEqualTo("in");
        }
        assertThat(seen).singleElement().satisfies(peer ->
        {
            assertThat(peer.isTls()).isTrue();
            assertThat(peer.certificates()).isEmpty();
        });
    }

    @Test
    void aPortalThatRequiresACertificateRefusesAClientWithoutOne() throws Exception
    {
        final XioEngine server = server(CERTIFICATES.serverOptions().withClientAuth(TlsOptions.ClientAuth.REQUIRE));
        final Portal portal = server.bind("tls://127.0.0.1:0");
        final XioEngine client = client();
        // TLS 1.3: the client is done with the handshake before the server checks it, and hears of it in an alert
        assertThatThrownBy(() -> client.connect(uri(portal, "echo")))
            .isInstanceOf(TlsHandshakeException.class)
            .hasMessageContaining("the server requires a client certificate, and this client presented none");
        await().atMost(Duration.ofSeconds(5)).until(() -> server.refusals(PeerRefusal.TLS_HANDSHAKE) == 1);
        // the portal still serves a client that has one
        try (Session session = client.connect(uri(portal, "echo"),
            SessionOptions.DEFAULT.withTls(CERTIFICATES.options(CERTIFICATES.client()))))
        {
            assertThat(echo(session, "with")).isEqualTo("with");
        }
    }

    @Test
    void aClientCertificateFromAnUntrustedAuthorityIsRefused()
    {
        final XioEngine server = server(CERTIFICATES.serverOptions().withClientAuth(TlsOptions.ClientAuth.REQUIRE));
        final Portal portal = server.bind("tls://127.0.0.1:0");
        assertThatThrownBy(() -> client().connect(uri(portal, "echo"),
            SessionOptions.DEFAULT.withTls(CERTIFICATES.options(CERTIFICATES.untrustedClient()))))
            .isInstanceOf(ConnectionException.class)
            .hasMessageContaining("did not accept this end's certificate");
        await().atMost(Duration.ofSeconds(5)).until(() -> server.refusals(PeerRefusal.TLS_HANDSHAKE) == 1);
    }

    @Test
    void anExpiredServerCertificateIsRefusedNamingTheExpiry()
    {
        final XioEngine server = server(TlsOptions.of(TestCertificates.context(CERTIFICATES.expiredServer(),
            CERTIFICATES.ca().certificate())));
        final Portal portal = server.bind("tls://127.0.0.1:0");
        assertThatThrownBy(() -> client().connect(uri(portal, "echo")))
            .isInstanceOf(TlsHandshakeException.class)
            .hasMessageContaining("the server's certificate has expired");
    }

    @Test
    void anUntrustedServerCertificateIsRefusedSayingSo()
    {
        final XioEngine server = server(TlsOptions.of(TestCertificates.context(CERTIFICATES.untrustedServer(),
            CERTIFICATES.ca().certificate())));
        final Portal portal = server.bind("tls://127.0.0.1:0");
        assertThatThrownBy(() -> client().connect(uri(portal, "echo")))
            .isInstanceOf(TlsHandshakeException.class)
            .hasMessageContaining("the server's certificate is not trusted");
    }

    @Test
    void aCertificateForAnotherHostIsRefusedUnlessHostNamesGoUnchecked() throws Exception
    {
        final TestCertificates.Identity other = CERTIFICATES.issue("other", List.of("other.example"), List.of(),
            Duration.ofDays(1), Duration.ofDays(2), CERTIFICATES.ca());
        final XioEngine server = server(TlsOptions.of(TestCertificates.context(other,
            CERTIFICATES.ca().certificate())));
        final Portal portal = server.bind("tls://127.0.0.1:0");
        final XioEngine client = client();
        assertThatThrownBy(() -> client.connect(uri(portal, "echo")))
            .isInstanceOf(TlsHandshakeException.class)
            .hasMessageContaining("does not name the host dialled");
        try (Session session = client.connect(uri(portal, "echo"),
            SessionOptions.DEFAULT.withTls(CERTIFICATES.options(null).withVerifyHostname(false))))
        {
            assertThat(echo(session, "unchecked")).isEqualTo("unchecked");
        }
    }

    @Test
    void aPlaintextClientOnATlsPortalFailsAtOnceAndThePortalServesOthers() throws Exception
    {
        final XioEngine server = server(CERTIFICATES.serverOptions());
        final Portal portal = server.bind("tls://127.0.0.1:0");
        final XioEngine client = client();
        final String plaintext = "tcp://127.0.0.1:" + portal.uri().port() + "/echo";
        assertThatThrownBy(() -> client.connect(plaintext))
            .isInstanceOf(ConnectionException.class)
            .hasMessageContaining("it is a TLS portal (connect with tls://)")
            .hasMessageNotContaining("no answer"); // failed at once, not when the set-up timed out
        await().atMost(Duration.ofSeconds(5)).until(() -> server.refusals(PeerRefusal.TLS_HANDSHAKE) == 1);
        try (Session session = client.connect(uri(portal, "echo")))
        {
            assertThat(echo(session, "still serving")).isEqualTo("still serving");
        }
    }

    @Test
    void aPlaintextServerWhoseAnswerStartsLikeAnAlertIsNotCalledATlsPortal() throws Exception
    {
        try (ServerSocket fake = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            final Thread answering = new Thread(() ->
            {
                try (Socket socket = fake.accept())
                {
                    final java.io.DataInputStream in = new java.io.DataInputStream(socket.getInputStream());
                    final byte[] length = new byte[4];
                    in.readFully(length); // the SETUP, read whole: closing with bytes unread would reset instead
                    in.readFully(new byte[ByteBuffer.wrap(length).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt() -
                        4]);
                    socket.getOutputStream().write(new byte[] {21, 'n', 'o', 't', ' ', 'T', 'L', 'S'});
                    socket.shutdownOutput();
                    in.read();
                }
                catch (final IOException ignore)
                {
                    // the test fails on what the client reports
                }
            });
            answering.start();
            final XioEngine plain = engines.start("plain");
            assertThatThrownBy(() -> plain.connect("tcp://127.0.0.1:" + fake.getLocalPort() + "/echo"))
                .isInstanceOf(ConnectionException.class)
                .hasMessageContaining("connection closed by peer")
                .hasMessageNotContaining("TLS portal");
            answering.join(5_000);
        }
    }

    @Test
    void aConnectionHoldsNoNetworkBufferOnceItsBytesAreThrough() throws Exception
    {
        final TlsTransport transport = new TlsTransport();
        // Sweeps (which trim idle buffers too) once a second only: what is back sooner, the link gave back itself.
        final XioEngine server = engines.start(engines.builder("server").tls(CERTIFICATES.serverOptions())
            .transport(transport).keepalive(Duration.ofSeconds(5), Duration.ofSeconds(30)));
        final ByteBuffer big = ByteBuffer.allocateDirect(1 << 20);
        server.register("big", request ->
        {
            request.message().close();
            request.respond(Outbound.of(utf8("big"), big.duplicate()));
        });
        final Portal portal = server.bind("tls://127.0.0.1:0");
        try (Session session = client().connect(uri(portal, "big")))
        {
            for (int i = 0; i < 5; i++)
            {
                // 1 MiB out: several network buffers' worth, and records across the ends of the receive buffers
                try (Message reply = session.request(Outbound.of(utf8("go"), ByteBuffer.allocate(256 << 10)))
                    .get(10, TimeUnit.SECONDS))
                {
                    assertThat(reply.segment(0).remaining()).isEqualTo(1 << 20);
                }
                await().atMost(Duration.ofMillis(200)).pollInterval(Duration.ofMillis(5))
                    .until(() -> transport.networkBuffersHeld() == 0);
            }
        }
    }

    @Test
    void aTlsClientOnAPlaintextPortalFailsSayingWhy()
    {
        final XioEngine server = server(CERTIFICATES.serverOptions());
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        assertThatThrownBy(() -> client().connect("tls://127.0.0.1:" + portal.uri().port() + "/echo"))
            .isInstanceOf(ConnectionException.class)
            .hasMessageContaining("during the TLS handshake");
    }

    @Test
    void tlsWithoutOptionsFailsNamingWhatToSet()
    {
        final XioEngine plain = engines.start("plain");
        assertThatThrownBy(() -> plain.bind("tls://127.0.0.1:0"))
            .isInstanceOf(XioException.class)
            .hasMessageContaining("XioEngine.Builder.tls(TlsOptions)");
        final Portal portal = server(CERTIFICATES.serverOptions()).bind("tls://127.0.0.1:0");
        assertThatThrownBy(() -> plain.connect(uri(portal, "echo")))
            .isInstanceOf(XioException.class)
            .hasMessageContaining("SessionOptions.withTls");
    }

    @Test
    void aTlsSessionsConnectionsStayOnTls() throws Exception
    {
        final XioEngine server = engines.start(engines.builder("server").tls(CERTIFICATES.serverOptions()));
        server.register("where", request ->
        {
            request.message().close();
            request.respond(Outbound.of(utf8(Thread.currentThread().getName())));
        });
        final Portal plaintext = server.bind("tcp://127.0.0.1:0", PortalOptions.DEFAULT.withContext(1));
        final Portal tls = server.bind("tls://127.0.0.1:0",
            PortalOptions.DEFAULT
                .withAcceptor(request -> SetupDecision.accept().withConnectionPortals(List.of(plaintext.uri())))
                .withContext(0));
        final XioEngine client = engines.start(engines.builder("client").tls(CERTIFICATES.options(null)));
        final Set<String> servedBy = ConcurrentHashMap.newKeySet();
        try (Session session = client.connect(tls.uri().withResource("where").toString(),
            SessionOptions.DEFAULT.withConnections(2)))
        {
            assertThat(session.connectionCount()).isEqualTo(2);
            for (int t = 0; t < 4; t++)
            {
                final Thread caller = new Thread(() ->
                {
                    for (int i = 0; i < 20; i++)
                    {
                        try (Message m = session.request(Outbound.of(utf8("x"))).get(5, TimeUnit.SECONDS))
                        {
                            servedBy.add(text(m.header()));
                        }
                        catch (final Exception ex)
                        {
                            throw new AssertionError(ex);
                        }
                    }
                });
                caller.start();
                caller.join();
            }
        }
        assertThat(servedBy).as("contexts that served calls of a tls:// session; the plaintext portal is on " +
            "context 1").hasSize(1);
    }

    @Test
    void rawSocketsThatNeverFinishTheHandshakeAreClosedByTheHandshakeTimeout() throws Exception
    {
        final XioEngine server = engines.start(engines.builder("server").tls(CERTIFICATES.serverOptions())
            .limits(TestEngines.LIMITS.withHandshakeTimeout(Duration.ofMillis(500))));
        final Portal portal = server.bind("tls://127.0.0.1:0");
        final InetSocketAddress address = new InetSocketAddress("127.0.0.1", portal.uri().port());
        try (Socket silent = new Socket(); Socket half = new Socket())
        {
            silent.connect(address);
            half.connect(address);
            final byte[] hello = clientHello();
            half.getOutputStream().write(hello, 0, hello.length / 2);
            half.getOutputStream().flush();
            assertClosedByPeer(silent);
            assertClosedByPeer(half);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> server.refusals(PeerRefusal.HANDSHAKE_TIMEOUT) == 2);
    }

    private static byte[] clientHello() throws Exception
    {
        final SSLEngine engine = TestCertificates.context(null, CERTIFICATES.ca().certificate())
            .createSSLEngine("127.0.0.1", 1);
        engine.setUseClientMode(true);
        engine.beginHandshake();
        final ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        final SSLEngineResult result = engine.wrap(ByteBuffer.allocate(0), out);
        assertThat(result.bytesProduced()).isGreaterThan(100);
        final byte[] hello = new byte[out.flip().remaining()];
        out.get(hello);
        return hello;
    }

    /** Reads until the peer closes: the server may send an alert first. */
    private static void assertClosedByPeer(final Socket socket) throws IOException
    {
        socket.setSoTimeout(10_000);
        final InputStream in = socket.getInputStream();
        final byte[] buffer = new byte[1024];
        try
        {
            while (in.read(buffer) >= 0)
            {
                // an alert, at most: nothing the server would say to a stranger otherwise
            }
        }
        catch (final java.net.SocketException reset)
        {
            // closed with unread bytes: a reset is a close too
        }
    }

    @Test
    void aReloadedContextServesNewConnectionsWhileOpenSessionsGoOn() throws Exception
    {
        final AtomicReference<SSLContext> current = new AtomicReference<>(CERTIFICATES.serverOptions().context()
            .get());
        final XioEngine server = server(TlsOptions.of(current::get));
        final Portal portal = server.bind("tls://127.0.0.1:0");
        final List<String> presented = new CopyOnWriteArrayList<>();
        final TlsOptions recording = TlsOptions.of(TestCertificates.context(null,
            new TrustManager[] {recording(presented)}));
        final XioEngine client = engines.start(engines.builder("client").tls(recording));
        try (Session before = client.connect(uri(portal, "echo")))
        {
            assertThat(presented).containsExactly("CN=server");
            final TestCertificates.Identity renewed = CERTIFICATES.issue("renewed-server", List.of("localhost"),
                List.of("127.0.0.1"), Duration.ofDays(1), Duration.ofDays(30), CERTIFICATES.ca());
            current.set(TestCertificates.context(renewed, CERTIFICATES.ca().certificate()));
            // options of its own (not the engine's): a connection of its own, so a new handshake
            try (Session after = client.connect(uri(portal, "echo"),
                SessionOptions.DEFAULT.withTls(TlsOptions.of(recording.context()))))
            {
                assertThat(echo(after, "new")).isEqualTo("new");
            }
            assertThat(presented).containsExactly("CN=server", "CN=renewed-server");
            assertThat(echo(before, "old")).isEqualTo("old");
        }
    }

    /** Trusts the test CA, noting the subject of each server certificate it is shown. */
    private static X509ExtendedTrustManager recording(final List<String> presented) throws Exception
    {
        final X509ExtendedTrustManager trust = (X509ExtendedTrustManager)TestCertificates.trustManagers(
            CERTIFICATES.ca().certificate())[0];
        return new X509ExtendedTrustManager()
        {
            @Override
            public void checkServerTrusted(final X509Certificate[] chain, final String authType,
                final SSLEngine engine) throws java.security.cert.CertificateException
            {
                presented.add(chain[0].getSubjectX500Principal().getName());
                trust.checkServerTrusted(chain, authType, engine);
            }

            @Override
            public void checkClientTrusted(final X509Certificate[] chain, final String authType,
                final SSLEngine engine) throws java.security.cert.CertificateException
            {
                trust.checkClientTrusted(chain, authType, engine);
            }

            @Override
            public void checkServerTrusted(final X509Certificate[] chain, final String authType,
                final Socket socket) throws java.security.cert.CertificateException
            {
                trust.checkServerTrusted(chain, authType, socket);
            }

            @Override
            public void checkClientTrusted(final X509Certificate[] chain, final String authType,
                final Socket socket) throws java.security.cert.CertificateException
            {
                trust.checkClientTrusted(chain, authType, socket);
            }

            @Override
            public void checkServerTrusted(final X509Certificate[] chain, final String authType)
                throws java.security.cert.CertificateException
            {
                trust.checkServerTrusted(chain, authType);
            }

            @Override
            public void checkClientTrusted(final X509Certificate[] chain, final String authType)
                throws java.security.cert.CertificateException
            {
                trust.checkClientTrusted(chain, authType);
            }

            @Override
            public X509Certificate[] getAcceptedIssuers()
            {
                return trust.getAcceptedIssuers();
            }
        };
    }

    @Test
    void aTurnsFramesLeaveInFewerRecordsThanFrames() throws Exception
    {
        final TlsTransport transport = new TlsTransport();
        final XioEngine server = engines.start(engines.builder("server").tls(CERTIFICATES.serverOptions())
            .transport(transport).contexts(1));
        final int burst = 200;
        // On the context thread: every one-way of the burst is committed in the same turn.
        server.register("burst", request ->
        {
            request.message().close();
            for (int i = 0; i < burst; i++)
            {
                request.session().send(Outbound.of(utf8("one-way " + i)));
            }
            request.respond(Outbound.of(utf8("sent")));
        });
        final Portal portal = server.bind("tls://127.0.0.1:0");
        final AtomicInteger received = new AtomicInteger();
        try (Session session = client().connect(uri(portal, "burst"), SessionOptions.DEFAULT.withHandler(request ->
        {
            request.message().close();
            received.incrementAndGet();
        })))
        {
            assertThat(echo(session, "warm")).isEqualTo("sent");
            await().atMost(Duration.ofSeconds(10)).until(() -> received.get() == burst);
            final long frames = server.statistics().framesSent();
            final long records = transport.recordsWrapped();
            assertThat(echo(session, "go")).isEqualTo("sent");
            await().atMost(Duration.ofSeconds(10)).until(() -> received.get() == 2 * burst);
            final long burstFrames = server.statistics().framesSent() - frames;
            final long burstRecords = transport.recordsWrapped() - records;
            assertThat(burstFrames).isGreaterThanOrEqualTo(burst + 1);
            assertThat(burstRecords).as("records for %s frames", burstFrames).isLessThan(burstFrames / 10);
        }
    }

    @Test
    void certificatesAreWrittenAsPemAndKeyStoresThatLoad(@org.junit.jupiter.api.io.TempDir final Path dir)
        throws Exception
    {
        final Path pem = TestCertificates.writePem(dir, "server", CERTIFICATES.server());
        assertThat(Files.readString(pem)).startsWith("-----BEGIN CERTIFICATE-----");
        assertThat(Files.readString(dir.resolve("server.key"))).startsWith("-----BEGIN PRIVATE KEY-----");
        for (final String type : List.of("PKCS12", "JKS"))
        {
            final Path file = TestCertificates.writeKeyStore(dir, "server-" + type, type, CERTIFICATES.server());
            final KeyStore store = KeyStore.getInstance(type);
            try (InputStream in = Files.newInputStream(file))
            {
                store.load(in, TestCertificates.PASSWORD.toCharArray());
            }
            assertThat(store.getCertificate(store.aliases().nextElement())).isEqualTo(
                CERTIFICATES.server().certificate());
        }
    }
}
