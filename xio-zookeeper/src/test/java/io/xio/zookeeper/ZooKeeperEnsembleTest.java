package io.xio.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A 3-member ZooKeeper ensemble losing a member (registrations and watches go on), then its quorum (watchers keep
 * their last set and report errors), then getting it back (changes flow again).
 */
class ZooKeeperEnsembleTest
{
    private static final Duration SOON = Duration.ofSeconds(15);

    @AfterAll
    static void noThreadsLeft()
    {
        ZooKeeperTests.assertNoClientThreads();
    }

    @Test
    void watchersKeepTheirSetWhileTheEnsembleIsDownAndFollowItWhenItIsBack() throws Exception
    {
        try (TestingCluster cluster = new TestingCluster(3))
        {
            cluster.start();
            try (CuratorFramework watcherClient = ZooKeeperTests.client(cluster.getConnectString());
                CuratorFramework serverClient = ZooKeeperTests.client(cluster.getConnectString());
                ZooKeeperEndpoints watcher = new ZooKeeperEndpoints(watcherClient);
                ZooKeeperEndpoints registry = new ZooKeeperEndpoints(serverClient))
            {
                final Recorder recorder = new Recorder();
                watcher.watch("kv", recorder);
                registry.register("kv", ZooKeeperTests.endpoint("a", 1));
                await().atMost(SOON).until(() -> List.of("a").equals(recorder.ids()));

                // One member down, the one the watcher talks to: it moves to another and hears the next change.
                final InstanceSpec first =
                    cluster.findConnectionInstance(watcherClient.getZookeeperClient().getZooKeeper());
                assertThat(cluster.killServer(first)).isTrue();
                final ZooKeeperEndpoints.ZooKeeperRegistration b =
                    registry.register("kv", ZooKeeperTests.endpoint("b", 2));
                await().atMost(SOON).until(() -> List.of("a", "b").equals(recorder.ids()));

                // Quorum lost: errors, first the connection, then the session, and no set in between. The watcher
                // may still be finishing the first outage (a re-election drops clients once more, and each reconnect
                // reports the set again), so only the events after the last connection loss are checked.
                final int errors = recorder.errors.size();
                final InstanceSpec second = cluster.getInstances().stream().filter(spec -> !spec.equals(first))
                    .findFirst().orElseThrow();
                assertThat(cluster.killServer(second)).isTrue();
                await().atMost(SOON).until(() -> recorder.errors.subList(errors, recorder.errors.size()).stream()
                    .anyMatch(e -> e instanceof KeeperException.SessionExpiredException));
                final List<Object> events = List.copyOf(recorder.events);
                int expired = events.size() - 1;
                while (!(events.get(expired) instanceof KeeperException.SessionExpiredException))
                {
                    expired--;
                }
                int lost = expired;
                while (lost > 0 && !(events.get(lost) instanceof KeeperException.ConnectionLossException))
                {
                    lost--;
                }
                assertThat(events.get(lost)).isInstanceOf(KeeperException.ConnectionLossException.class);
                assertThat(events.subList(lost, expired)).allMatch(e -> e instanceof Throwable);
                final int reports = recorder.sets.size();
                assertThat(recorder.ids()).containsExactly("a", "b");

                // Back: the rebuilt set, with the server's nodes created again under its new session; then changes.
                assertThat(cluster.restartServer(first)).isTrue();
                assertThat(cluster.restartServer(second)).isTrue();
                await().atMost(Duration.ofSeconds(30)).until(() -> recorder.sets.size() > reports &&
                    List.of("a", "b").equals(recorder.ids()));
                registry.register("kv", ZooKeeperTests.endpoint("c", 3));
                b.close();
                await().atMost(SOON).until(() -> List.of("a", "c").equals(recorder.ids()));
                assertThat(recorder.overlapped).isFalse();
            }
        }
    }
}
