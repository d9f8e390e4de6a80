package io.xio.it.cluster;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample app's jar in a container of its own (its own host name and address on the test's network), run as
 * server or client, with its actuator port published to the test.
 */
final class SampleContainer extends GenericContainer<SampleContainer>
{
    static final String IMAGE = System.getProperty("xio.test.image", "xio/jdk-local:17");
    private static final Path JAR =
        Path.of(System.getProperty("xio.test.sampleJar", "../sample-app/target/sample-app.jar"));
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final ConcurrentLinkedQueue<String> output = new ConcurrentLinkedQueue<>();

    private SampleContainer(final Network network, final String host, final String profile)
    {
        super(DockerImageName.parse(IMAGE));
        if (!Files.isRegularFile(JAR))
        {
            throw new IllegalStateException("the sample app's jar " + JAR + " is missing: build it first " +
                "(./mvnw -pl sample-app -am package)");
        }
        withNetwork(network);
        withNetworkAliases(host);
        withCreateContainerCmdModifier(cmd -> cmd.withHostName(host));
        withCopyFileToContainer(MountableFile.forHostPath(JAR), "/app/sample.jar");
        withExposedPorts(8080);
        withEnv("SPRING_PROFILES_ACTIVE", profile);
        withEnv("SAMPLE_NAME", host);
        withCommand("java", "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
            "-jar", "/app/sample.jar");
        withLogConsumer((OutputFrame frame) -> output.add(host + ": " + frame.getUtf8StringWithoutLineEnding()));
    }

    /** A blob store server on {@code host}, its first portal tcp://0.0.0.0:7070. */
    static SampleContainer server(final Network network, final String host)
    {
        return new SampleContainer(network, host, "server")
            .waitingFor(Wait.forHttp("/actuator/health").forPort(8080).forStatusCode(200)
                .withStartupTimeout(Duration.ofMinutes(2)));
    }

    /** A client on {@code host} that loads the store at {@code serverUri}, then stays up. */
    static SampleContainer client(final Network network, final String host, final String serverUri)
    {
        return new SampleContainer(network, host, "client")
            .withEnv("XIO_SERVER_URI", serverUri)
            .withEnv("SAMPLE_LINGER", "-1s")
            // A round that succeeded, not one reported as failed and retried.
            .waitingFor(Wait.forLogMessage(".*round 1: blobs -> \\S+: \\d+ values .*\\n", 1)
                .withStartupTimeout(Duration.ofMinutes(2)));
    }

    /** Everything the container printed so far, each line prefixed with its host. */
    String printed()
    {
        return String.join("\n", output);
    }

    /**
     * Waits until the container has printed {@code text}. The start-up wait strategy reads the log on a stream of its
     * own, so when {@code start()} returns, the line it saw may not have reached {@link #printed()} yet.
     */
    String awaitPrinted(final String text)
    {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(printed()).contains(text));
        return printed();
    }

    /** An actuator endpoint's JSON, read from the test's side. */
    JsonNode actuator(final String path) throws IOException, InterruptedException
    {
        final HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
                URI.create("http://" + getHost() + ":" + getMappedPort(8080) + "/actuator/" + path))
            .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200 && response.statusCode() != 503)
        {
            throw new IllegalStateException("/actuator/" + path + " answered " + response.statusCode() + ": " +
                response.body());
        }
        return JSON.readTree(response.body());
    }

    /** This container's address on the test's network. */
    String address()
    {
        return getContainerInfo().getNetworkSettings().getNetworks().values().iterator().next().getIpAddress();
    }
}
