package io.xio.spring.autoconfigure.sample.hops.caller;

import io.xio.spring.call.XioClientInterceptor;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Calls the first hop; its client interceptor names the tenant unless the call is to go without one. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class CallerApplication
{
    @Bean
    XioClientInterceptor tenant()
    {
        return (call, chain) ->
        {
            if (!"anonymous".equals(call.arguments().get(0)))
            {
                call.metadata().put("tenant", "acme");
            }
            if ("twice".equals(call.arguments().get(0)))
            {
                chain.proceed(); // a retrying interceptor: xio refuses the second send
            }
            return chain.proceed();
        };
    }
}
