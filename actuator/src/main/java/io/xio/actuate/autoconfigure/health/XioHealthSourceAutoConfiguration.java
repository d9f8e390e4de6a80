package io.xio.actuate.autoconfigure.health;

import io.xio.actuate.health.ActuatorHealthSource;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.autoconfigure.health.XioHealthAutoConfiguration;
import io.xio.spring.service.XioServiceExporter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import java.time.Duration;

/**
 * The actuator's health behind the {@code xio.health} resource, when Spring Boot's health endpoint is on the class
 * path: the readiness group, or the aggregated health, and each service's own contributor if it has one, each
 * answer kept for {@code management.endpoint.health.cache.time-to-live} (one second unless set).
 */
@AutoConfiguration(after = XioAutoConfiguration.class, before = XioHealthAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "xio.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "xio.server.health.enabled", matchIfMissing = true)
@ConditionalOnClass(HealthEndpoint.class)
@ConditionalOnBean(XioServiceExporter.class)
public final class XioHealthSourceAutoConfiguration
{
    @Bean
    @ConditionalOnMissingBean
    ActuatorHealthSource xioActuatorHealthSource(final ObjectProvider<HealthEndpoint> endpoint,
        final ObjectProvider<HealthEndpointGroups> groups, final Environment environment)
    {
        // The time the health endpoint keeps its answer: a flood of checks runs the indicators once per period.
        final Duration timeToLive = Binder.get(environment)
            .bind("management.endpoint.health.cache.time-to-live", Duration.class)
            .orElse(ActuatorHealthSource.DEFAULT_TIME_TO_LIVE);
        return new ActuatorHealthSource(endpoint, groups, timeToLive, System::nanoTime);
    }
}
