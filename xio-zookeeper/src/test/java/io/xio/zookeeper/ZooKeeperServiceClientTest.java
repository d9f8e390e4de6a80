package io.xio.zookeeper;

import io.xio.cluster.Endpoint;
import io.xio.cluster.EndpointStatus;
import io.xio.cluster.ServiceClient;
import io.xio.engine.CallOptions;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.SessionOptions;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A {@link ServiceClient} following servers that register in ZooKeeper, with real engines over tcp. */
class ZooKeeperServiceClientTest
{
    private static final String SERVICE = "kv";

    @AfterAll
    static void noThreadsLeft()
    {
        ZooKeeperTests.assertNoClientThreads();
    }

    @Test
    void aClientOverZooKeeperUsesTheServersThatRegisterAndLeavesTheOnesThatGo() throws Exception
    {
        try (TestingServer zooKeeper = new TestingServer(-1, true);
            TestEngines engines = new TestEngines();
            CuratorFramework clientCurator = ZooKeeperTests.client(zooKeeper.getConnectString());
            ZooKeeperEndpoints resolver = new ZooKeeperEndpoints(clientCurator))
        {
            final Server a = new Server(engines, zooKeeper, "a");
            final Server b = new Server(engines, zooKeeper, "b");
            try (ServiceClient client = ServiceClient.builder(engines.start("client"), resolver, SERVICE)
                .sessionOptions(SessionOptions.DEFAULT.withTimeout(Duration.ofSeconds(5))).build())
            {
                awaitActive(client, 2);
                for (int i = 0; i < 20; i++)
                {
                    call(client);
                }
                assertThat(a.served.get()).isEqualTo(10);
                assertThat(b.served.get()).isEqualTo(10);

                // a's process is gone as far as ZooKeeper can tell (its session ended): new calls go to b only.
                a.curator.close();
                awaitActive(client, 1);
                final int servedByA = a.served.get();
                for (int i = 0; i < 10; i++)
                {
                    assertThat(call(client)).isEqualTo("b");
                }
                assertThat(a.served.get()).isEqualTo(servedByA);

                // c joins and takes a share.
                final Server c = new Server(engines, zooKeeper, "c");
                awaitActive(client, 2);
                for (int i = 0; i < 10; i++)
                {
                    call(client);
                }
                assertThat(c.served.get()).isEqualTo(5);
                c.close();
            }
            a.close();
            b.close();
        }
    }

    private static String call(final ServiceClient client) throws Exception
    {
        try (Message response = client.request(Outbound.of(utf8("hi")), CallOptions.DEFAULT, 0)
            .get(20, TimeUnit.SECONDS))
        {
            return text(response.header());
        }
    }

    private static void awaitActive(final ServiceClient client, final int count)
    {
        await().atMost(Duration.ofSeconds(20)).until(() -> client.endpoints().stream()
            .filter(e -> e.state() == EndpointStatus.State.ACTIVE).count() == count);
    }

    /** One server process: an engine with a tcp portal, registered through a Curator client of its own. */
    private static final class Server implements AutoCloseable
    {
        final AtomicInteger served = new AtomicInteger();
        final CuratorFramework curator;
        final ZooKeeperEndpoints registry;

        Server(final TestEngines engines, final TestingServer zooKeeper, final String name) throws Exception
        {
            final XioEngine engine = engines.start(name);
            engine.register(SERVICE, request ->
            {
                served.incrementAndGet();
                request.message().close();
                request.respond(Outbound.of(utf8(name)));
            });
            final Endpoint endpoint = Endpoint.of(name + "-" + System.nanoTime(), "elsewhere",
                List.of(engine.bind("tcp://127.0.0.1:0").uri()));
            curator = ZooKeeperTests.client(zooKeeper.getConnectString());
            registry = new ZooKeeperEndpoints(curator);
            assertThat(registry.register(SERVICE, endpoint).awaitRegistered(Duration.ofSeconds(10))).isTrue();
        }

        @Override
        public void close()
        {
            registry.close();
            curator.close();
        }
    }
}
