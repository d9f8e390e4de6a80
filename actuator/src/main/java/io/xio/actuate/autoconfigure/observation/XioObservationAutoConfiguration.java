package io.xio.actuate.autoconfigure.observation;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.xio.actuate.metrics.XioExactlyOnceCounter;
import io.xio.spring.observation.XioCall;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContext;
import org.springframework.util.ClassUtils;

import java.util.function.Consumer;
import java.util.function.Function;
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
        final ObjectProvider<XioServerObservationConvention> serverConvention, final ApplicationContext context)
    {
        // Exactly-once calls are counted where Micrometer's core is, as the timers are.
        return new XioObservationInstrumentation(registry, clientConvention.getIfAvailable(),
            serverConvention.getIfAvailable(), ClassUtils.isPresent("io.micrometer.core.instrument.MeterRegistry",
                context.getClassLoader()) ? Counters.of(context) : null);
    }

    /** Kept apart so that this configuration loads without Micrometer's core. */
    private static final class Counters
    {
        static @Nullable Function<XioCall, Consumer<Boolean>> of(final ApplicationContext context)
        {
            final MeterRegistry meters = context.getBeanProvider(MeterRegistry.class).getIfAvailable();
            return meters == null ? null : call -> new XioExactlyOnceCounter(meters, call);
        }
    }
}
