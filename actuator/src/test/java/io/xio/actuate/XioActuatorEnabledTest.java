package io.xio.actuate;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.test.simple.SimpleTracer;
import io.xio.actuate.endpoint.XioEndpoint;
import io.xio.actuate.health.XioHealthIndicator;
import io.xio.actuate.metrics.XioMetrics;
import io.xio.actuate.observation.XioObservationInstrumentation;
import io.xio.actuate.sample.Runners;
import io.xio.engine.XioEngine;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code xio.enabled=false} turns off the endpoint, health, metrics and observation auto-configurations, even with
 * an engine bean of the application's own that would satisfy their other conditions.
 */
class XioActuatorEnabledTest
{
    @Configuration(proxyBeanMethods = false)
    static class OwnEngineAndTracing
    {
        @Bean(destroyMethod = "close")
        XioEngine ownEngine()
        {
            return XioEngine.builder().contexts(1).busyPoll(Duration.ZERO).build();
        }

        @Bean
        Tracer tracer()
        {
            return new SimpleTracer();
        }

        @Bean
        ObservationRegistry observationRegistry()
        {
            return ObservationRegistry.create();
        }
    }

    private final ApplicationContextRunner runner = Runners.runner().withUserConfiguration(OwnEngineAndTracing.class)
        .withPropertyValues("management.endpoints.web.exposure.include=xio");

    @Test
    void eachActuatorPartIsThereByDefault()
    {
        runner.run(context -> assertThat(context).hasNotFailed().hasSingleBean(XioEndpoint.class)
            .hasSingleBean(XioHealthIndicator.class).hasSingleBean(XioMetrics.class)
            .hasSingleBean(XioObservationInstrumentation.class));
    }

    @Test
    void noneIsThereWhenXioIsDisabled()
    {
        runner.withPropertyValues("xio.enabled=false").run(context -> assertThat(context).hasNotFailed()
            .hasSingleBean(XioEngine.class).doesNotHaveBean(XioEndpoint.class)
            .doesNotHaveBean(XioHealthIndicator.class).doesNotHaveBean(XioMetrics.class)
            .doesNotHaveBean(XioObservationInstrumentation.class));
    }
}
