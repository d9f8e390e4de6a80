package io.xio.spring.autoconfigure.cluster;

import io.xio.cluster.EndpointResolver;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.autoconfigure.XioProperties;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.cloud.client.serviceregistry.Registration;
import org.springframework.cloud.client.serviceregistry.ServiceRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * xio over Spring Cloud discovery, only when Spring Cloud Commons is on the class path: clients that name a service
 * ({@code xio.clients.<name>.service-id}) resolve it through the application's {@link DiscoveryClient}, and a
 * server announces its portals in the metadata of Spring Cloud's {@link Registration}, deregistering before it
 * drains. Each part backs off when the application defines its own bean, or when its Spring Cloud bean is missing.
 */
@AutoConfiguration(after = XioAutoConfiguration.class, afterName = {
    "org.springframework.cloud.client.discovery.composite.CompositeDiscoveryClientAutoConfiguration",
    "org.springframework.cloud.client.discovery.simple.SimpleDiscoveryClientAutoConfiguration",
    "org.springframework.cloud.client.CommonsClientAutoConfiguration",
    "org.springframework.cloud.client.serviceregistry.AutoServiceRegistrationAutoConfiguration",
    "org.springframework.cloud.client.serviceregistry.ServiceRegistryAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "xio.enabled", matchIfMissing = true)
@ConditionalOnClass(DiscoveryClient.class)
@ConditionalOnBean(XioEngine.class)
public final class XioDiscoveryAutoConfiguration
{
    /** The resolver of service ids, over the application's discovery client. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean(DiscoveryClient.class)
    static final class Resolver
    {
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(EndpointResolver.class)
        DiscoveryClientEndpointResolver xioDiscoveryClientEndpointResolver(final DiscoveryClient discovery,
            final XioProperties properties)
        {
            final XioProperties.Discovery settings = properties.getClient().getDiscovery();
            return new DiscoveryClientEndpointResolver(discovery, settings.getRefreshInterval(),
                settings.isInstancePortFallback());
        }
    }

    /** The server's portals in Spring Cloud's registration. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean({ServiceRegistry.class, Registration.class})
    @ConditionalOnProperty(name = "xio.server.registration.enabled", matchIfMissing = true)
    static final class Registering
    {
        @Bean
        @ConditionalOnMissingBean
        XioServiceRegistration xioServiceRegistration(final ServiceRegistry<?> registry,
            final Registration registration, final Environment environment)
        {
            return new XioServiceRegistration(registry, registration, environment);
        }
    }
}
