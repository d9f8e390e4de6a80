package io.xio.spring.autoconfigure.reflection;

import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.autoconfigure.codec.JacksonXioCodec;
import io.xio.spring.autoconfigure.service.XioServiceExporter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.json.JsonMapper;

/**
 * Auto-configuration of server reflection, on by default ({@code xio.server.reflection.enabled}) as Spring gRPC's
 * reflection service is: every server exports {@value XioReflection#RESOURCE}, and its services take calls in
 * JSON, decoded and encoded with Boot's {@link JsonMapper} whatever {@code xio.codec} says.
 */
@AutoConfiguration(after = XioAutoConfiguration.class)
@ConditionalOnBean(XioServiceExporter.class)
@ConditionalOnBooleanProperty(name = "xio.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "xio.server.reflection.enabled", matchIfMissing = true)
public class XioReflectionAutoConfiguration
{
    @Bean
    @ConditionalOnMissingBean
    public XioReflectionService xioReflectionService(final ObjectProvider<XioServiceExporter> exporter,
        final ObjectProvider<JsonMapper> jsonMapper)
    {
        // The exporter is asked at each call: it exports this bean, so it cannot be given to it.
        return new XioReflectionService(() -> exporter.getObject().services(),
            new JacksonXioCodec(jsonMapper.getIfAvailable(JsonMapper::new)));
    }
}
