package io.xio.spring.autoconfigure.reflection;

import io.xio.spring.reflection.XioReflection;
import io.xio.spring.reflection.XioReflectionService;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.codec.FormatMappers;
import io.xio.spring.codec.JacksonXioCodec;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.service.XioServiceExporter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import tools.jackson.databind.json.JsonMapper;

/**
 * Auto-configuration of server reflection, on by default ({@code xio.server.reflection.enabled}) as Spring gRPC's
 * reflection service is: every server exports {@value XioReflection#RESOURCE}, and its services take calls in
 * JSON whatever {@code xio.codec} says, decoded and encoded with a JSON mapper configured like the binary codec's
 * (naming strategy, modules, features), so that a call in JSON and a binary call read the same properties.
 */
@AutoConfiguration(after = XioAutoConfiguration.class)
@ConditionalOnBean(XioServiceExporter.class)
@ConditionalOnBooleanProperty(name = "xio.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "xio.server.reflection.enabled", matchIfMissing = true)
@ImportRuntimeHints(XioReflectionAutoConfiguration.DescriptionHints.class)
public final class XioReflectionAutoConfiguration
{
    /**
     * The descriptions are written with Jackson from records no exported signature names (describe answers
     * bytes), so a native image is told about them here.
     */
    static final class DescriptionHints implements RuntimeHintsRegistrar
    {
        @Override
        public void registerHints(final RuntimeHints hints, final ClassLoader classLoader)
        {
            new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
                XioReflection.ServiceDescription.class);
        }
    }

    @Bean
    @ConditionalOnMissingBean
    XioReflectionService xioReflectionService(final ObjectProvider<XioServiceExporter> exporter,
        final ObjectProvider<XioCodec> codec, final ObjectProvider<JsonMapper> jsonMapper)
    {
        // The exporter is asked at each call: it exports this bean, so it cannot be given to it.
        return new XioReflectionService(() -> exporter.getObject().services(),
            new JacksonXioCodec(FormatMappers.json(codec.getIfAvailable(),
                () -> jsonMapper.getIfAvailable(JsonMapper::new))));
    }
}
