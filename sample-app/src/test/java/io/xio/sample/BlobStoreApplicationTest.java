package io.xio.sample;

import io.xio.engine.XioEngine;
import io.xio.sample.client.FeedRunner;
import io.xio.sample.api.Payments;
import io.xio.sample.client.LoadRunner;
import io.xio.sample.client.PaymentsClient;
import io.xio.sample.client.PaymentsRunner;
import io.xio.sample.client.QuotesClient;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample as the README runs it (both sides, tcp and shm), with a short load and quotes feed, exactly-once
 * payments counted in the embedded database, and its actuator endpoints.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {"sample.values=300",
    "sample.throughput-time=300ms", "sample.feed.time=1s", "sample.payments.orders=20", "sample.linger=0s"})
class BlobStoreApplicationTest
{
    private static final int XIO_PORT = freePort();
    private static final String SHM_NAME = "xio-sample-test-" + UUID.randomUUID();

    @DynamicPropertySource
    static void addresses(final DynamicPropertyRegistry registry)
    {
        registry.add("xio.portals[0].uri", () -> "tcp://127.0.0.1:" + XIO_PORT);
        registry.add("xio.portals[1].uri", () -> "shm://" + SHM_NAME);
        registry.add("xio.clients.blobs.uri", () -> "tcp://127.0.0.1:" + XIO_PORT + "/blobs");
        registry.add("xio.clients.blobs-shm.uri", () -> "shm://" + SHM_NAME + "/blobs");
        registry.add("xio.clients.quotes.uri", () -> "tcp://127.0.0.1:" + XIO_PORT + "/quotes");
        registry.add("xio.clients.payments.uri", () -> "tcp://127.0.0.1:" + XIO_PORT + "/payments");
    }

    @Autowired
    private LoadRunner load;

    @Autowired
    private FeedRunner feed;

    @Autowired
    private QuotesClient quotes;

    @Autowired
    private XioEngine engine;

    @Autowired
    private PaymentsRunner paymentsRunner;

    @Autowired
    private PaymentsClient payments;

    @Autowired
    private JdbcTemplate jdbc;

    @LocalServerPort
    private int port;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void theLoadStoresAndVerifiesEveryValueOverTcpAndShm() throws Exception
    {
        load.done().get(60, TimeUnit.SECONDS);
        assertThat(load.reports()).extracting(LoadRunner.Report::client).containsExactly("blobs", "blobs-shm");
        assertThat(load.reports()).allSatisfy(report ->
        {
            assertThat(report.verified()).isEqualTo(300);
            assertThat(report.mismatches()).isZero();
            assertThat(report.readsPerSecond()).isPositive();
        });
        assertThat(load.reports().get(1).summary().values()).isEqualTo(600); // both clients' values, one store
    }

    @Test
    void theSlowSubscriberHoldsBackOnlyItsOwnProducerAndTheCancelReachesBoth() throws Exception
    {
        load.done().get(60, TimeUnit.SECONDS);
        assertThat(feed.reports()).hasSize(1);
        final FeedRunner.Report report = feed.reports().get(0);
        final FeedRunner.Subscriber slow = report.slow();
        final FeedRunner.Subscriber fast = report.fast();
        assertThat(report.uri()).startsWith("tcp://");
        // The slow subscriber's demand is its stream's credit: its producer had made what it took, plus at most the
        // stream's window, what xio asks a service's Flux for ahead of the credit (32) and the one delayElements holds.
        final long ahead = engine.limits().streams().windowMessages() + 32 + 1;
        assertThat(slow.received()).isPositive();
        assertThat(slow.produced()).isBetween(slow.received(), slow.received() + ahead);
        // The fast stream is not held to the slow one's pace: it took far more than the slow producer made at all.
        assertThat(fast.received()).isGreaterThan(10 * slow.produced());
        // Both producers saw their subscriber's cancel, and made nothing more after it.
        assertThat(slow.afterCancel().cancelled()).isTrue();
        assertThat(fast.afterCancel().cancelled()).isTrue();
        Thread.sleep(300);
        assertThat(quotes.producer(slow.afterCancel().feed())).isEqualTo(slow.afterCancel());
        assertThat(quotes.producer(fast.afterCancel().feed())).isEqualTo(fast.afterCancel());
        assertThat(quotes.producer("no-such-feed")).isNull();
    }

    @Test
    void eachOrderPaidTwiceWithItsKeyRanOnceAndItsRetryGotTheFirstReceipt() throws Exception
    {
        load.done().get(60, TimeUnit.SECONDS);
        assertThat(paymentsRunner.reports()).singleElement().satisfies(report ->
        {
            assertThat(report.uri()).isEqualTo("tcp://127.0.0.1:" + XIO_PORT + "/payments");
            assertThat(report.orders()).isEqualTo(20);
            assertThat(report.replayedReceipts()).isEqualTo(20);
            assertThat(report.totals()).isEqualTo(new Payments.Totals(20, 20 * 21 / 2, 20));
            assertThat(report.executed()).isEqualTo(20);
            assertThat(report.replayed()).isEqualTo(20);
        });
        // Counted in the database: one row per order of the run, and a ledger entry per payment that ran (another
        // test may have paid more, and made an entry for each).
        assertThat(jdbc.queryForList("SELECT order_id FROM payments WHERE order_id LIKE 'order-1-%'", String.class))
            .hasSize(20).doesNotHaveDuplicates();
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM xio_execution_ledger", Long.class))
            .isEqualTo(jdbc.queryForObject("SELECT COUNT(*) FROM payments", Long.class));
    }

    @Test
    void aPaymentSentAgainWithItsOrdersKeyGetsTheStoredReceiptWithoutRunning() throws Exception
    {
        load.done().get(60, TimeUnit.SECONDS);
        final Payments.Totals before = payments.totals();
        final Payments.Receipt paid = payments.pay("test-order", 7);
        // The order's key (OrderKeys), not the arguments, decides: another amount gets the first call's receipt.
        assertThat(payments.pay("test-order", 9)).isEqualTo(paid);
        final Payments.Totals after = payments.totals();
        assertThat(after.rows() - before.rows()).isEqualTo(1);
        assertThat(after.cents() - before.cents()).isEqualTo(7);
        assertThat(after.executions() - before.executions()).isEqualTo(1);
        assertThat(payments.pay("another-order", 9).payment()).isNotEqualTo(paid.payment());
    }

    @Test
    void actuatorShowsHealthTheXioEndpointMetricsAndPrometheus() throws Exception
    {
        load.done().get(60, TimeUnit.SECONDS);
        assertThat(get("/actuator/health")).contains("\"status\":\"UP\"").contains("\"xio\"")
            .contains("\"state\":\"ESTABLISHED\"");
        assertThat(get("/actuator/xio")).contains("\"portals\"").contains("tcp://127.0.0.1:" + XIO_PORT)
            .contains("\"resource\":\"blobs\"").contains("\"requestsReceived\"");
        assertThat(get("/actuator/metrics/xio.client.requests")).contains("\"name\":\"xio.client.requests\"")
            .contains("\"outcome\"").contains("\"SUCCESS\"").contains("\"tcp\"").contains("\"shm\"");
        assertThat(get("/actuator/prometheus")).contains("xio_client_requests_seconds_count{")
            .contains("xio_server_requests_seconds_count{").contains("xio_frames_sent_total{")
            .contains("xio_sessions_active{").contains("xio_server_exactly_once_total{");
        assertThat(get("/actuator/metrics/xio.server.exactly.once")).contains("\"result\"").contains("\"executed\"")
            .contains("\"replayed\"").contains("\"payments\"");
    }

    private String get(final String path) throws IOException, InterruptedException
    {
        final HttpResponse<String> response = http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        return response.body();
    }

    private static int freePort()
    {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
