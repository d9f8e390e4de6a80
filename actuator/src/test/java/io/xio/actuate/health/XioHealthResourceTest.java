package io.xio.actuate.health;

import io.xio.actuate.autoconfigure.health.XioHealthSourceAutoConfiguration;
import io.xio.actuate.sample.Runners;
import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.ImportXioClients;
import io.xio.spring.autoconfigure.health.XioHealthAutoConfiguration;
import io.xio.spring.health.XioHealth;
import io.xio.spring.health.XioHealth.HealthCheck;
import io.xio.spring.health.XioHealth.ServingStatus;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code xio.health} resource fed by the actuator's health: a DOWN indicator makes the server not serving, a
 * DOWN contributor named for a service makes that service not serving, the readiness group decides when the
 * application has one, only what the health endpoint answers with 503 is not serving, a flood of checks runs the
 * indicators once per time to live, and readiness refusing traffic is not serving; asked over the wire by an
 * {@code @XioClient} of {@link XioHealth}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioHealthResourceTest
{
    /** A health indicator the test turns up and down. */
    static final class Switch implements HealthIndicator
    {
        private volatile Health health = Health.up().build();
        private final java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();

        void down()
        {
            health = Health.down().withDetail("secret", "never told to callers").build();
        }

        void unknown()
        {
            health = Health.unknown().build();
        }

        void up()
        {
            health = Health.up().build();
        }

        void outOfService()
        {
            health = Health.outOfService().build();
        }

        void status(final String code)
        {
            health = Health.status(code).build();
        }

        int asked()
        {
            return asked.get();
        }

        @Override
        public Health health()
        {
            asked.incrementAndGet();
            return health;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Indicators
    {
        /** The contributor "database", standing for any of the application's. */
        @Bean
        Switch databaseHealthIndicator()
        {
            return new Switch();
        }

        /** The contributor "greeter": the health of the service exported as greeter. */
        @Bean
        Switch greeterHealthIndicator()
        {
            return new Switch();
        }
    }

    @XioClient("health")
    interface HealthClient extends XioHealth
    {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportXioClients(clients = HealthClient.class)
    static class HealthClientApp
    {
    }

    private static ApplicationContextRunner server()
    {
        return Runners.server()
            .withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class,
                EndpointAutoConfiguration.class, HealthContributorAutoConfiguration.class,
                HealthContributorRegistryAutoConfiguration.class, HealthEndpointAutoConfiguration.class,
                AvailabilityHealthContributorAutoConfiguration.class, AvailabilityProbesAutoConfiguration.class,
                XioHealthAutoConfiguration.class, XioHealthSourceAutoConfiguration.class))
            .withUserConfiguration(Indicators.class)
            // Every check asks the indicators afresh, as these tests change them between checks.
            .withPropertyValues("management.endpoint.health.cache.time-to-live=0ms");
    }

    /** Runs {@code probe} with a health client of the ready server {@code server}. */
    private static void probe(final ApplicationContext server, final Consumer<XioHealth> probe)
    {
        // What SpringApplication publishes once started and ready; a context runner does not.
        AvailabilityChangeEvent.publish(server, LivenessState.CORRECT);
        AvailabilityChangeEvent.publish(server, ReadinessState.ACCEPTING_TRAFFIC);
        final String uri = server.getBean(XioServiceExporter.class).portals().get(0).uri()
            .withResource(XioHealth.RESOURCE).toString();
        Runners.runner().withUserConfiguration(HealthClientApp.class)
            .withPropertyValues("xio.clients.health.uri=" + uri)
            .run(client -> probe.accept(client.getBean(HealthClient.class)));
    }

    @Test
    void withoutAReadinessGroupADownIndicatorMakesTheServerAndItsServicesNotServing()
    {
        server().withPropertyValues("management.endpoint.health.probes.enabled=false")
            .run(server -> probe(server, health ->
        {
            assertThat(server.getBean(ActuatorHealthSource.class)).isNotNull();
            assertThat(health.check(XioHealth.SERVER)).isEqualTo(HealthCheck.SERVING);
            assertThat(health.check("greeter")).isEqualTo(HealthCheck.SERVING);

            server.getBean("databaseHealthIndicator", Switch.class).down();
            assertThat(health.check(XioHealth.SERVER)).isEqualTo(HealthCheck.notServing("health DOWN"));
            assertThat(health.check("greeter").status()).isEqualTo(ServingStatus.NOT_SERVING);
            assertThat(health.check("nowhere").status()).isEqualTo(ServingStatus.SERVICE_UNKNOWN);

            server.getBean("databaseHealthIndicator", Switch.class).up();
            assertThat(health.check(XioHealth.SERVER)).isEqualTo(HealthCheck.SERVING);
        }));
    }

    @Test
    void aDownContributorNamedForAServiceMakesThatServiceNotServing()
    {
        server().run(server -> probe(server, health ->
        {
            server.getBean("greeterHealthIndicator", Switch.class).down();
            assertThat(health.check("greeter")).isEqualTo(HealthCheck.notServing("health of 'greeter' DOWN"));
            // The server follows the readiness group, which greeter is not in.
            assertThat(health.check(XioHealth.SERVER)).isEqualTo(HealthCheck.SERVING);
        }));
    }

    @Test
    void onlyWhatTheHealthEndpointAnswersWith503IsNotServing()
    {
        server().run(server -> probe(server, health ->
        {
            final Switch greeter = server.getBean("greeterHealthIndicator", Switch.class);
            // UNKNOWN and custom statuses answer 200 over HTTP: serving, as the health endpoint would say.
            greeter.unknown();
            assertThat(health.check("greeter")).isEqualTo(HealthCheck.SERVING);
            greeter.status("DEGRADED");
            assertThat(health.check("greeter")).isEqualTo(HealthCheck.SERVING);
            assertThat(health.check(XioHealth.SERVER)).isEqualTo(HealthCheck.SERVING);
            greeter.outOfService();
            assertThat(health.check("greeter"))
                .isEqualTo(HealthCheck.notServing("health of 'greeter' OUT_OF_SERVICE"));
        }));
    }

    @Test
    void withAReadinessGroupADownIndicatorOutsideItLeavesTheServerServing()
    {
        server().withPropertyValues("management.endpoint.health.probes.enabled=true").run(server -> probe(server,
            health ->
            {
                // The database is not in the readiness group (readinessState only): the fleet keeps serving.
                server.getBean("databaseHealthIndicator", Switch.class).down();
                assertThat(health.check(XioHealth.SERVER)).isEqualTo(HealthCheck.SERVING);
                assertThat(health.check("greeter")).isEqualTo(HealthCheck.SERVING);
            }));
    }

    @Test
    void theReadinessGroupAndItsHttpMappingDecideForTheServerAndRefusingTrafficIsNotServing()
    {
        // The group maps UNKNOWN to 503, where the default maps it to 200: only the group says not serving.
        server().withPropertyValues("management.endpoint.health.probes.enabled=true",
                "management.endpoint.health.group.readiness.include=readinessState,database",
                "management.endpoint.health.group.readiness.status.order=down,out-of-service,unknown,up",
                "management.endpoint.health.group.readiness.status.http-mapping.unknown=503")
            .run(server -> probe(server, health ->
            {
                server.getBean("databaseHealthIndicator", Switch.class).unknown();
                assertThat(health.check(XioHealth.SERVER)).isEqualTo(HealthCheck.notServing("readiness UNKNOWN"));
                server.getBean("databaseHealthIndicator", Switch.class).up();
                assertThat(health.check(XioHealth.SERVER)).isEqualTo(HealthCheck.SERVING);

                AvailabilityChangeEvent.publish(server, ReadinessState.REFUSING_TRAFFIC);
                final HealthCheck refusing = health.check(XioHealth.SERVER);
                assertThat(refusing.status()).isEqualTo(ServingStatus.NOT_SERVING);
                assertThat(refusing.detail()).isEqualTo("readiness REFUSING_TRAFFIC");
                assertThat(health.check("greeter").status()).isEqualTo(ServingStatus.NOT_SERVING);
            }));
    }

    @Test
    void aFloodOfChecksRunsTheIndicatorsOncePerTimeToLive()
    {
        server().withPropertyValues("management.endpoint.health.cache.time-to-live=1h").run(server ->
            probe(server, health ->
            {
                final Switch greeter = server.getBean("greeterHealthIndicator", Switch.class);
                final int before = greeter.asked();
                final List<CompletableFuture<HealthCheck>> checks = new ArrayList<>();
                // Eight probes at once: within what the health service runs and queues (4 + 8).
                final java.util.concurrent.ExecutorService probes = java.util.concurrent.Executors
                    .newFixedThreadPool(8);
                try
                {
                    for (int i = 0; i < 32; i++)
                    {
                        checks.add(CompletableFuture.supplyAsync(() -> health.check("greeter"), probes));
                    }
                    checks.forEach(check -> assertThat(check.join()).isEqualTo(HealthCheck.SERVING));
                }
                finally
                {
                    probes.shutdownNow();
                }
                assertThat(greeter.asked() - before).isEqualTo(1);
                // Kept for the time to live: a change shows once it has passed.
                greeter.down();
                assertThat(health.check("greeter")).isEqualTo(HealthCheck.SERVING);
            }));
    }

    @Test
    void turnedOffThereIsNoActuatorSourceNorHealthResource()
    {
        server().withPropertyValues("xio.server.health.enabled=false").run(server ->
        {
            assertThat(server).doesNotHaveBean(ActuatorHealthSource.class);
            assertThat(server).doesNotHaveBean(io.xio.spring.health.XioHealthService.class);
        });
    }
}
