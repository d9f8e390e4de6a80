package io.xio.spring.autoconfigure.sample.streams.client;

import io.xio.spring.call.XioClientInterceptor;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The quotes client application: its interceptor tells the tenant in every call's metadata (unless told not to). */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class QuotesClientApplication
{
    @Bean
    @ConditionalOnBooleanProperty(name = "quotes.tenant", matchIfMissing = true)
    XioClientInterceptor tenant()
    {
        return (call, chain) ->
        {
            call.metadata().put("tenant", "acme");
            return chain.proceed();
        };
    }
}
