package io.xio.it.cluster;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;

/**
 * A Prometheus server (Debian's package, in the image integration-tests/docker/setup-docker.sh builds) on the test's
 * network, scraping the sample's {@code /actuator/prometheus} on the given hosts every second, its HTTP API published
 * to the test. Its data lives in the container and goes with it.
 */
final class PrometheusContainer extends GenericContainer<PrometheusContainer>
{
    static final String IMAGE = System.getProperty("xio.test.prometheusImage", "xio/prometheus-local:2");
    private static final int PORT = 9090;
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final ConcurrentLinkedQueue<String> output = new ConcurrentLinkedQueue<>();

    /** A scrape of each {@code host}'s port 8080 in the job {@code sample}, labelled {@code host} with its name. */
    PrometheusContainer(final Network network, final String... hosts)
    {
        super(DockerImageName.parse(IMAGE));
        withNetwork(network);
        withNetworkAliases("prometheus");
        withCopyToContainer(Transferable.of(config(hosts)), "/etc/prometheus/prometheus.yml");
        withCommand("prometheus", "--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/tmp/data",
            "--web.listen-address=:" + PORT);
        withExposedPorts(PORT);
        withLogConsumer((OutputFrame frame) -> output.add("prometheus: " + frame.getUtf8StringWithoutLineEnding()));
        waitingFor(Wait.forHttp("/-/ready").forPort(PORT).forStatusCode(200).withStartupTimeout(Duration.ofMinutes(1)));
    }

    private static String config(final String... hosts)
    {
        final StringBuilder yaml = new StringBuilder("""
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
            scrape_configs:
              - job_name: sample
                metrics_path: /actuator/prometheus
                static_configs:
            """);
        for (final String host : hosts)
        {
            yaml.append("      - targets: ['").append(host).append(":8080']\n")
                .append("        labels: {host: '").append(host).append("'}\n");
        }
        return yaml.toString();
    }

    /**
     * An instant query's result through {@code /api/v1/query}: each series's labels (rendered as
     * {@code {name="value", ...}}, sorted) with its value.
     */
    Map<String, Double> query(final String promql) throws IOException, InterruptedException
    {
        final URI uri = URI.create("http://" + getHost() + ":" + getMappedPort(PORT) + "/api/v1/query?query=" +
            URLEncoder.encode(promql, StandardCharsets.UTF_8));
        final HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
            .build(), HttpResponse.BodyHandlers.ofString());
        final JsonNode body = JSON.readTree(response.body());
        if (response.statusCode() != 200 || !"success".equals(body.path("status").asString()))
        {
            throw new IllegalStateException(promql + " answered " + response.statusCode() + ": " + response.body());
        }
        final Map<String, Double> series = new TreeMap<>();
        for (final JsonNode result : body.at("/data/result"))
        {
            final List<String> labels = new ArrayList<>();
            result.path("metric").properties().forEach(e -> labels.add(e.getKey() + "=\"" + e.getValue().asString() +
                "\""));
            series.put(labels.stream().sorted().collect(Collectors.joining(", ", "{", "}")),
                Double.parseDouble(result.path("value").get(1).asString()));
        }
        return series;
    }

    /** Everything the server printed so far. */
    String printed()
    {
        return String.join("\n", output);
    }
}
