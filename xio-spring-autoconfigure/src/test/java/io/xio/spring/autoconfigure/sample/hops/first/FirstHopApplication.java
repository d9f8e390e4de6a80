package io.xio.spring.autoconfigure.sample.hops.first;

import io.xio.spring.call.XioClientInterceptor;
import io.xio.spring.call.XioServerCall;
import io.xio.spring.call.XioServerInterceptor;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Serves {@link FirstHopService}: its server interceptors refuse calls without a tenant and record their order;
 * its client interceptor passes the tenant of the call being served on to the calls it makes.
 */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class FirstHopApplication
{
    /** What the server interceptors saw, in the order they ran, for tests. */
    public static final List<String> SEEN = new CopyOnWriteArrayList<>();

    @Bean
    @Order(2)
    XioServerInterceptor inner()
    {
        return (call, chain) ->
        {
            SEEN.add("inner " + call.method().getName());
            return chain.proceed();
        };
    }

    @Bean
    @Order(1)
    XioServerInterceptor tenantRequired()
    {
        return (call, chain) ->
        {
            SEEN.add("outer " + call.method().getName());
            if (call.metadata().get("tenant") == null)
            {
                throw new SecurityException("no tenant");
            }
            return chain.proceed();
        };
    }

    @Bean
    XioServerInterceptor onlyForOthers()
    {
        return new XioServerInterceptor()
        {
            @Override
            public Object intercept(final io.xio.spring.call.XioServerCall call,
                final io.xio.spring.call.XioCallChain chain)
            {
                throw new IllegalStateException("runs for no service of this application");
            }

            @Override
            public boolean appliesTo(final String service)
            {
                return !service.equals("first");
            }
        };
    }

    /** Depends on an {@code @XioClient} itself (as a token-fetching interceptor would): start-up must not cycle. */
    @Bean
    XioClientInterceptor dependsOnAClient(final LastHopClient last)
    {
        return new XioClientInterceptor()
        {
            @Override
            public Object intercept(final io.xio.spring.call.XioClientCall call,
                final io.xio.spring.call.XioCallChain chain) throws Throwable
            {
                return chain.proceed();
            }

            @Override
            public boolean appliesTo(final String client, final String service)
            {
                return false;
            }
        };
    }

    @Bean
    XioClientInterceptor tenantPropagation()
    {
        return (call, chain) ->
        {
            final XioServerCall serving = XioServerCall.current();
            if (serving != null && serving.metadata().get("tenant") != null)
            {
                call.metadata().put("tenant", serving.metadata().get("tenant"));
            }
            return chain.proceed();
        };
    }
}
