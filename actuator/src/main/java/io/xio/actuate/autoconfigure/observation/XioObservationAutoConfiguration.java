package io.xio.actuate.autoconfigure.observation;

import io.micrometer.observation.ObservationRegistry;
import io.xio.actuate.observation.XioClientObservationConvention;
import io.xio.actuate.observation.XioObservationInstrumentation;
import io.xio.actuate.observation.XioServerObservationConvention;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.observation.XioInstrumentation;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Calls recorded as observations, so they become spans, when the application has a tracer (Micrometer
 * Tracing with Brave or OpenTelemetry), the trace context carried in each call's metadata. Without one, plain
 * timers are cheaper and say the same. An {@link XioClientObservationConvention} or
 * {@link XioServerObservationConvention} bean replaces the default naming of that side's observations.
 */
@AutoConfiguration(after = XioAutoConfiguration.class,
    afterName = {"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
        "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "xio.enabled", matchIfMissing = true)
@ConditionalOnClass(name = {"io.micrometer.observation.ObservationRegistry", "io.micrometer.tracing.Tracer"})
@ConditionalOnBean(type = "io.micrometer.tracing.Tracer")
public final class XioObservationAutoConfiguration
{
    @Bean
    @ConditionalOnMissingBean(XioInstrumentation.class)
    @ConditionalOnBean(ObservationRegistry.class)
    XioObservationInstrumentation xioObservationInstrumentation(final ObservationRegistry registry,
        final ObjectProvider<XioClientObservationConvention> clientConvention,
        final ObjectProvider<XioServerObservationConvention> serverConvention)
    {
        return new XioObservationInstrumentation(registry, clientConvention.getIfAvailable(),
            serverConvention.getIfAvailable());
    }
}
