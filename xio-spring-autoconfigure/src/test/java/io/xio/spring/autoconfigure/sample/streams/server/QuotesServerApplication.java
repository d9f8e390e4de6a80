package io.xio.spring.autoconfigure.sample.streams.server;

import io.xio.spring.call.XioServerInterceptor;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The quotes service's application: its interceptor refuses calls without a tenant. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class QuotesServerApplication
{
    @Bean
    XioServerInterceptor tenantRequired()
    {
        return (call, chain) ->
        {
            if (call.metadata().get("tenant") == null)
            {
                throw new SecurityException("no tenant");
            }
            return chain.proceed();
        };
    }
}
