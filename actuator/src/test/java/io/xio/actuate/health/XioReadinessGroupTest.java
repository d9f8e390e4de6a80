package io.xio.actuate.health;

import io.xio.actuate.sample.Runners;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kubernetes probes through Boot's health endpoint, with {@code xio} in the readiness group as docs/operations.md
 * sets it: readiness turns OUT_OF_SERVICE while the server drains (on demand, before the application stops, and on
 * stop), liveness stays UP, and a restart of the exporter makes the application ready again.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioReadinessGroupTest
{
    @Test
    void theReadinessGroupIsOutOfServiceWhileTheServerDrainsAndLivenessStaysUp()
    {
        Runners.server()
            .withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class,
                EndpointAutoConfiguration.class, HealthContributorAutoConfiguration.class,
                HealthContributorRegistryAutoConfiguration.class, HealthEndpointAutoConfiguration.class,
                AvailabilityHealthContributorAutoConfiguration.class,
                AvailabilityProbesAutoConfiguration.class))
            .withPropertyValues("management.endpoint.health.probes.enabled=true",
                "management.endpoint.health.group.readiness.include=readinessState,xio",
                "xio.shutdown.grace-period=5s")
            .run(context ->
            {
                // What SpringApplication publishes once started and ready; a context runner does not.
                AvailabilityChangeEvent.publish(context, LivenessState.CORRECT);
                AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
                final HealthEndpoint health = context.getBean(HealthEndpoint.class);
                final XioServiceExporter exporter = context.getBean(XioServiceExporter.class);
                assertThat(health.healthForPath("readiness").getStatus()).isEqualTo(Status.UP);
                assertThat(health.healthForPath("liveness").getStatus()).isEqualTo(Status.UP);

                // On demand (the xio endpoint, a rolling restart): the readiness state itself does not change.
                exporter.drain().get(10, TimeUnit.SECONDS);
                assertThat(health.healthForPath("readiness").getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
                assertThat(health.healthForPath("liveness").getStatus()).isEqualTo(Status.UP);

                exporter.stop();
                assertThat(health.healthForPath("readiness").getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
                assertThat(health.healthForPath("liveness").getStatus()).isEqualTo(Status.UP);

                exporter.start();
                assertThat(exporter.portals()).isNotEmpty();
                assertThat(health.healthForPath("readiness").getStatus()).isEqualTo(Status.UP);
                assertThat(health.healthForPath("liveness").getStatus()).isEqualTo(Status.UP);
            });
    }
}
