package io.xio.it.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.Network;
import org.testcontainers.junit.jupiter.Testcontainers;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample app as separate hosts on one Docker network, talking xio over tcp; results and actuator endpoints
 * checked from the test. Skipped (with the reason) where no Docker engine runs: integration-tests/docker/
 * setup-docker.sh starts one and builds the image.
 */
@Testcontainers(disabledWithoutDocker = true)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SampleClusterIT
{
    private static final Pattern ROUND = Pattern.compile("round (\\d+): blobs -> \\S+: (\\d+) values of \\d+ B " +
        "stored and read back, (\\d+) verified, (\\d+) mismatched");

    @Test
    void aClientOnAnotherHostStoresReadsAndVerifiesAndBothSidesShowIt() throws Exception
    {
        try (Network network = Network.newNetwork();
             SampleContainer server = SampleContainer.server(network, "store-1");
             SampleContainer client = SampleContainer.client(network, "app-1", "tcp://store-1:7070/blobs")
                 .withEnv("SAMPLE_VALUES", "2000").withEnv("SAMPLE_THROUGHPUT_TIME", "1s"))
        {
            server.start();
            client.start();
            client.awaitPrinted("2000 verified, 0 mismatched");

            final JsonNode health = client.actuator("health");
            assertThat(health.path("status").asString()).isEqualTo("UP");
            assertThat(health.at("/components/xio/details/clients/blobs/state").asString()).isEqualTo("ESTABLISHED");
            // 2000 puts, 2000 gets, a throughput phase and a summary: every call timed, all successful.
            final JsonNode timer = client.actuator("metrics/xio.client.requests?tag=outcome:SUCCESS&tag=transport:tcp");
            assertThat(statistic(timer, "COUNT")).isGreaterThan(4000);
            final JsonNode served = server.actuator("metrics/xio.server.requests?tag=service:blobs&tag=method:put");
            assertThat(statistic(served, "COUNT")).isEqualTo(2000);

            // The server sees one session for 'blobs', its connections coming from the client's address.
            final JsonNode xio = server.actuator("xio");
            final List<JsonNode> sessions = new ArrayList<>();
            xio.path("sessions").forEach(sessions::add);
            assertThat(sessions).singleElement().satisfies(session ->
            {
                assertThat(session.path("side").asString()).isEqualTo("server");
                assertThat(session.path("resource").asString()).isEqualTo("blobs");
                assertThat(session.path("state").asString()).isEqualTo("established");
                assertThat(session.path("peers").get(0).asString()).contains(client.address());
                assertThat(session.at("/counters/requestsReceived").asLong()).isGreaterThan(4000);
            });
            assertThat(server.actuator("health").at("/components/xio/details/sessions/server").asInt()).isEqualTo(1);
        }
    }

    @Test
    void roundRobinRedirectSpreadsFourClientsOverTwoPortals() throws Exception
    {
        try (Network network = Network.newNetwork();
             SampleContainer server = SampleContainer.server(network, "store-1")
                 .withEnv("XIO_PORTALS_0_URI", "tcp://0.0.0.0:7070")
                 .withEnv("XIO_PORTALS_1_URI", "tcp://0.0.0.0:7071")
                 .withEnv("XIO_PORTALS_2_URI", "tcp://0.0.0.0:7072")
                 .withEnv("XIO_SERVER_REDIRECT", "round-robin"))
        {
            server.start();
            final List<SampleContainer> clients = new ArrayList<>();
            try
            {
                for (int i = 1; i <= 4; i++)
                {
                    final SampleContainer client = SampleContainer.client(network, "app-" + i,
                            "tcp://store-1:7070/blobs")
                        .withEnv("SAMPLE_VALUES", "200").withEnv("SAMPLE_THROUGHPUT_TIME", "200ms");
                    clients.add(client);
                }
                clients.parallelStream().forEach(SampleContainer::start);
                for (final SampleContainer client : clients)
                {
                    client.awaitPrinted("200 verified, 0 mismatched");
                }
                // Each client's session landed on portal 7071 or 7072 (the entry portal only redirects): two each.
                final Map<Integer, Integer> sessionsByPort = new TreeMap<>();
                server.actuator("xio").path("sessions").forEach(session ->
                    sessionsByPort.merge(port(session.path("uri").asString()), 1, Integer::sum));
                assertThat(sessionsByPort).isEqualTo(Map.of(7071, 2, 7072, 2));
            }
            finally
            {
                clients.forEach(SampleContainer::stop);
            }
        }
    }

    @Test
    void aClientRecoversWhenTheServerContainerRestarts() throws Exception
    {
        try (Network network = Network.newNetwork();
             SampleContainer server = SampleContainer.server(network, "store-1");
             SampleContainer client = SampleContainer.client(network, "app-1", "tcp://store-1:7070/blobs")
                 .withEnv("SAMPLE_ROUNDS", "0").withEnv("SAMPLE_VALUES", "300")
                 .withEnv("SAMPLE_THROUGHPUT_TIME", "200ms").withEnv("SAMPLE_ROUND_PAUSE", "500ms"))
        {
            server.start();
            client.start();
            final int before = lastGoodRound(client.awaitPrinted("round 1: "));
            server.getDockerClient().restartContainerCmd(server.getContainerId()).withTimeout(5).exec();
            // The restarted store is empty: a round after it stores everything again and reads it all back.
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> assertThat(lastGoodRound(client.printed())).isGreaterThan(before + 2));
            assertThat(client.printed()).doesNotContainPattern("verified, [1-9]\\d* mismatched");
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                client.actuator("health").at("/components/xio/details/clients/blobs/state").asString())
                .isEqualTo("ESTABLISHED"));
        }
    }

    /** The latest round in which every value was stored, read back and verified. */
    private static int lastGoodRound(final String printed)
    {
        int last = 0;
        final Matcher matcher = ROUND.matcher(printed);
        while (matcher.find())
        {
            if (matcher.group(2).equals(matcher.group(3)) && matcher.group(4).equals("0"))
            {
                last = Math.max(last, Integer.parseInt(matcher.group(1)));
            }
        }
        return last;
    }

    private static int port(final String uri)
    {
        return Integer.parseInt(uri.substring(uri.lastIndexOf(':') + 1).replaceAll("/.*", ""));
    }

    private static double statistic(final JsonNode meter, final String name)
    {
        for (final JsonNode measurement : meter.path("measurements"))
        {
            if (measurement.path("statistic").asString().equals(name))
            {
                return measurement.path("value").asDouble();
            }
        }
        throw new AssertionError("no " + name + " in " + meter);
    }
}
