package io.xio.spring.autoconfigure.cluster;

import io.xio.cluster.Endpoint;
import io.xio.cluster.EndpointStatus;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.client.XioClientRegistry;
import io.xio.spring.client.XioClientStatus;
import io.xio.spring.autoconfigure.sample.cluster.client.BlobsClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.client.DefaultServiceInstance;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The settings of a client that names a service: a bad one fails start-up naming its property (both an address and
 * a service, an unknown load-balancing policy or transport, a service without Spring Cloud discovery); good ones
 * give a client that resolves the service through the application's {@link DiscoveryClient} and shows its
 * instances in its status. Without Spring Cloud discovery beans nothing of it is configured.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioServiceClientPropertiesTest
{
    /** A client application whose one bean needs the blobs client, as a real one would. */
    @Configuration(proxyBeanMethods = false)
    @AutoConfigurationPackage(basePackageClasses = BlobsClient.class)
    static class ClientApp
    {
        @Bean
        Object usesBlobs(final BlobsClient blobs)
        {
            return blobs;
        }
    }

    /** One instance of blobs on a server that is not there, announced as an xio server would announce it. */
    @Configuration(proxyBeanMethods = false)
    static class Discovery
    {
        @Bean
        DiscoveryClient discoveryClient()
        {
            final ServiceInstance instance = new DefaultServiceInstance("blobs-1", "blobs", "127.0.0.1", 1, false,
                Map.of("xio.portals", "tcp://127.0.0.1:1", "xio.host", "elsewhere"));
            return new DiscoveryClient()
            {
                @Override
                public String description()
                {
                    return "test";
                }

                @Override
                public List<ServiceInstance> getInstances(final String serviceId)
                {
                    return "blobs".equals(serviceId) ? List.of(instance) : List.of();
                }

                @Override
                public List<String> getServices()
                {
                    return List.of("blobs");
                }
            };
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class,
            XioDiscoveryAutoConfiguration.class))
        .withUserConfiguration(ClientApp.class)
        .withPropertyValues("xio.contexts=1", "xio.idle.busy-poll=0s");

    @Test
    void bothAnAddressAndAServiceFailStartUpNamingBoth()
    {
        runner.withUserConfiguration(Discovery.class)
            .withPropertyValues("xio.clients.blobs.uri=tcp://127.0.0.1:1/blobs", "xio.clients.blobs.service-id=blobs")
            .run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("xio.clients.blobs.uri")
                .hasStackTraceContaining("xio.clients.blobs.service-id"));
    }

    @Test
    void anUnknownLoadBalancingPolicyFailsStartUpNamingTheProperty()
    {
        runner.withUserConfiguration(Discovery.class)
            .withPropertyValues("xio.clients.blobs.service-id=blobs", "xio.clients.blobs.load-balancing=random")
            .run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("xio.clients.blobs.load-balancing"));
    }

    @Test
    void anUnknownTransportFailsStartUpNamingTheProperty()
    {
        runner.withUserConfiguration(Discovery.class)
            .withPropertyValues("xio.clients.blobs.service-id=blobs", "xio.clients.blobs.transports=shm,carrier-pigeon")
            .run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("Failed to bind properties under 'xio.clients.blobs'")
                .hasStackTraceContaining("Unable to set value for property transports")
                .hasStackTraceContaining("carrier-pigeon"));
    }

    @Test
    void aServiceWithoutDiscoveryFailsStartUpNamingTheProperty()
    {
        runner.withPropertyValues("xio.clients.blobs.service-id=blobs")
            .run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("xio.clients.blobs.service-id")
                .hasStackTraceContaining("DiscoveryClient"));
    }

    @Test
    void withoutSpringCloudBeansNothingIsConfigured()
    {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class,
                XioDiscoveryAutoConfiguration.class))
            .withPropertyValues("xio.contexts=1", "xio.portals[0].uri=tcp://127.0.0.1:0")
            .run(context ->
            {
                assertThat(context).hasNotFailed().hasSingleBean(XioEngine.class)
                    .doesNotHaveBean(DiscoveryClientEndpointResolver.class)
                    .doesNotHaveBean(XioServiceRegistration.class);
            });
    }

    @Test
    void aServiceClientShowsTheInstancesItResolved()
    {
        runner.withUserConfiguration(Discovery.class)
            .withPropertyValues("xio.clients.blobs.service-id=blobs",
                "xio.clients.blobs.load-balancing=least-in-flight", "xio.clients.blobs.transports=tcp",
                "xio.clients.blobs.resource=store", "xio.client.discovery.refresh-interval=100ms")
            .run(context ->
            {
                assertThat(context).hasNotFailed().hasSingleBean(DiscoveryClientEndpointResolver.class);
                final XioClientRegistry registry = context.getBean(XioClientRegistry.class);
                await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                {
                    final XioClientStatus status = registry.statuses().get(0);
                    assertThat(status.serviceId()).isEqualTo("blobs");
                    assertThat(status.uri()).isNull();
                    assertThat(status.state()).isEqualTo(XioClientStatus.State.UNREACHABLE);
                    assertThat(status.endpoints()).singleElement().satisfies(endpoint ->
                    {
                        assertThat(endpoint.endpoint()).isEqualTo(new Endpoint("blobs-1", "elsewhere",
                            List.of(io.xio.engine.XioUri.parse("tcp://127.0.0.1:1")), Map.of()));
                        // Nobody listens there: its tcp portal was tried and failed.
                        assertThat(endpoint.state()).isEqualTo(EndpointStatus.State.UNREACHABLE);
                        assertThat(endpoint.lastFailure()).contains("tcp");
                    });
                });
                assertThat(context.getBean("blobsClient").toString()).contains("service blobs");
            });
    }
}
