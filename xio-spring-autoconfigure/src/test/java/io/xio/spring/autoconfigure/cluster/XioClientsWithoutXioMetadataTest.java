package io.xio.spring.autoconfigure.cluster;

import io.xio.annotation.XioMethod;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.autoconfigure.client.XioClientFactoryBean;
import io.xio.spring.autoconfigure.sample.cluster.client.BlobsClient;
import io.xio.spring.autoconfigure.sample.cluster.server.BlobsService;
import io.xio.spring.client.XioClientRegistry;
import io.xio.spring.client.XioClientStatus;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.client.discovery.simple.SimpleDiscoveryClientAutoConfiguration;
import org.springframework.cloud.commons.util.UtilAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Clients of servers that announce nothing, as on Kubernetes: instances of Spring Cloud's
 * {@code SimpleDiscoveryClient} without xio metadata, reached at the port named {@code xio} in their metadata (as
 * Spring Cloud Kubernetes lists named ports) or, opted in, at their own port; and a client whose address is a DNS name
 * ({@code dns:///host:port/resource}), which calls every address of the name.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioClientsWithoutXioMetadataTest
{
    /** A blobs server. */
    @Configuration(proxyBeanMethods = false)
    @AutoConfigurationPackage(basePackageClasses = BlobsService.class)
    static class Server
    {
    }

    /** A blobs client. */
    @Configuration(proxyBeanMethods = false)
    @AutoConfigurationPackage(basePackageClasses = BlobsClient.class)
    static class Client
    {
    }

    private static ApplicationContextRunner server(final String id)
    {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class))
            .withUserConfiguration(Server.class)
            .withPropertyValues("xio.contexts=1", "xio.idle.busy-poll=0s", "xio.portals[0].uri=tcp://127.0.0.1:0",
                "test.server-id=" + id);
    }

    private static ApplicationContextRunner client()
    {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class,
                XioDiscoveryAutoConfiguration.class, UtilAutoConfiguration.class,
                SimpleDiscoveryClientAutoConfiguration.class))
            .withUserConfiguration(Client.class)
            .withPropertyValues("xio.contexts=1", "xio.idle.busy-poll=0s",
                "xio.client.discovery.refresh-interval=100ms");
    }

    private static int port(final ApplicationContext server)
    {
        return server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
    }

    /** The servers that answered {@code calls} reads. */
    private static Set<String> answered(final BlobsClient blobs, final int calls)
    {
        final Set<String> answered = new HashSet<>();
        for (int i = 0; i < calls; i++)
        {
            answered.add(blobs.read("k" + i));
        }
        return answered;
    }

    @Test
    void instancesWithoutXioMetadataAreCalledAtTheirPortNamedXioOrWhenOptedInAtTheirOwnPort()
    {
        server("a").run(a -> server("b").run(b -> client()
            .withPropertyValues("xio.clients.blobs.service-id=blobs",
                "xio.client.discovery.instance-port-fallback=true", // a's own port is its xio port here
                // As a registry lists a server that registered only its address.
                "spring.cloud.discovery.client.simple.instances.blobs[0].instance-id=a",
                "spring.cloud.discovery.client.simple.instances.blobs[0].uri=tcp://127.0.0.1:" + port(a),
                // As Spring Cloud Kubernetes lists a pod: its primary (web) port, its named ports in metadata.
                "spring.cloud.discovery.client.simple.instances.blobs[1].instance-id=b",
                "spring.cloud.discovery.client.simple.instances.blobs[1].uri=http://127.0.0.1:1",
                "spring.cloud.discovery.client.simple.instances.blobs[1].metadata[port.http]=1",
                "spring.cloud.discovery.client.simple.instances.blobs[1].metadata[port.xio]=" + port(b))
            .run(client ->
            {
                assertThat(client).hasNotFailed();
                final XioClientRegistry registry = client.getBean(XioClientRegistry.class);
                await().atMost(Duration.ofSeconds(20)).until(() -> registry.statuses().get(0).activeEndpoints() == 2);
                assertThat(answered(client.getBean(BlobsClient.class), 10)).containsExactlyInAnyOrder("a", "b");
            })));
    }

    @Test
    void aClientWhoseAddressIsADnsNameCallsItsAddresses()
    {
        server("a").run(a -> client()
            .withPropertyValues("xio.clients.blobs.uri=dns:///127.0.0.1:" + port(a) + "/blobs",
                "xio.client.dns.refresh-interval=200ms", "xio.client.dns.min-refresh-interval=100ms")
            .run(client ->
            {
                assertThat(client).hasNotFailed();
                final XioClientRegistry registry = client.getBean(XioClientRegistry.class);
                await().atMost(Duration.ofSeconds(20)).until(() -> registry.statuses().get(0).activeEndpoints() == 1);
                final XioClientStatus status = registry.statuses().get(0);
                assertThat(status.serviceId()).isEqualTo("dns:///127.0.0.1:" + port(a));
                assertThat(status.endpoints()).singleElement()
                    .satisfies(e -> assertThat(e.endpoint().id()).isEqualTo("tcp://127.0.0.1:" + port(a)));
                assertThat(answered(client.getBean(BlobsClient.class), 3)).containsExactly("a");
            }));
    }

    /** The live threads of the application's DNS resolver. */
    static long dnsThreads()
    {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.isAlive() && "xio-dns".equals(t.getName())).count();
    }

    @Test
    void clientsOfDnsNamesShareTheContextsOneResolverWhichTheContextStops()
    {
        server("a").run(a -> client()
            .withPropertyValues("xio.clients.blobs.uri=dns:///127.0.0.1:" + port(a) + "/blobs",
                "xio.clients.blobs-backup.uri=dns:///127.0.0.1:" + port(a) + "/blobs",
                "xio.client.dns.refresh-interval=200ms", "xio.client.dns.min-refresh-interval=100ms")
            .run(client ->
            {
                assertThat(client).hasNotFailed();
                final BlobsClient backup = XioClientFactoryBean.create(BlobsClient.class, "blobs-backup", null,
                    client);
                final XioClientRegistry registry = client.getBean(XioClientRegistry.class);
                await().atMost(Duration.ofSeconds(20)).until(() -> registry.statuses().size() == 2 &&
                    registry.statuses().stream().allMatch(s -> s.activeEndpoints() == 1));
                assertThat(backup.read("k")).isEqualTo("a");
                assertThat(dnsThreads()).as("one resolver, one thread, for both clients").isEqualTo(1);
            }));
        await().atMost(Duration.ofSeconds(10)).until(() -> dnsThreads() == 0);
    }

    /** A client API whose method's settings cannot apply: making its proxy fails. */
    interface BadTimeout
    {
        @XioMethod(timeout = "soon")
        String soon();
    }

    @Test
    void aClientThatCannotBeMadeLeavesNoServiceClientRunning()
    {
        client().withPropertyValues("xio.clients.blobs.uri=dns:///127.0.0.1:1/blobs").run(context ->
        {
            assertThatThrownBy(() -> XioClientFactoryBean.create(BadTimeout.class, null,
                "dns:///127.0.0.1:2/blobs", context)).hasMessageContaining("soon");
            // Without the proxy, nothing would ever close the service client, which would keep dialling port 2.
            await().atMost(Duration.ofSeconds(10)).until(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.isAlive() && t.getName().startsWith("xio-service-client-dns:///127.0.0.1:2")));
        });
    }

    @Test
    void aMinimumRefreshIntervalOfZeroFailsStartUpNamingTheProperty()
    {
        client().withPropertyValues("xio.client.dns.min-refresh-interval=0s")
            .run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("Failed to bind properties under 'xio.client.dns'")
                .hasStackTraceContaining("property min-refresh-interval").hasStackTraceContaining("must be positive"));
    }

    @Test
    void aDnsAddressGivenInTheAnnotationNeedsAResourceToo()
    {
        client().withPropertyValues("xio.clients.blobs.uri=dns:///127.0.0.1:1/blobs")
            .run(context -> assertThatThrownBy(() -> XioClientFactoryBean.create(BlobsClient.class, null,
            "dns:///blobs.default.svc:7000", context))
            .hasMessageContaining("names no resource"));
    }

    @Test
    void aDnsNameWithoutAResourceOrPortFailsStartUpNamingTheProperty()
    {
        client().withPropertyValues("xio.clients.blobs.uri=dns:///blobs.default.svc:7000")
            .run(context -> assertThat(context).getFailure().hasStackTraceContaining("xio.clients.blobs")
                .hasStackTraceContaining("names no resource"));
        client().withPropertyValues("xio.clients.blobs.uri=dns:///blobs.default.svc/blobs")
            .run(context -> assertThat(context).getFailure().hasStackTraceContaining("xio.clients.blobs")
                .hasStackTraceContaining("needs a port"));
    }
}
