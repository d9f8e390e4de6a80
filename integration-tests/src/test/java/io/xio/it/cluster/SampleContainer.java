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
import java.util.Map;
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

    /** How every JVM of the sample starts: small, quick to start, the sample's jar. */
    private static final String JAVA = "java -Xmx192m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto";
    /** The ZooKeeper of the cluster tests: LocalZooKeeper, from the ZooKeeper jar inside the sample's jar. */
    static final String ZOOKEEPER_HOST = "zookeeper";
    /** Where a cluster server appends the id of every write it executed (its WriteLedger's journal). */
    static final String JOURNAL = "/tmp/writes.log";

    private final ConcurrentLinkedQueue<String> output = new ConcurrentLinkedQueue<>();
    private final String host;

    private SampleContainer(final Network network, final String host, final String profile)
    {
        this(network, host);
        withEnv("SPRING_PROFILES_ACTIVE", profile);
        withEnv("SAMPLE_NAME", host);
        withCommand("java", "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
            "-jar", "/app/sample.jar");
    }

    private SampleContainer(final Network network, final String host)
    {
        super(DockerImageName.parse(IMAGE));
        this.host = host;
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

    /** A standalone ZooKeeper (LocalZooKeeper on 0.0.0.0:2181) at {@link #ZOOKEEPER_HOST}. */
    static SampleContainer zookeeper(final Network network)
    {
        final SampleContainer container = new SampleContainer(network, ZOOKEEPER_HOST);
        container.setExposedPorts(java.util.List.of());
        return container
            .withCommand("sh", "-c", "exec " + JAVA + " -cp /app/sample.jar " +
                "-Dloader.main=io.xio.sample.cluster.LocalZooKeeper " +
                "org.springframework.boot.loader.launch.PropertiesLauncher 2181 0.0.0.0")
            .waitingFor(Wait.forLogMessage(".*LocalZooKeeper: serving on .*\\n", 1)
                .withStartupTimeout(Duration.ofMinutes(1)));
    }

    /**
     * A blob store server of the cluster profile on {@code host}: tcp://0.0.0.0:7070 (registered with the container's
     * address), registered in ZooKeeper as service blob-store, its executed writes journaled at {@link #JOURNAL}.
     */
    static SampleContainer clusterServer(final Network network, final String host)
    {
        return new SampleContainer(network, host)
            .withEnv("ZOOKEEPER_CONNECT", ZOOKEEPER_HOST + ":2181")
            .withCommand("sh", "-c", "exec env " + serverEnv(host) + " " + JAVA + " -jar /app/sample.jar")
            .waitingFor(Wait.forHttp("/actuator/health").forPort(8080).forStatusCode(200)
                .withStartupTimeout(Duration.ofMinutes(2)));
    }

    /**
     * A cluster server on {@code host} (tcp and shm://host) and, in the same container as a second process, a cluster
     * client named {@code client} whose actuator is on port 8081: two processes of one host.
     */
    static SampleContainer clusterServerWithClient(final Network network, final String host, final String client)
    {
        final SampleContainer container = new SampleContainer(network, host);
        container.setExposedPorts(java.util.List.of(8080, 8081));
        return container
            .withEnv("ZOOKEEPER_CONNECT", ZOOKEEPER_HOST + ":2181")
            .withSharedMemorySize(256L * 1024 * 1024)
            // The server in the background, the client as the container's main process.
            .withCommand("sh", "-c",
                "env " + serverEnv(host) + " XIO_PORTALS_1_URI=shm://" + host + " " + JAVA + " -jar /app/sample.jar " +
                "& exec env " + clientEnv(client) + " SERVER_PORT=8081 " + JAVA + " -jar /app/sample.jar")
            .waitingFor(Wait.forHttp("/actuator/health").forPort(8080).forStatusCode(200)
                .withStartupTimeout(Duration.ofMinutes(2)));
    }

    /** A cluster client on {@code host}: continuous load on service blob-store, its counts on /actuator/load. */
    static SampleContainer clusterClient(final Network network, final String host)
    {
        return new SampleContainer(network, host)
            .withEnv("ZOOKEEPER_CONNECT", ZOOKEEPER_HOST + ":2181")
            .withCommand("sh", "-c", "exec env " + clientEnv(host) + " " + JAVA + " -jar /app/sample.jar")
            .waitingFor(Wait.forHttp("/actuator/load").forPort(8080).forStatusCode(200)
                .withStartupTimeout(Duration.ofMinutes(2)));
    }

    private static String serverEnv(final String host)
    {
        return "SPRING_PROFILES_ACTIVE=cluster,server SAMPLE_NAME=" + host + " XIO_PORTALS_0_URI=tcp://0.0.0.0:7070 " +
            "SAMPLE_CLUSTER_JOURNAL=" + JOURNAL;
    }

    /** Two writers and two readers, each pausing 5 ms between calls: a steady load that leaves the CPUs room. */
    private static String clientEnv(final String name)
    {
        return "SPRING_PROFILES_ACTIVE=cluster,client SAMPLE_NAME=" + name + " SAMPLE_CLUSTER_WRITERS=2 " +
            "SAMPLE_CLUSTER_READERS=2 SAMPLE_CLUSTER_PAUSE=5ms SAMPLE_CLUSTER_REPORT_EVERY=5s";
    }

    /** This container's host name (and its alias on the network). */
    String host()
    {
        return host;
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
        return actuator(8080, path);
    }

    /**
     * An actuator endpoint's JSON from the process whose web port in the container is {@code port}. The published
     * port is looked up each time: a container stopped and started again (not through Testcontainers) gets another.
     */
    JsonNode actuator(final int port, final String path) throws IOException, InterruptedException
    {
        return send(HttpRequest.newBuilder(actuatorUri(port, path)), path);
    }

    /** POSTs {@code json} to an actuator write operation and returns its answer. */
    JsonNode post(final int port, final String path, final String json) throws IOException, InterruptedException
    {
        return send(HttpRequest.newBuilder(actuatorUri(port, path)).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)), path);
    }

    private JsonNode send(final HttpRequest.Builder request, final String path)
        throws IOException, InterruptedException
    {
        final HttpResponse<String> response = HTTP.send(request.timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200 && response.statusCode() != 503)
        {
            throw new IllegalStateException("/actuator/" + path + " answered " + response.statusCode() + ": " +
                response.body());
        }
        return JSON.readTree(response.body());
    }

    private URI actuatorUri(final int port, final String path)
    {
        return URI.create("http://" + getHost() + ":" + publishedPort(port) + "/actuator/" + path);
    }

    private int publishedPort(final int port)
    {
        final Map<com.github.dockerjava.api.model.ExposedPort, com.github.dockerjava.api.model.Ports.Binding[]>
            bindings = getDockerClient().inspectContainerCmd(getContainerId()).exec().getNetworkSettings().getPorts()
            .getBindings();
        final com.github.dockerjava.api.model.Ports.Binding[] bound =
            bindings.get(com.github.dockerjava.api.model.ExposedPort.tcp(port));
        if (bound == null || bound.length == 0)
        {
            throw new IllegalStateException(port + " is not published (is the container running?)");
        }
        return Integer.parseInt(bound[0].getHostPortSpec());
    }

    /** A file's content in the container (running or stopped). */
    String file(final String path)
    {
        return copyFileFromContainer(path,
            in -> new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Stops the container as {@code docker stop} does: SIGTERM, then SIGKILL after {@code grace}. */
    void stopGracefully(final Duration grace)
    {
        getDockerClient().stopContainerCmd(getContainerId()).withTimeout((int)grace.toSeconds()).exec();
    }

    /** {@code docker kill -s KILL}: the process dies at once, its sockets closed by the kernel. */
    void kill()
    {
        getDockerClient().killContainerCmd(getContainerId()).withSignal("KILL").exec();
    }

    /** {@code docker start} of a stopped container: same file system (journal included), a new process. */
    void startAgain()
    {
        getDockerClient().startContainerCmd(getContainerId()).exec();
    }

    /** This container's address on the test's network. */
    String address()
    {
        return getContainerInfo().getNetworkSettings().getNetworks().values().iterator().next().getIpAddress();
    }
}
