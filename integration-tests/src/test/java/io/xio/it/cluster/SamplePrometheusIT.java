package io.xio.it.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.Network;
import org.testcontainers.junit.jupiter.Testcontainers;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A real Prometheus server scrapes the sample's {@code /actuator/prometheus} on a server host and a client host, and
 * its HTTP API shows the xio series of the load the client ran, with the service's labels and the counts the load
 * made (exactly: a retried round fails the test before the counts are compared). Skipped (with the reason) where no
 * Docker engine runs: integration-tests/docker/setup-docker.sh starts one and builds both images.
 */
@Testcontainers(disabledWithoutDocker = true)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SamplePrometheusIT
{
    @Test
    void prometheusScrapesBothSidesAndHasTheXioSeriesOfTheLoad() throws Exception
    {
        try (Network network = Network.newNetwork();
             SampleContainer server = SampleContainer.server(network, "store-1");
             SampleContainer client = SampleContainer.client(network, "app-1", "tcp://store-1:7070/blobs")
                 .withEnv("SAMPLE_VALUES", "2000").withEnv("SAMPLE_THROUGHPUT_TIME", "1s");
             PrometheusContainer prometheus = new PrometheusContainer(network, "store-1", "app-1"))
        {
            server.start();
            client.start();
            prometheus.start();
            client.awaitPrinted("2000 verified, 0 mismatched");
            // The server is up (healthy) before the client starts, so no round may fail: a retried round would
            // add its partial puts and failed calls to the series, and the exact counts below would not hold.
            assertThat(client.printed()).as("a round failed and was retried; the exact counts assume none")
                .doesNotContain("; retrying");

            // Both targets scraped successfully, as Prometheus itself reports it.
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(prometheus.query("up{job=\"sample\"}")).as(prometheus.printed()).hasSize(2)
                    .allSatisfy((series, up) -> assertThat(up).as(series).isEqualTo(1.0)));

            // The server executed exactly the 2000 puts of the load: one series, the service's labels on it.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(prometheus.query(
                    "xio_server_requests_seconds_count{service=\"blobs\",method=\"put\",outcome=\"SUCCESS\"}"))
                .hasSize(1).allSatisfy((series, puts) ->
                {
                    assertThat(series).contains("host=\"store-1\"").contains("transport=\"tcp\"");
                    assertThat(puts).isEqualTo(2000.0);
                }));
            // The client's side: 2000 puts, 2000 gets, the throughput phase's reads and a summary, all successful
            // over tcp, and time spent on them.
            final Map<String, Double> calls = prometheus.query("sum by (host) (xio_client_requests_seconds_count" +
                "{service=\"blobs\",outcome=\"SUCCESS\",transport=\"tcp\"})");
            assertThat(calls).containsOnlyKeys("{host=\"app-1\"}");
            assertThat(calls.get("{host=\"app-1\"}")).isGreaterThan(4000.0);
            assertThat(prometheus.query("sum(xio_client_requests_seconds_sum{host=\"app-1\",service=\"blobs\"})"))
                .hasSize(1).allSatisfy((series, seconds) -> assertThat(seconds).isGreaterThan(0.0));
            assertThat(prometheus.query("xio_client_requests_seconds_count{outcome!=\"SUCCESS\"}")).isEmpty();
        }
    }
}
