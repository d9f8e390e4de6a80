package io.xio.spring.autoconfigure.cluster;

import io.xio.cluster.EndpointStatus;
import io.xio.spring.autoconfigure.sample.cluster.client.BlobsClient;
import io.xio.spring.autoconfigure.sample.cluster.client.BlobsClientApplication;
import io.xio.spring.autoconfigure.sample.cluster.server.BlobsServerApplication;
import io.xio.spring.autoconfigure.sample.cluster.server.BlobsService;
import io.xio.spring.client.XioClientRegistry;
import io.xio.spring.client.XioClientStatus;
import io.xio.spring.service.XioServiceExporter;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two blobs servers register in a real ZooKeeper (curator-test's in-JVM server) through Spring Cloud ZooKeeper
 * discovery under one service id, with their portals in the instance metadata; a client names the service
 * ({@code xio.clients.blobs.service-id}) and spreads its calls over both. One server then shuts down gracefully
 * while the client writes in a loop (writes are not idempotent): it deregisters, drains, and not one call fails
 * nor runs twice; the client's status shows the membership change.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class XioZookeeperClusterTest
{
    private TestingServer zookeeper;
    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    @BeforeEach
    void startZookeeper() throws Exception
    {
        zookeeper = new TestingServer(true);
    }

    @AfterEach
    void stop() throws Exception
    {
        for (int i = contexts.size() - 1; i >= 0; i--)
        {
            contexts.get(i).close();
        }
        zookeeper.close();
    }

    private ConfigurableApplicationContext start(final Class<?> application, final String... properties)
    {
        final List<String> args = new ArrayList<>(List.of("--spring.main.banner-mode=off", "--xio.contexts=1",
            "--xio.idle.busy-poll=0s", "--spring.cloud.zookeeper.enabled=true",
            "--spring.cloud.zookeeper.connect-string=" + zookeeper.getConnectString(),
            "--spring.cloud.zookeeper.discovery.instance-host=127.0.0.1", "--xio.shutdown.grace-period=5s",
            "--xio.client.discovery.refresh-interval=200ms"));
        for (final String property : properties)
        {
            args.add("--" + property);
        }
        final ConfigurableApplicationContext context = new SpringApplicationBuilder(application)
            .web(WebApplicationType.NONE).run(args.toArray(String[]::new));
        contexts.add(context);
        return context;
    }

    private ConfigurableApplicationContext server(final String id)
    {
        return start(BlobsServerApplication.class, "spring.application.name=blobs", "test.server-id=" + id,
            "xio.portals[0].uri=tcp://127.0.0.1:0");
    }

    private static XioClientStatus status(final ConfigurableApplicationContext client)
    {
        return client.getBean(XioClientRegistry.class).statuses().stream()
            .filter(s -> "blobs".equals(s.name())).findFirst().orElseThrow();
    }

    @Test
    void callsSpreadOverRegisteredServersAndAGracefulShutdownFailsNoCall() throws Exception
    {
        final ConfigurableApplicationContext first = server("a");
        final ConfigurableApplicationContext second = server("b");

        // Each server announced its bound portal and host identity in its ZooKeeper instance.
        final ConfigurableApplicationContext client = start(BlobsClientApplication.class,
            "spring.application.name=blobs-client", "xio.clients.blobs.service-id=blobs");
        final List<ServiceInstance> instances = client.getBean(DiscoveryClient.class).getInstances("blobs");
        assertThat(instances).hasSize(2).allSatisfy(instance -> assertThat(instance.getMetadata())
            .containsKey(DiscoveryClientEndpointResolver.HOST));
        assertThat(instances).extracting(i -> i.getMetadata().get(DiscoveryClientEndpointResolver.PORTALS))
            .containsExactlyInAnyOrderElementsOf(portals(first, second));

        final BlobsClient blobs = client.getBean(BlobsClient.class);
        await().atMost(Duration.ofSeconds(20)).until(() -> status(client).activeEndpoints() == 2);
        final Map<String, AtomicInteger> answeredBy = new ConcurrentHashMap<>();
        for (int i = 0; i < 40; i++)
        {
            answeredBy.computeIfAbsent(blobs.write("spread-" + i), k -> new AtomicInteger()).incrementAndGet();
        }
        assertThat(answeredBy.keySet()).containsExactlyInAnyOrder("a", "b");
        assertThat(writes(first) + writes(second)).isEqualTo(40);
        assertThat(status(client).endpoints()).extracting(EndpointStatus::transport).containsOnly("tcp");

        // Writes in a loop while the first server shuts down gracefully.
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicInteger done = new AtomicInteger();
        final List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        final AtomicReference<Set<String>> lastAnswers = new AtomicReference<>(ConcurrentHashMap.newKeySet());
        final Thread loop = new Thread(() ->
        {
            for (int i = 0; running.get(); i++)
            {
                try
                {
                    lastAnswers.get().add(blobs.write("loop-" + i));
                    blobs.read("loop-" + i);
                    done.incrementAndGet();
                }
                catch (final RuntimeException ex)
                {
                    failures.add(ex);
                }
            }
        }, "blobs-loop");
        loop.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> done.get() > 50);
        final BlobsService firstService = first.getBean(BlobsService.class);
        first.close();
        await().atMost(Duration.ofSeconds(20)).until(() -> status(client).endpoints().size() == 1);
        lastAnswers.set(ConcurrentHashMap.newKeySet());
        final int before = done.get();
        await().atMost(Duration.ofSeconds(10)).until(() -> done.get() > before + 50);
        running.set(false);
        loop.join(10_000);

        assertThat(failures).isEmpty();
        assertThat(lastAnswers.get()).containsExactly("b");
        assertThat(status(client).endpoints()).singleElement()
            .satisfies(e -> assertThat(e.state()).isEqualTo(EndpointStatus.State.ACTIVE));
        // Every write ran exactly once, on one of the two servers.
        final Map<String, Integer> ran = new java.util.HashMap<>();
        for (final BlobsService service : List.of(firstService, second.getBean(BlobsService.class)))
        {
            service.writes().forEach((key, count) -> ran.merge(key, count.get(), Integer::sum));
        }
        assertThat(ran.values()).containsOnly(1);
        assertThat(ran.keySet().stream().filter(k -> k.startsWith("loop-")).count()).isEqualTo(done.get());
        assertThat(client.getBean(DiscoveryClient.class).getInstances("blobs")).hasSize(1);
    }

    /** The portals each server bound, as it should have announced them. */
    private static List<String> portals(final ConfigurableApplicationContext... servers)
    {
        final List<String> bound = new ArrayList<>();
        for (final ConfigurableApplicationContext server : servers)
        {
            bound.add(server.getBean(XioServiceExporter.class).portals().stream()
                .map(p -> p.uri().endpoint().toString()).collect(Collectors.joining(",")));
        }
        return bound;
    }

    private static int writes(final ConfigurableApplicationContext server)
    {
        return server.getBean(BlobsService.class).writes().values().stream().mapToInt(AtomicInteger::get).sum();
    }
}
