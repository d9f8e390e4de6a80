package io.xio.actuate.autoconfigure.health;

import io.xio.actuate.health.XioHealthIndicator;
import io.xio.actuate.health.XioHealthProperties;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.client.XioClientRegistry;
import io.xio.spring.service.XioServiceExporter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/** The {@code xio} health indicator, when Spring Boot's health support is present and the indicator enabled. */
@AutoConfiguration(after = XioAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "xio.enabled", matchIfMissing = true)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(XioEngine.class)
@ConditionalOnEnabledHealthIndicator("xio")
@EnableConfigurationProperties(XioHealthProperties.class)
public final class XioHealthContributorAutoConfiguration
{
    @Bean
    @ConditionalOnMissingBean(name = "xioHealthIndicator")
    XioHealthIndicator xioHealthIndicator(final XioEngine engine,
        final ObjectProvider<XioServiceExporter> exporter, final ObjectProvider<XioClientRegistry> clients,
        final XioHealthProperties properties)
    {
        return new XioHealthIndicator(engine, exporter.getIfAvailable(), clients.getIfAvailable(),
            properties.isRequireClients());
    }
}
