package io.xio.actuate.autoconfigure.endpoint;

import io.xio.actuate.endpoint.XioEndpoint;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** The {@code xio} actuator endpoint, when Spring Boot Actuator is present and the endpoint is exposed. */
@AutoConfiguration(after = XioAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(XioEngine.class)
public class XioEndpointAutoConfiguration
{
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    public XioEndpoint xioEndpoint(final XioEngine engine)
    {
        return new XioEndpoint(engine);
    }
}
