package io.xio.actuate.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.xio.actuate.autoconfigure.observation.XioObservationAutoConfiguration;
import io.xio.actuate.metrics.XioMetrics;
import io.xio.actuate.metrics.XioTimerInstrumentation;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.observation.XioInstrumentation;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * xio's meters when Micrometer is present: the engine's figures, and call timers recorded without allocation
 * (unless the application has a tracer, when {@link XioObservationAutoConfiguration} records them instead).
 */
@AutoConfiguration(after = {XioAutoConfiguration.class, XioObservationAutoConfiguration.class},
    afterName = {"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "xio.enabled", matchIfMissing = true)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({XioEngine.class, MeterRegistry.class})
public final class XioMetricsAutoConfiguration
{
    @Bean
    @ConditionalOnMissingBean
    XioMetrics xioMetrics(final XioEngine engine)
    {
        return new XioMetrics(engine);
    }

    @Bean
    @ConditionalOnMissingBean(XioInstrumentation.class)
    XioTimerInstrumentation xioTimerInstrumentation(final MeterRegistry registry)
    {
        return new XioTimerInstrumentation(registry);
    }
}
