package io.xio.zookeeper;

import io.xio.cluster.Endpoint;
import io.xio.engine.XioUri;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Curator clients with short timeouts, endpoints, and the check that nothing of ZooKeeper's outlives a test. */
final class ZooKeeperTests
{
    /** The shortest session the test servers grant (twice their tick): a lost session shows within seconds. */
    static final int SESSION_TIMEOUT_MS = 4_000;

    private ZooKeeperTests()
    {
    }

    /**
     * Curator 5.9.0 does not stop a client's SafeNotifyService thread when it closes (Curator GH-1277, fixed in a
     * later release): the tests hand each client an executor of their own and stop those at the end.
     */
    private static final List<ExecutorService> SAFE_NOTIFY = new CopyOnWriteArrayList<>();

    static CuratorFramework client(final String connectString)
    {
        final ExecutorService safeNotify = Executors.newSingleThreadExecutor(task ->
        {
            final Thread thread = new Thread(task, "Curator-test-SafeNotify");
            thread.setDaemon(true);
            return thread;
        });
        SAFE_NOTIFY.add(safeNotify);
        final CuratorFramework client = CuratorFrameworkFactory.builder()
            .connectString(connectString)
            .runSafeService(safeNotify)
            .sessionTimeoutMs(SESSION_TIMEOUT_MS)
            .connectionTimeoutMs(2_000)
            .retryPolicy(new ExponentialBackoffRetry(100, 3))
            .build();
        client.start();
        return client;
    }

    static Endpoint endpoint(final String id, final int port)
    {
        return new Endpoint(id, "host-" + id, List.of(XioUri.parse("tcp://127.0.0.1:" + port),
            XioUri.parse("shm://" + id)), Map.of("zone", "a"));
    }

    /** Fails when a thread of ours or a ZooKeeper client's is still alive a few seconds after everything closed. */
    static void assertNoClientThreads()
    {
        for (final ExecutorService executor : SAFE_NOTIFY)
        {
            executor.shutdown();
        }
        SAFE_NOTIFY.clear();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet()
            .stream()
            .filter(Thread::isAlive)
            .map(Thread::getName)
            .filter(name -> name.startsWith("xio-zookeeper-") || name.endsWith("-SendThread") ||
                name.endsWith("-EventThread") || name.contains("SendThread(") || name.startsWith("Curator-"))
            .toList()).as("threads of ZooKeeper clients and resolvers").isEmpty());
    }
}
