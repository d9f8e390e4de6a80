package io.xio.it.cluster;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.Network;
import org.testcontainers.junit.jupiter.Testcontainers;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's cluster profile on separate hosts: a ZooKeeper, three blob store servers registered in it and two
 * clients that find them by service id and keep a continuous load on them (writes that are not idempotent, each
 * with its own id, counted per id by the servers in a journal; idempotent reads). One set of containers for every
 * scenario, in order: a rolling restart (nothing fails, nothing runs twice, nothing is lost), a server killed with
 * SIGKILL (only its calls in flight fail, idempotent ones are retried, the others take over), a fourth server joining
 * (it takes a share of new calls), and two processes in one container (they talk over shm, chosen by the client
 * because the server is on its host; across containers tcp). Counts are printed as each scenario ends. Skipped (with
 * the reason) where no Docker engine runs: integration-tests/docker/setup-docker.sh starts one and builds the image.
 */
@Testcontainers(disabledWithoutDocker = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ClusterIT
{
    /** Writer threads per client: at most this many of its writes are in flight at once. */
    private static final int WRITERS = 2;
    private static final String SERVICE_CLIENT = "blobs";
    private static final Duration MEMBERSHIP = Duration.ofSeconds(30);

    private static Network network;
    private static SampleContainer zookeeper;
    private static final List<SampleContainer> SERVERS = new ArrayList<>();
    private static final List<SampleContainer> CLIENTS = new ArrayList<>();
    /** The fourth server, with a client process of its own on port 8081 (scenarios c and d). */
    private static SampleContainer combined;

    @BeforeAll
    static void startCluster()
    {
        network = Network.newNetwork();
        zookeeper = SampleContainer.zookeeper(network);
        zookeeper.start();
        for (int i = 1; i <= 3; i++)
        {
            SERVERS.add(SampleContainer.clusterServer(network, "store-" + i));
        }
        SERVERS.parallelStream().forEach(SampleContainer::start);
        for (int i = 1; i <= 2; i++)
        {
            CLIENTS.add(SampleContainer.clusterClient(network, "app-" + i));
        }
        CLIENTS.parallelStream().forEach(SampleContainer::start);
    }

    @AfterAll
    static void stopCluster()
    {
        final List<SampleContainer> all = new ArrayList<>(CLIENTS);
        if (combined != null)
        {
            all.add(combined);
        }
        all.addAll(SERVERS);
        all.add(zookeeper);
        for (final SampleContainer container : all)
        {
            if (container != null)
            {
                container.stop();
            }
        }
        if (network != null)
        {
            network.close();
        }
    }

    @Test
    @Order(1)
    void aRollingRestartUnderLoadFailsNothingRunsNothingTwiceAndLosesNothing() throws Exception
    {
        for (final SampleContainer client : CLIENTS)
        {
            awaitActive(client, 8080, "store-1", "store-2", "store-3");
        }
        awaitProgress(CLIENTS, 200);
        final JsonNode before = CLIENTS.get(0).actuator("health").at("/components/xio/details/clients/blobs");
        System.out.println("[cluster] before the restarts, app-1's health shows " + before);
        assertThat(before.path("active").asInt()).isEqualTo(3);

        for (final SampleContainer server : SERVERS)
        {
            final String host = server.host();
            // docker stop: SIGTERM, Spring's graceful shutdown (deregister, GOAWAY, drain), then exit.
            server.stopGracefully(Duration.ofSeconds(30));
            for (final SampleContainer client : CLIENTS)
            {
                await().atMost(MEMBERSHIP).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                {
                    assertThat(activeHosts(client, 8080)).doesNotContain(host).hasSize(2);
                    assertThat(client.actuator("health").at("/components/xio/details/clients/blobs/active").asInt())
                        .isEqualTo(2);
                });
            }
            System.out.println("[cluster] " + host + " stopped; app-1 sees " + endpoints(CLIENTS.get(0), 8080) +
                "; health " + CLIENTS.get(0).actuator("health").at("/components/xio/details/clients/blobs"));
            final long okBefore = CLIENTS.get(0).actuator("load").path("writesOk").asLong();
            server.startAgain();
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .untilAsserted(() -> assertThat(server.actuator("health").path("status").asString()).isEqualTo("UP"));
            for (final SampleContainer client : CLIENTS)
            {
                awaitActive(client, 8080, "store-1", "store-2", "store-3");
            }
            System.out.println("[cluster] " + host + " back; app-1 sees " + endpoints(CLIENTS.get(0), 8080));
            await().atMost(MEMBERSHIP).until(() ->
                CLIENTS.get(0).actuator("load").path("writesOk").asLong() > okBefore + 50);
        }

        final Accounting accounting = account("rolling restart", CLIENTS, SERVERS);
        for (final JsonNode stats : accounting.clients.values())
        {
            assertThat(stats.path("writesFailed").asLong()).as(stats.toString()).isZero();
            assertThat(stats.path("readsFailed").asLong()).as(stats.toString()).isZero();
        }
        assertThat(accounting.executedTwice).isZero();
        assertThat(accounting.lost).isZero();
        // Each server took writes in each of its runs: the restarted ones still have their first run's ids.
        assertThat(accounting.executedBy.values()).allSatisfy(count -> assertThat(count).isPositive());
    }

    @Test
    @Order(2)
    void aServerKilledFailsOnlyItsWritesInFlightAndTheOthersTakeOverWithinSeconds() throws Exception
    {
        final SampleContainer victim = SERVERS.get(1);
        final Map<String, JsonNode> before = loads(CLIENTS);
        victim.kill();
        try
        {
            final long killed = System.nanoTime();
            // New calls reach the two survivors: each client's writes go on.
            for (final SampleContainer client : CLIENTS)
            {
                final long ok = before.get(name(client)).path("writesOk").asLong();
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                    .until(() -> client.actuator("load").path("writesOk").asLong() > ok + 50);
            }
            final double recovered = (System.nanoTime() - killed) / 1e9;
            // After that no more failures: the dead server takes no new calls.
            final Map<String, JsonNode> settled = loads(CLIENTS);
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(500))
                .untilAsserted(() ->
                {
                    final Map<String, JsonNode> later = loads(CLIENTS);
                    for (final SampleContainer client : CLIENTS)
                    {
                        assertThat(later.get(name(client)).path("writesFailed").asLong())
                            .isEqualTo(settled.get(name(client)).path("writesFailed").asLong());
                    }
                });
            System.out.printf("[cluster] store-2 killed: both clients' writes went on within %.1f s%n", recovered);

            final Accounting accounting = account("kill -9", CLIENTS, SERVERS);
            assertThat(accounting.executedTwice).isZero();
            assertThat(accounting.lost).isZero();
            for (final SampleContainer client : CLIENTS)
            {
                final JsonNode stats = accounting.clients.get(name(client));
                final long failedNow = stats.path("writesFailed").asLong() -
                    before.get(name(client)).path("writesFailed").asLong();
                // Only what was in flight on store-2: one call per writer thread at most.
                assertThat(failedNow).as(stats.toString()).isLessThanOrEqualTo(WRITERS);
                assertThat(stats.path("readsFailed").asLong()).as("idempotent reads are retried: " + stats).isZero();
            }
        }
        finally
        {
            // The later scenarios count on three servers again, whatever this one found.
            victim.startAgain();
            for (final SampleContainer client : CLIENTS)
            {
                awaitActive(client, 8080, "store-1", "store-2", "store-3");
            }
        }
    }

    @Test
    @Order(3)
    void aFourthServerJoinsAndTakesAShareOfNewCalls() throws Exception
    {
        combined = SampleContainer.clusterServerWithClient(network, "store-4", "local-4");
        combined.start();
        for (final SampleContainer client : CLIENTS)
        {
            awaitActive(client, 8080, "store-1", "store-2", "store-3", "store-4");
        }
        final long servedBefore = writesOn(combined, "app-1") + writesOn(combined, "app-2");
        final long sentBefore = okWrites(CLIENTS);
        // A sample of new writes, counted rather than timed.
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
            .until(() -> okWrites(CLIENTS) - sentBefore >= 2_000);
        final long served = writesOn(combined, "app-1") + writesOn(combined, "app-2") - servedBefore;
        final long sent = okWrites(CLIENTS) - sentBefore;
        final double share = (double)served / sent;
        System.out.printf("[cluster] store-4 joined: it executed %d of the %d writes of app-1 and app-2 since " +
            "(%.0f %%)%n", served, sent, share * 100);
        // Round robin over four gives a quarter; anything near it shows the newcomer is used.
        assertThat(share).isGreaterThan(0.1);
    }

    @Test
    @Order(4)
    void twoProcessesOfOneHostTalkOverShmAndAcrossHostsOverTcp() throws Exception
    {
        awaitActive(combined, 8081, "store-1", "store-2", "store-3", "store-4");
        await().atMost(MEMBERSHIP).ignoreExceptions().until(() ->
            combined.actuator(8081, "load").path("writesOk").asLong() > 100);
        final Map<String, JsonNode> seen = endpoints(combined, 8081);
        System.out.println("[cluster] local-4 (in store-4's container) sees " + seen);
        final JsonNode local = seen.get("store-4");
        assertThat(local.path("transport").asString()).isEqualTo("shm");
        assertThat(local.path("portal").asString()).isEqualTo("shm://store-4");
        assertThat(local.path("reason").asString()).contains("same host");
        for (final String other : List.of("store-1", "store-2", "store-3"))
        {
            assertThat(seen.get(other).path("transport").asString()).as(other).isEqualTo("tcp");
            assertThat(seen.get(other).path("reason").asString()).as(other).isNotBlank();
        }
        // The clients of other hosts reach store-4 over tcp, though it also has an shm portal.
        final JsonNode remote = endpoints(CLIENTS.get(0), 8080).get("store-4");
        assertThat(remote.path("transport").asString()).isEqualTo("tcp");
        assertThat(remote.path("reason").asString()).contains("shm: another host");
        assertThat(writesOn(combined, "local-4")).isPositive();

        final List<SampleContainer> servers = new ArrayList<>(SERVERS);
        servers.add(combined);
        final Accounting accounting = account("four servers", CLIENTS, servers);
        final JsonNode localStats = accounting.clients.get("local-4");
        assertThat(localStats.path("writesFailed").asLong()).as(localStats.toString()).isZero();
        assertThat(localStats.path("readsFailed").asLong()).as(localStats.toString()).isZero();
        assertThat(accounting.executedTwice).isZero();
        assertThat(accounting.lost).isZero();
    }

    /** Waits until {@code client} (web port {@code port}) has an ACTIVE endpoint on each of {@code hosts}. */
    private static void awaitActive(final SampleContainer client, final int port, final String... hosts)
    {
        await().atMost(MEMBERSHIP).pollInterval(Duration.ofMillis(500)).ignoreExceptions().untilAsserted(() ->
            assertThat(activeHosts(client, port)).containsExactlyInAnyOrder(hosts));
    }

    /** Waits until every client has had {@code writes} more writes succeed. */
    private static void awaitProgress(final List<SampleContainer> clients, final long writes) throws Exception
    {
        final Map<String, JsonNode> before = loads(clients);
        for (final SampleContainer client : clients)
        {
            final long ok = before.get(name(client)).path("writesOk").asLong();
            await().atMost(MEMBERSHIP).until(() -> client.actuator("load").path("writesOk").asLong() >= ok + writes);
        }
    }

    private static List<String> activeHosts(final SampleContainer client, final int port) throws Exception
    {
        final List<String> hosts = new ArrayList<>();
        endpoints(client, port).forEach((host, endpoint) ->
        {
            if (endpoint.path("state").asString().equals("ACTIVE"))
            {
                hosts.add(host);
            }
        });
        return hosts;
    }

    /** The service client's endpoints in {@code /actuator/xio}, by the host name in each one's host identity. */
    private static Map<String, JsonNode> endpoints(final SampleContainer client, final int port) throws Exception
    {
        final Map<String, JsonNode> byHost = new LinkedHashMap<>();
        for (final JsonNode described : client.actuator(port, "xio").path("clients"))
        {
            if (described.path("name").asString().equals(SERVICE_CLIENT))
            {
                for (final JsonNode endpoint : described.path("endpoints"))
                {
                    final String host = endpoint.path("host").asString();
                    byHost.put(host.contains("/") ? host.substring(0, host.indexOf('/')) : host, endpoint);
                }
            }
        }
        return byHost;
    }

    private static Map<String, JsonNode> loads(final List<SampleContainer> clients) throws Exception
    {
        final Map<String, JsonNode> loads = new HashMap<>();
        for (final SampleContainer client : clients)
        {
            loads.put(name(client), client.actuator("load"));
        }
        return loads;
    }

    private static long okWrites(final List<SampleContainer> clients) throws Exception
    {
        long ok = 0;
        for (final SampleContainer client : clients)
        {
            ok += client.actuator("load").path("writesOk").asLong();
        }
        return ok;
    }

    private static long writesOn(final SampleContainer server, final String client) throws Exception
    {
        return server.actuator("writes").at("/clients/" + client + "/executed").asLong();
    }

    /** The container's host name, which is also the sample.name of the process in it (client or server). */
    private static String name(final SampleContainer container)
    {
        return container.host();
    }

    /** What the clients say they sent, against what the servers' journals say they executed. */
    private record Accounting(Map<String, JsonNode> clients, Map<String, Long> executedBy, long executedTwice,
        long lost)
    {
    }

    /**
     * Pauses every client (also the one in store-4's container, if it runs), reads each server's journal, and counts
     * write ids executed more than once (over all servers) and ids whose write succeeded but ran nowhere; prints the
     * counts and resumes the load.
     */
    private static Accounting account(final String scenario, final List<SampleContainer> clients,
        final List<SampleContainer> servers) throws Exception
    {
        final Map<String, JsonNode> stats = new LinkedHashMap<>();
        for (final SampleContainer client : clients)
        {
            stats.put(name(client), client.post(8080, "load", "{\"running\": false}"));
        }
        if (combined != null && combined.isRunning())
        {
            stats.put("local-4", combined.post(8081, "load", "{\"running\": false}"));
        }
        try
        {
            final Map<String, Map<Long, Integer>> executions = new HashMap<>();
            final Map<String, Long> executedBy = new LinkedHashMap<>();
            for (final SampleContainer server : servers)
            {
                long lines = 0;
                for (final String line : server.file(SampleContainer.JOURNAL).split("\n"))
                {
                    final int space = line.indexOf(' ');
                    if (space > 0)
                    {
                        executions.computeIfAbsent(line.substring(0, space), c -> new HashMap<>())
                            .merge(Long.parseLong(line.substring(space + 1)), 1, Integer::sum);
                        lines++;
                    }
                }
                executedBy.put(name(server), lines);
            }
            long twice = 0;
            long lost = 0;
            for (final Map.Entry<String, JsonNode> entry : stats.entrySet())
            {
                final JsonNode load = entry.getValue();
                final Map<Long, Integer> executed = executions.getOrDefault(entry.getKey(), Map.of());
                final long sent = load.path("writesSent").asLong();
                assertThat(sent).as("paused: no write in flight " + load)
                    .isEqualTo(load.path("writesOk").asLong() + load.path("writesFailed").asLong());
                assertThat(load.path("failedWriteSequences").size()).as("every failed write is listed")
                    .isEqualTo(load.path("writesFailed").asInt());
                final Set<Long> failed = new HashSet<>();
                load.path("failedWriteSequences").forEach(sequence -> failed.add(sequence.asLong()));
                long failedButExecuted = 0;
                for (long sequence = 0; sequence < sent; sequence++)
                {
                    final int times = executed.getOrDefault(sequence, 0);
                    if (times > 1)
                    {
                        twice++;
                    }
                    if (failed.contains(sequence))
                    {
                        failedButExecuted += times > 0 ? 1 : 0;
                    }
                    else if (times == 0)
                    {
                        lost++;
                    }
                }
                System.out.printf("[cluster] %s: %s writes sent=%d ok=%d failed=%d (of them executed: %d), " +
                    "reads sent=%d ok=%d failed=%d; failures %s%n", scenario, entry.getKey(), sent,
                    load.path("writesOk").asLong(), load.path("writesFailed").asLong(), failedButExecuted,
                    load.path("readsSent").asLong(), load.path("readsOk").asLong(), load.path("readsFailed").asLong(),
                    load.path("failures"));
            }
            System.out.printf("[cluster] %s: journal lines per server %s; ids executed twice: %d, ok writes " +
                "executed nowhere: %d%n", scenario, executedBy, twice, lost);
            return new Accounting(stats, executedBy, twice, lost);
        }
        finally
        {
            for (final SampleContainer client : clients)
            {
                client.post(8080, "load", "{\"running\": true}");
            }
            if (combined != null && combined.isRunning())
            {
                combined.post(8081, "load", "{\"running\": true}");
            }
        }
    }
}
