package io.xio.actuate.autoconfigure.observation;

import io.micrometer.observation.ObservationRegistry;
import io.xio.actuate.observation.XioObservationInstrumentation;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.autoconfigure.observation.XioInstrumentation;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Calls recorded as observations, so they become spans, when the application has a tracer (Micrometer
 * Tracing with Brave or OpenTelemetry). Without one, plain timers are cheaper and say the same.
 */
@AutoConfiguration(after = XioAutoConfiguration.class,
    afterName = {"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
        "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration"})
@ConditionalOnClass(name = {"io.micrometer.observation.ObservationRegistry", "io.micrometer.tracing.Tracer"})
@ConditionalOnBean(type = "io.micrometer.tracing.Tracer")
public class XioObservationAutoConfiguration
{
    @Bean
    @ConditionalOnMissingBean(XioInstrumentation.class)
    @ConditionalOnBean(ObservationRegistry.class)
    public XioObservationInstrumentation xioObservationInstrumentation(final ObservationRegistry registry)
    {
        return new XioObservationInstrumentation(registry);
    }
}
