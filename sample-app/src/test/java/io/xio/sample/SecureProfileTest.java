package io.xio.sample;

import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.SessionRejectedException;
import io.xio.engine.TlsOptions;
import io.xio.engine.XioEngine;
import io.xio.sample.client.FeedRunner;
import io.xio.sample.client.LoadRunner;
import io.xio.sample.client.PaymentsRunner;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The sample with the {@code secure} profile, as docs/operations.md runs it: the load over tls:// (the demo
 * certificates through SSL bundles) and shm, the quotes feed and the exactly-once payments over tls://, every
 * session authenticated with the sample's user; a client that presents no credentials is refused, over tls and over
 * shm.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE, properties = {"sample.values=200",
    "sample.throughput-time=200ms", "sample.feed.time=200ms", "sample.payments.orders=5", "sample.linger=0s"})
@ActiveProfiles("secure")
class SecureProfileTest
{
    private static final int XIO_PORT = freePort();
    private static final String SHM_NAME = "xio-sample-secure-" + UUID.randomUUID();

    @DynamicPropertySource
    static void addresses(final DynamicPropertyRegistry registry)
    {
        registry.add("xio.portals[0].uri", () -> "tls://127.0.0.1:" + XIO_PORT);
        registry.add("xio.portals[0].ssl.bundle", () -> "xio-demo-server");
        registry.add("xio.portals[1].uri", () -> "shm://" + SHM_NAME);
        registry.add("xio.clients.blobs.uri", () -> "tls://127.0.0.1:" + XIO_PORT + "/blobs");
        registry.add("xio.clients.blobs-shm.uri", () -> "shm://" + SHM_NAME + "/blobs");
        registry.add("xio.clients.quotes.uri", () -> "tls://127.0.0.1:" + XIO_PORT + "/quotes");
        registry.add("xio.clients.payments.uri", () -> "tls://127.0.0.1:" + XIO_PORT + "/payments");
    }

    @Autowired
    private LoadRunner load;

    @Autowired
    private FeedRunner feed;

    @Autowired
    private PaymentsRunner payments;

    @Autowired
    private XioEngine engine;

    @Autowired
    private SslBundles bundles;

    @Autowired
    private Environment environment;

    @Test
    void theServicesAreNotOpenOverHttpWhereXioAuthenticatesItsCallers()
    {
        assertThat(environment.getProperty("xio.http.enabled", Boolean.class)).isFalse();
    }

    @Test
    void theLoadRunsOverTlsAndShmAsTheAuthenticatedUser() throws Exception
    {
        load.done().get(60, TimeUnit.SECONDS);
        assertThat(load.reports()).extracting(LoadRunner.Report::client).containsExactly("blobs", "blobs-shm");
        assertThat(load.reports()).allSatisfy(report ->
        {
            assertThat(report.verified()).isEqualTo(200);
            assertThat(report.mismatches()).isZero();
        });
        assertThat(feed.reports()).singleElement().satisfies(report ->
        {
            assertThat(report.uri()).startsWith("tls://");
            assertThat(report.fast().received()).isPositive();
            assertThat(report.fast().afterCancel().cancelled()).isTrue();
        });
        assertThat(payments.reports()).singleElement().satisfies(report ->
        {
            assertThat(report.uri()).startsWith("tls://");
            assertThat(report.replayedReceipts()).isEqualTo(5);
            assertThat(report.totals().rows()).isEqualTo(5);
            assertThat(report.totals().executions()).isEqualTo(5);
        });
        assertThat(engine.sessions()).filteredOn(Session::isServerSide).isNotEmpty().allSatisfy(session ->
            assertThat(session.principal().getName()).isEqualTo("sample"));
        assertThat(engine.sessions()).filteredOn(s -> s.isServerSide() && s.uri().scheme().equals("tls"))
            .isNotEmpty().allSatisfy(session -> assertThat(session.peer().tlsProtocol()).isEqualTo("TLSv1.3"));
    }

    @Test
    void aClientWithoutCredentialsIsRefused()
    {
        final TlsOptions trust = TlsOptions.of(bundles.getBundle("xio-demo-client").createSslContext());
        try (XioEngine stranger = XioEngine.builder().contexts(1).build())
        {
            final Throwable refused = catchThrowable(() -> stranger.openSession("tls://127.0.0.1:" + XIO_PORT +
                "/blobs", SessionOptions.DEFAULT.withTls(trust)).get(10, TimeUnit.SECONDS));
            assertThat(refused).isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(SessionRejectedException.class)
                .satisfies(ex -> assertThat(((SessionRejectedException)ex).isAuthenticationFailure()).isTrue());
            // The same acceptor decides over shm, where no TLS runs.
            final Throwable refusedOverShm = catchThrowable(() -> stranger.openSession("shm://" + SHM_NAME +
                "/blobs", SessionOptions.DEFAULT).get(10, TimeUnit.SECONDS));
            assertThat(refusedOverShm).isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(SessionRejectedException.class)
                .satisfies(ex -> assertThat(((SessionRejectedException)ex).isAuthenticationFailure()).isTrue());
        }
    }

    private static int freePort()
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
