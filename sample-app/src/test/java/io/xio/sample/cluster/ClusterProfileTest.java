package io.xio.sample.cluster;

import io.xio.sample.BlobStoreApplication;
import io.xio.sample.client.ClusterLoad;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The cluster profile in one JVM against Curator's in-JVM ZooKeeper: the server registers its portals, the client
 * finds it by service id, picks shm (same host) and says why, and the continuous load's counts on both sides agree
 * (every write that succeeded executed exactly once, nothing failed).
 */
@SpringBootTest(classes = BlobStoreApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"sample.name=app-t", "sample.cluster.pause=1ms", "sample.cluster.report-every=1s"})
@ActiveProfiles("cluster")
class ClusterProfileTest
{
    private static final TestingServer ZOOKEEPER = start();
    private static final String SHM_NAME = "xio-sample-cluster-" + UUID.randomUUID();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @DynamicPropertySource
    static void addresses(final DynamicPropertyRegistry registry)
    {
        registry.add("spring.cloud.zookeeper.connect-string", ZOOKEEPER::getConnectString);
        registry.add("xio.portals[0].uri", () -> "tcp://127.0.0.1:0");
        registry.add("xio.portals[1].uri", () -> "shm://" + SHM_NAME);
    }

    @AfterAll
    static void stopZooKeeper() throws IOException
    {
        ZOOKEEPER.close();
    }

    @Autowired
    private ClusterLoad load;

    @LocalServerPort
    private int port;

    /** The random port the tcp portal got; it was configured with port 0. */
    @Value("${local.xio.port}")
    private int xioPort;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void theClientFindsTheServerInZooKeeperUsesShmAndBothSidesCountTheSameWrites() throws Exception
    {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
        {
            assertThat(load.stats().writesOk()).isGreaterThan(200);
            assertThat(load.stats().readsOk()).isGreaterThan(200);
        });

        JsonNode blobs = null;
        for (final JsonNode client : get("/actuator/xio").path("clients"))
        {
            if (client.path("name").asString().equals("blobs"))
            {
                blobs = client;
            }
        }
        assertThat(blobs).as("client blobs in /actuator/xio").isNotNull();
        assertThat(blobs.path("serviceId").asString()).isEqualTo("blob-store");
        assertThat(blobs.path("endpoints")).hasSize(1);
        final JsonNode endpoint = blobs.path("endpoints").get(0);
        assertThat(endpoint.path("state").asString()).isEqualTo("ACTIVE");
        assertThat(endpoint.path("transport").asString()).isEqualTo("shm");
        assertThat(endpoint.path("portal").asString()).isEqualTo("shm://" + SHM_NAME);
        assertThat(endpoint.path("reason").asString()).contains("same host");
        assertThat(get("/actuator/health").at("/components/xio/details/clients/blobs/active").asInt()).isEqualTo(1);
        assertThat(get("/actuator/xio").path("portals").toString()).contains("tcp://127.0.0.1:" + xioPort);

        final JsonNode paused = post("/actuator/load", "{\"running\": false}");
        assertThat(paused.path("running").asBoolean()).isFalse();
        final long ok = paused.path("writesOk").asLong();
        assertThat(paused.path("writesSent").asLong()).isEqualTo(ok);
        assertThat(paused.path("writesFailed").asLong()).isZero();
        assertThat(paused.path("readsFailed").asLong()).isZero();
        assertThat(paused.path("readsSent").asLong()).isEqualTo(paused.path("readsOk").asLong());
        final JsonNode writes = get("/actuator/writes");
        assertThat(writes.path("executed").asLong()).isEqualTo(ok);
        assertThat(writes.path("executedMoreThanOnce").asLong()).isZero();
        assertThat(writes.at("/clients/app-t/executed").asLong()).isEqualTo(ok);

        assertThat(post("/actuator/load", "{\"running\": true}").path("running").asBoolean()).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> load.stats().writesOk() > ok);
    }

    private JsonNode get(final String path) throws IOException, InterruptedException
    {
        return send(HttpRequest.newBuilder(uri(path)).build(), path);
    }

    private JsonNode post(final String path, final String body) throws IOException, InterruptedException
    {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)).build(), path);
    }

    private JsonNode send(final HttpRequest request, final String path) throws IOException, InterruptedException
    {
        final HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private URI uri(final String path)
    {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static TestingServer start()
    {
        try
        {
            return new TestingServer(true);
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException("in-JVM ZooKeeper did not start", ex);
        }
    }
}
