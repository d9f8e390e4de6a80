package io.xio.spring.reflection;

import io.xio.spring.autoconfigure.reflection.XioReflectionAutoConfiguration;
import io.xio.engine.Credentials;
import io.xio.engine.RemoteException;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.call.XioCallChain;
import io.xio.spring.call.XioServerCall;
import io.xio.spring.call.XioServerInterceptor;
import io.xio.spring.autoconfigure.sample.secure.server.TradesServerApplication;
import io.xio.spring.autoconfigure.security.XioSecurityAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Calls in JSON on a server with Spring Security: they meet {@code @PreAuthorize} as binary calls do, and
 * reflection, open to every authenticated principal by default, is kept to a role by an interceptor that applies
 * to it alone (the pattern docs/security.md shows).
 */
class XioReflectionSecurityTest
{
    private static final Credentials ALICE = Credentials.password("alice", "alice-secret"); // a trader
    private static final Credentials BOB = Credentials.password("bob", "bob-secret"); // a viewer

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, SslAutoConfiguration.class,
            XioAutoConfiguration.class, XioSecurityAutoConfiguration.class, XioReflectionAutoConfiguration.class))
        .withUserConfiguration(TradesServerApplication.class)
        .withPropertyValues("xio.contexts=1", "xio.idle.busy-poll=0s", "xio.portals[0].uri=tcp://127.0.0.1:0");

    /** Reflection for traders only. */
    @Configuration(proxyBeanMethods = false)
    static class ReflectionForTraders
    {
        @Bean
        XioServerInterceptor reflectionForTraders()
        {
            return new XioServerInterceptor()
            {
                @Override
                public boolean appliesTo(final String service)
                {
                    return XioReflection.RESOURCE.equals(service);
                }

                @Override
                public Object intercept(final XioServerCall call, final XioCallChain chain) throws Throwable
                {
                    final Authentication caller = SecurityContextHolder.getContext().getAuthentication();
                    if (caller == null || caller.getAuthorities().stream()
                        .noneMatch(authority -> "ROLE_trader".equals(authority.getAuthority())))
                    {
                        throw new AccessDeniedException("reflection is for traders");
                    }
                    return chain.proceed();
                }
            };
        }
    }

    @Test
    void aCallInJsonMeetsPreAuthorizeAsABinaryCallDoes()
    {
        runner.run(context ->
        {
            assertThat(XioReflectionTest.call(context, "trades", "trade(String)", "[\"gold\"]", ALICE).asString())
                .isEqualTo("alice traded gold");
            assertThatThrownBy(() -> XioReflectionTest.call(context, "trades", "trade(String)", "[\"gold\"]", BOB))
                .rootCause().isInstanceOf(RemoteException.class).hasMessageContaining("PERMISSION_DENIED");
        });
    }

    @Test
    void reflectionIsOpenToEveryAuthenticatedPrincipalByDefault()
    {
        runner.run(context -> assertThat(XioReflectionTest.call(context, XioReflection.RESOURCE, "list()", "[]", BOB)
            .get(0).get("name").asString()).isEqualTo("trades"));
    }

    @Test
    void anInterceptorOnTheReflectionResourceKeepsItToARole()
    {
        runner.withUserConfiguration(ReflectionForTraders.class).run(context ->
        {
            assertThat(XioReflectionTest.call(context, XioReflection.RESOURCE, "list()", "[]", ALICE)).hasSize(1);
            assertThatThrownBy(() -> XioReflectionTest.call(context, XioReflection.RESOURCE, "list()", "[]", BOB))
                .rootCause().isInstanceOf(RemoteException.class).hasMessageContaining("PERMISSION_DENIED");
            assertThatThrownBy(() -> XioReflectionTest.call(context, XioReflection.RESOURCE, "describe(String)",
                "[\"trades\"]", BOB)).rootCause().hasMessageContaining("PERMISSION_DENIED");
            assertThat(XioReflectionTest.call(context, "trades", "whoAmI()", "[]", BOB).asString())
                .as("the other services are not its business").isEqualTo("bob");
        });
    }
}
