package io.xio.spring.autoconfigure.health;

import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.codec.FormatMappers;
import io.xio.spring.codec.JacksonXioCodec;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.health.XioHealthService;
import io.xio.spring.health.XioHealthSource;
import io.xio.spring.reflection.XioReflectionService;
import io.xio.spring.service.XioServiceExporter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import tools.jackson.databind.json.JsonMapper;

/**
 * Auto-configuration of health in the protocol, on by default ({@code xio.server.health.enabled}) as gRPC's
 * health service is commonly: every server exports {@code xio.health}, which answers from the exporter's state
 * (serving once the portals are bound, not while draining or stopped), Spring Boot's availability (ready and not
 * broken) and any other {@link XioHealthSource} beans (the actuator's health, with xio's actuator module), and takes
 * calls in JSON whatever {@code xio.codec} and reflection say.
 */
@AutoConfiguration(after = XioAutoConfiguration.class)
@ConditionalOnBean(XioServiceExporter.class)
@ConditionalOnBooleanProperty(name = "xio.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "xio.server.health.enabled", matchIfMissing = true)
public final class XioHealthAutoConfiguration
{
    @Bean
    @ConditionalOnMissingBean
    XioHealthService xioHealthService(final ObjectProvider<XioServiceExporter> exporter,
        final ObjectProvider<XioHealthSource> sources, final ObjectProvider<XioCodec> codec,
        final ObjectProvider<JsonMapper> jsonMapper)
    {
        // The exporter is asked at each call: it exports this bean, so it cannot be given to it.
        final XioHealthService.Server server = new XioHealthService.Server()
        {
            @Override
            public boolean isServing()
            {
                final XioServiceExporter exported = exporter.getObject();
                return exported.isRunning() && !exported.isDraining();
            }

            @Override
            public boolean exports(final String service)
            {
                return !XioReflectionService.isReserved(service) &&
                    exporter.getObject().services().stream().anyMatch(s -> s.resource().equals(service));
            }
        };
        return new XioHealthService(server, sources.orderedStream().toList(), new JacksonXioCodec(
            FormatMappers.json(codec.getIfAvailable(), () -> jsonMapper.getIfAvailable(JsonMapper::new))));
    }

    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    XioHealthSource xioAvailabilityHealthSource(final ObjectProvider<ApplicationAvailability> availability)
    {
        return new AvailabilityHealthSource(availability);
    }
}
