package io.xio.zookeeper;

import io.xio.cluster.Endpoint;
import io.xio.cluster.EndpointRegistry;
import io.xio.cluster.EndpointResolver;
import io.xio.engine.XioUri;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Membership through one in-JVM ZooKeeper server: servers register and leave, a server process dies (its client
 * closes and its ephemeral node goes), sessions expire on either side, and nodes with bad data lie in the way.
 */
class ZooKeeperEndpointsTest
{
    private static final Duration SOON = Duration.ofSeconds(5);
    private static final AtomicInteger ROOTS = new AtomicInteger();

    private static TestingServer server;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private String root;
    private CuratorFramework watcherClient;
    private ZooKeeperEndpoints watcher;

    @BeforeAll
    static void startServer() throws Exception
    {
        server = new TestingServer(-1, true);
    }

    @AfterAll
    static void stopServer() throws Exception
    {
        server.close();
        ZooKeeperTests.assertNoClientThreads();
    }

    @BeforeEach
    void watcher()
    {
        root = "/xio-test/" + ROOTS.incrementAndGet() + "/services";
        watcherClient = client();
        watcher = closing(new ZooKeeperEndpoints(watcherClient, root));
    }

    @AfterEach
    void close() throws Exception
    {
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            closeables.get(i).close();
        }
    }

    @Test
    void membershipChangesReachTheWatcherAsWholeSetsOnOneThread() throws Exception
    {
        final Recorder recorder = new Recorder();
        watcher.watch("orders", recorder);
        await().atMost(SOON).until(() -> List.of().equals(recorder.ids()));

        final ZooKeeperEndpoints serverA = closing(new ZooKeeperEndpoints(client(), root));
        final EndpointRegistry.Registration a = serverA.register("orders", ZooKeeperTests.endpoint("a", 7001));
        await().atMost(SOON).until(() -> List.of("a").equals(recorder.ids()));
        assertThat(recorder.sets.get(recorder.sets.size() - 1)).containsExactly(ZooKeeperTests.endpoint("a", 7001));

        final CuratorFramework clientB = client();
        final ZooKeeperEndpoints serverB = new ZooKeeperEndpoints(clientB, root);
        serverB.register("orders", ZooKeeperTests.endpoint("b", 7002));
        await().atMost(SOON).until(() -> List.of("a", "b").equals(recorder.ids()));

        a.close();
        await().atMost(SOON).until(() -> List.of("b").equals(recorder.ids()));

        // A rolling restart: b's process dies without deregistering (its client's session ends with it), b2 starts.
        clientB.close();
        serverA.register("orders", ZooKeeperTests.endpoint("b2", 7003));
        await().atMost(SOON).until(() -> List.of("b2").equals(recorder.ids()));

        assertThat(recorder.threads).hasSize(1).allMatch(name -> name.startsWith("xio-zookeeper-"));
        assertThat(recorder.overlapped).isFalse();
        assertThat(recorder.errors).isEmpty();
        for (int i = 1; i < recorder.sets.size(); i++)
        {
            assertThat(recorder.sets.get(i)).as("report %d repeats the one before", i)
                .isNotEqualTo(recorder.sets.get(i - 1));
        }
        serverB.close();
    }

    @Test
    void theServiceNodeIsCreatedAndAnUnchangedSetIsNotReportedAgain() throws Exception
    {
        final Recorder recorder = new Recorder();
        watcher.watch("kv", recorder);
        await().atMost(SOON).until(() -> watcherClient.checkExists().forPath(root + "/kv") != null);
        await().atMost(SOON).until(() -> List.of().equals(recorder.ids()));

        final ZooKeeperEndpoints.ZooKeeperRegistration a = watcher.register("kv", ZooKeeperTests.endpoint("a", 7001));
        assertThat(a.awaitRegistered(SOON)).isTrue();
        await().atMost(SOON).until(() -> List.of("a").equals(recorder.ids()));
        final int reports = recorder.sets.size();

        // The same data written again changes the node's version, not the endpoint.
        final byte[] data = watcherClient.getData().forPath(a.path());
        watcherClient.setData().forPath(a.path(), data);
        watcher.register("kv", ZooKeeperTests.endpoint("b", 7002));
        await().atMost(SOON).until(() -> List.of("a", "b").equals(recorder.ids()));
        assertThat(recorder.sets).hasSize(reports + 1);

        // Other metadata is a change.
        watcherClient.setData().forPath(a.path(), EndpointCodec.encode(new Endpoint("a", "host-a",
            List.of(XioUri.parse("tcp://127.0.0.1:7001")), Map.of("zone", "b"))));
        await().atMost(SOON).until(() -> recorder.sets.get(recorder.sets.size() - 1).get(0).metadata()
            .equals(Map.of("zone", "b")));
    }

    @Test
    void malformedNodesAreSkippedAndTheRestStillCounts() throws Exception
    {
        final String service = root + "/kv";
        watcherClient.create().creatingParentsIfNeeded().forPath(service);
        final byte[] huge = new byte[EndpointCodec.MAX_BYTES + 1];
        Arrays.fill(huge, (byte) 'a');
        System.arraycopy("v1\nportal=tcp://h:1\nmeta.x=".getBytes(StandardCharsets.US_ASCII), 0, huge, 0, 27);
        final Map<String, byte[]> bad = Map.of(
            "empty", new byte[0],
            "huge", huge,
            "not-utf8", new byte[] {'v', '1', '\n', (byte) 0xC3, (byte) 0x28},
            "future", "v2\nportal=tcp://h:1\n".getBytes(StandardCharsets.UTF_8),
            "no-portal", "v1\nhost=h\n".getBytes(StandardCharsets.UTF_8),
            "bad-portal", "v1\nportal=tcp://\n".getBytes(StandardCharsets.UTF_8),
            "two-hosts", "v1\nhost=a\nhost=b\nportal=tcp://h:1\n".getBytes(StandardCharsets.UTF_8),
            "no-equals", "v1\nportal=tcp://h:1\nnonsense\n".getBytes(StandardCharsets.UTF_8));
        for (final Map.Entry<String, byte[]> node : bad.entrySet())
        {
            watcherClient.create().forPath(service + "/" + node.getKey(), node.getValue());
        }
        watcherClient.create().forPath(service + "/good", EndpointCodec.encode(ZooKeeperTests.endpoint("good", 1)));
        watcherClient.create().forPath(service + "/good/deeper", "junk".getBytes(StandardCharsets.UTF_8));

        final Recorder recorder = new Recorder();
        watcher.watch("kv", recorder);
        await().atMost(SOON).until(() -> List.of("good").equals(recorder.ids()));

        // The watch goes on: a good node joins, a bad one turns good.
        watcher.register("kv", ZooKeeperTests.endpoint("later", 2));
        watcherClient.setData().forPath(service + "/future", EndpointCodec.encode(ZooKeeperTests.endpoint("x", 3)));
        await().atMost(SOON).until(() -> List.of("future", "good", "later").equals(recorder.ids()));
        assertThat(recorder.errors).isEmpty();
    }

    @Test
    void aRegistrationIsCreatedAgainAfterItsSessionExpired() throws Exception
    {
        final Recorder recorder = new Recorder();
        watcher.watch("kv", recorder);
        final CuratorFramework serverClient = client();
        final ZooKeeperEndpoints registry = closing(new ZooKeeperEndpoints(serverClient, root));
        final ZooKeeperEndpoints.ZooKeeperRegistration a = registry.register("kv", ZooKeeperTests.endpoint("a", 1));
        assertThat(a.awaitRegistered(SOON)).isTrue();
        await().atMost(SOON).until(() -> List.of("a").equals(recorder.ids()));
        final long firstSession = watcherClient.checkExists().forPath(a.path()).getEphemeralOwner();

        serverClient.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();

        await().atMost(Duration.ofSeconds(15)).until(() ->
        {
            final Stat stat = watcherClient.checkExists().forPath(a.path());
            return stat != null && stat.getEphemeralOwner() != firstSession &&
                stat.getEphemeralOwner() == serverClient.getZookeeperClient().getZooKeeper().getSessionId();
        });
        await().atMost(SOON).until(() -> List.of("a").equals(recorder.ids()));

        a.close();
        assertThat(watcherClient.checkExists().forPath(a.path())).isNull();
        await().atMost(SOON).until(() -> List.of().equals(recorder.ids()));
    }

    @Test
    void aWatcherWhoseSessionExpiredReportsTheErrorThenTheRebuiltSet() throws Exception
    {
        final Recorder recorder = new Recorder();
        watcher.watch("kv", recorder);
        final ZooKeeperEndpoints registry = closing(new ZooKeeperEndpoints(client(), root));
        registry.register("kv", ZooKeeperTests.endpoint("a", 1));
        await().atMost(SOON).until(() -> List.of("a").equals(recorder.ids()));
        final int reports = recorder.sets.size();

        watcherClient.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();

        await().atMost(Duration.ofSeconds(15)).until(() -> recorder.errors.stream()
            .anyMatch(e -> e instanceof KeeperException.SessionExpiredException));
        await().atMost(Duration.ofSeconds(15)).until(() -> recorder.sets.size() > reports);
        assertThat(recorder.sets.subList(reports - 1, recorder.sets.size())).allMatch(set -> set.size() == 1);

        registry.register("kv", ZooKeeperTests.endpoint("b", 2));
        await().atMost(SOON).until(() -> List.of("a", "b").equals(recorder.ids()));
        assertThat(recorder.overlapped).isFalse();
    }

    @Test
    void aWatcherThatCannotReachZooKeeperAtStartSaysSoAndReportsOnceItCan() throws Exception
    {
        // A port picked now (bound and released): one bound at start would not be known to the client before.
        try (TestingServer late = new TestingServer(InstanceSpec.getRandomPort(), false))
        {
            final CuratorFramework client = closing(ZooKeeperTests.client(late.getConnectString()));
            final ZooKeeperEndpoints endpoints = closing(new ZooKeeperEndpoints(client, root));
            final Recorder recorder = new Recorder();
            endpoints.watch("kv", recorder);
            await().atMost(SOON).until(() -> recorder.errors.stream()
                .anyMatch(e -> e instanceof KeeperException.ConnectionLossException));
            assertThat(recorder.sets).isEmpty();

            late.start();
            await().atMost(Duration.ofSeconds(15)).until(() -> List.of().equals(recorder.ids()));
            endpoints.close();
            client.close();
        }
    }

    @Test
    void closingTheWatchStopsReportsAndClosingTheResolverDeregisters() throws Exception
    {
        final Recorder recorder = new Recorder();
        final EndpointResolver.Watch watch = watcher.watch("kv", recorder);
        await().atMost(SOON).until(() -> List.of().equals(recorder.ids()));
        watch.close();

        final ZooKeeperEndpoints registry = new ZooKeeperEndpoints(client(), root);
        final ZooKeeperEndpoints.ZooKeeperRegistration a = registry.register("kv", ZooKeeperTests.endpoint("a", 1));
        assertThat(a.awaitRegistered(SOON)).isTrue();
        final Recorder second = new Recorder();
        watcher.watch("kv", second);
        await().atMost(SOON).until(() -> List.of("a").equals(second.ids()));
        assertThat(recorder.sets).hasSize(1);

        registry.close();
        assertThat(watcherClient.checkExists().forPath(a.path())).isNull();
        await().atMost(SOON).until(() -> List.of().equals(second.ids()));
        assertThatThrownBy(() -> registry.register("kv", ZooKeeperTests.endpoint("b", 2)))
            .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aClientClosedUnderTheResolverEndsItsRegistrationsAndWatches() throws Exception
    {
        final CuratorFramework client = client();
        final ZooKeeperEndpoints endpoints = closing(new ZooKeeperEndpoints(client, root));
        final ZooKeeperEndpoints.ZooKeeperRegistration a = endpoints.register("kv", ZooKeeperTests.endpoint("a", 1));
        assertThat(a.awaitRegistered(SOON)).isTrue();
        final Recorder own = new Recorder();
        endpoints.watch("kv", own);
        final Recorder other = new Recorder();
        watcher.watch("kv", other);
        await().atMost(SOON).until(() -> List.of("a").equals(own.ids()) && List.of("a").equals(other.ids()));

        client.close();
        await().atMost(SOON).until(() -> List.of().equals(other.ids()));
        await().atMost(SOON).until(() -> own.errors.stream().anyMatch(e -> e instanceof IllegalStateException));
        assertThat(own.ids()).containsExactly("a");
        assertThat(a.awaitRegistered(Duration.ZERO)).as("registration still open").isFalse();
        endpoints.close();
    }

    @Test
    void badNamesAndDoubleRegistrationsAreRefused()
    {
        assertThatThrownBy(() -> new ZooKeeperEndpoints(watcherClient, "relative"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'relative'");
        assertThatThrownBy(() -> new ZooKeeperEndpoints(watcherClient, "/a//b"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'/a//b'");
        assertThatThrownBy(() -> watcher.watch("a/b", new Recorder()))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("service name 'a/b'");
        assertThatThrownBy(() -> watcher.register("..", ZooKeeperTests.endpoint("a", 1)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("service name '..'");
        assertThatThrownBy(() -> watcher.register("kv", ZooKeeperTests.endpoint("x/y", 1)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("endpoint id 'x/y'");
        assertThatThrownBy(() -> watcher.register("kv", new Endpoint("a", "line\nbreak",
            List.of(XioUri.parse("tcp://h:1")), Map.of())))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line break");

        watcher.register("kv", ZooKeeperTests.endpoint("a", 1));
        assertThatThrownBy(() -> watcher.register("kv", ZooKeeperTests.endpoint("a", 2)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("registered already");
    }

    @Test
    void theDefaultRootIsXioServices() throws Exception
    {
        try (ZooKeeperEndpoints endpoints = new ZooKeeperEndpoints(watcherClient))
        {
            assertThat(endpoints.root()).isEqualTo("/xio/services");
            final ZooKeeperEndpoints.ZooKeeperRegistration registration =
                endpoints.register("default-root", ZooKeeperTests.endpoint("a", 1));
            assertThat(registration.awaitRegistered(SOON)).isTrue();
            assertThat(registration.path()).isEqualTo("/xio/services/default-root/a");
            assertThat(watcherClient.checkExists().forPath(registration.path()).getEphemeralOwner()).isNotZero();
            assertThat(watcherClient.getData().forPath(registration.path()))
                .asString(StandardCharsets.UTF_8)
                .isEqualTo("v1\nhost=host-a\nportal=tcp://127.0.0.1:1\nportal=shm://a\nmeta.zone=a\n");
        }
        assertThat(watcherClient.checkExists().forPath("/xio/services/default-root/a")).isNull();
    }

    @Test
    void aDeepSubtreeUnderTheServicePathIsNotHeldAndTheEndpointsStillResolve() throws Exception
    {
        final ZooKeeperEndpoints registry = closing(new ZooKeeperEndpoints(client(), root));
        registry.register("orders", ZooKeeperTests.endpoint("a", 7001));
        // Any writer of the service path: trees under children that are no endpoints, one 40 levels deep.
        final String service = root + "/orders";
        final StringBuilder deep = new StringBuilder(service + "/junk");
        for (int i = 0; i < 40; i++)
        {
            deep.append("/n").append(i);
        }
        watcherClient.create().creatingParentsIfNeeded().forPath(deep.toString(), new byte[1000]);
        final Recorder recorder = new Recorder();
        watcher.watch("orders", recorder);
        await().atMost(SOON).until(() -> List.of("a").equals(recorder.ids()));
        watcherClient.create().creatingParentsIfNeeded().forPath(service + "/more/x/y/z", new byte[1000]);
        watcherClient.create().forPath(deep + "/later", new byte[1000]);
        registry.register("orders", ZooKeeperTests.endpoint("b", 7002));
        await().atMost(SOON).until(() -> List.of("a", "b").equals(recorder.ids()));

        // The service node and its four children (a, b, junk, more), nothing under them.
        assertThat(watcher.cachedNodes("orders")).isEqualTo(5);
        assertThat(recorder.errors).isEmpty();
    }

    private CuratorFramework client()
    {
        return closing(ZooKeeperTests.client(server.getConnectString()));
    }

    private <T extends AutoCloseable> T closing(final T closeable)
    {
        closeables.add(closeable);
        return closeable;
    }
}
