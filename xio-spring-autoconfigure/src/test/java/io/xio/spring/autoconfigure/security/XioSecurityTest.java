package io.xio.spring.autoconfigure.security;

import io.xio.engine.Credentials;
import io.xio.engine.SessionRejectedException;
import io.xio.engine.transport.tls.TestCertificates;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.call.XioServerInterceptor;
import io.xio.spring.client.XioAccessDeniedException;
import io.xio.spring.autoconfigure.client.XioClientFactoryBean;
import io.xio.spring.client.XioCredentialsProvider;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.autoconfigure.sample.secure.api.Trades;
import io.xio.spring.autoconfigure.sample.secure.client.TradesClient;
import io.xio.spring.autoconfigure.sample.secure.client.TradesClientApplication;
import io.xio.spring.autoconfigure.sample.secure.server.TestJwts;
import io.xio.spring.autoconfigure.sample.secure.server.TradesServerApplication;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.security.core.context.SecurityContextHolder;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Spring Security end to end, server and client in separate contexts over tcp (and tls): session set-ups
 * authenticated by user name and password, a JWT or a TLS client certificate, the caller as the SecurityContext of
 * each call so that {@code @PreAuthorize} allows and denies, refusals reaching the client as what they are, and
 * credentials from properties or a provider asked at every set-up.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioSecurityTest
{
    static ApplicationContextRunner runner(final Class<?>... configurations)
    {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, SslAutoConfiguration.class,
                XioAutoConfiguration.class, XioSecurityAutoConfiguration.class))
            .withUserConfiguration(configurations)
            .withPropertyValues("xio.contexts=1", "xio.idle.busy-poll=0s");
    }

    private static void withServer(final String[] serverProperties, final ServerTest test)
    {
        withServer(serverProperties, test, new Class<?>[0]);
    }

    private static void withServer(final String[] serverProperties, final ServerTest test,
        final Class<?>... serverConfigurations)
    {
        runner(TradesServerApplication.class).withUserConfiguration(serverConfigurations)
            .withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0")
            .withPropertyValues(serverProperties).run(server ->
            {
                assertThat(server).hasNotFailed();
                test.run("tcp://127.0.0.1:" + server.getBean(XioServiceExporter.class).portals().get(0).uri().port() +
                    "/trades");
            });
    }

    /** A test given the server's address. */
    @FunctionalInterface
    interface ServerTest
    {
        void run(String uri) throws Exception;
    }

    private static void client(final String uri, final ContextConsumer<AssertableApplicationContext> test,
        final String... clientProperties)
    {
        runner(TradesClientApplication.class).withPropertyValues("xio.clients.trades.uri=" + uri)
            .withPropertyValues(clientProperties).run(test);
    }

    private static Trades trades(final AssertableApplicationContext client)
    {
        assertThat(client).hasNotFailed();
        return client.getBean(TradesClient.class);
    }

    @Test
    void preAuthorizeAllowsTheTraderAndDeniesTheOthers()
    {
        withServer(new String[0], uri ->
        {
            client(uri, alice ->
            {
                assertThat(trades(alice).whoAmI()).isEqualTo("alice");
                assertThat(trades(alice).trade("gold")).isEqualTo("alice traded gold");
                // alice has no audit scope: denied, and told so.
                final Throwable denied = catchThrowable(() -> trades(alice).audit());
                assertThat(denied).isInstanceOf(XioAccessDeniedException.class);
                assertThat(((XioAccessDeniedException)denied).code()).isEqualTo(XioErrorCode.PERMISSION_DENIED);
                assertThat(((XioAccessDeniedException)denied).remoteMessage()).isEqualTo("access denied");
            }, "xio.clients.trades.credentials.username=alice", "xio.clients.trades.credentials.password=alice-secret");
            client(uri, bob ->
            {
                assertThat(trades(bob).whoAmI()).isEqualTo("bob");
                assertThat(catchThrowable(() -> trades(bob).trade("gold")))
                    .isInstanceOf(XioAccessDeniedException.class).hasMessageContaining("PERMISSION_DENIED");
            }, "xio.client.credentials.username=bob", "xio.client.credentials.password=bob-secret"); // the default
        });
    }

    @Test
    void aBearerTokenAuthenticatesThroughTheJwtDecoder()
    {
        withServer(new String[0], uri ->
        {
            client(uri, carol ->
            {
                assertThat(trades(carol).audit()).isEqualTo("carol audited");
                assertThat(catchThrowable(() -> trades(carol).trade("gold")))
                    .isInstanceOf(XioAccessDeniedException.class);
            }, "xio.clients.trades.credentials.token=" + TestJwts.token("carol", "audit", Duration.ofMinutes(5)));
            client(uri, forged -> assertAuthenticationFailure(catchThrowable(() -> trades(forged).whoAmI())),
                "xio.clients.trades.credentials.token=" + TestJwts.forged("carol", "audit"));
        });
    }

    @Test
    void noCredentialsAndBadCredentialsAreRefusedAsAuthenticationFailures()
    {
        withServer(new String[0], uri ->
        {
            client(uri, anonymous -> assertAuthenticationFailure(catchThrowable(() -> trades(anonymous).whoAmI())));
            client(uri, guessing -> assertAuthenticationFailure(catchThrowable(() -> trades(guessing).whoAmI())),
                "xio.clients.trades.credentials.username=alice", "xio.clients.trades.credentials.password=guessed");
        });
    }

    private static void assertAuthenticationFailure(final Throwable thrown)
    {
        Throwable cause = thrown;
        while (cause != null && !(cause instanceof SessionRejectedException))
        {
            cause = cause.getCause();
        }
        assertThat(cause).as("a SessionRejectedException in %s", thrown).isNotNull();
        assertThat(((SessionRejectedException)cause).isAuthenticationFailure()).isTrue();
        assertThat(cause.getMessage()).doesNotContain("guessed").doesNotContain("BadCredentials");
    }

    @Test
    void anAnonymousCallAfterAnAuthenticatedOneOnTheSameThreadRunsAsNobody()
    {
        // The service runs inline on the server's single context thread: both sessions' calls share it.
        withServer(new String[] {"xio.server.security.require-authentication=false"}, uri ->
            client(uri, alice ->
            {
                assertThat(trades(alice).whoAmI()).isEqualTo("alice");
                client(uri, anonymous ->
                {
                    assertThat(trades(anonymous).whoAmI()).isEqualTo("anonymous");
                    // Method security sees an anonymous authentication (hasRole decides), and the caller is denied.
                    final Throwable refused = catchThrowable(() -> trades(anonymous).trade("gold"));
                    assertThat(refused).isInstanceOf(XioAccessDeniedException.class);
                    assertThat(((XioAccessDeniedException)refused).code()).isEqualTo(XioErrorCode.PERMISSION_DENIED);
                });
                assertThat(trades(alice).whoAmI()).isEqualTo("alice");
                // Nothing of any call's context stayed on the serving thread once it returned.
                assertThat(AfterCallRecorder.AFTER).hasSizeGreaterThanOrEqualTo(4).containsOnlyNulls();
            }, "xio.clients.trades.credentials.username=alice",
                "xio.clients.trades.credentials.password=alice-secret"), AfterCallRecorder.class);
    }

    /** Records the serving thread's authentication once each call returned, outside the security interceptor. */
    @Configuration(proxyBeanMethods = false)
    static class AfterCallRecorder
    {
        static final List<Object> AFTER = new CopyOnWriteArrayList<>();

        @Bean
        @Order(Ordered.HIGHEST_PRECEDENCE)
        XioServerInterceptor afterCallRecorder()
        {
            AFTER.clear();
            return (call, chain) ->
            {
                try
                {
                    return chain.proceed();
                }
                finally
                {
                    AFTER.add(SecurityContextHolder.getContextHolderStrategy().getContext().getAuthentication());
                }
            };
        }
    }

    @Test
    void aCredentialsProviderIsAskedAtEverySetUpSoARefreshedTokenIsSent()
    {
        withServer(new String[0], uri -> runner(TradesClientApplication.class, RefreshingTokens.class)
            .withPropertyValues("xio.clients.trades.uri=" + uri,
                "xio.clients.trades.credentials.token=" + TestJwts.token("ignored", "audit", Duration.ofMinutes(5)))
            .run(client ->
            {
                RefreshingTokens.TOKEN.set(TestJwts.token("carol", "audit", Duration.ofMinutes(5)));
                assertThat(trades(client).whoAmI()).as("the provider comes before the property").isEqualTo("carol");
                RefreshingTokens.TOKEN.set(TestJwts.token("dave", "audit", Duration.ofMinutes(5)));
                // A new session of the same client (as after a lost one): set up with what the provider has now.
                final Trades again = XioClientFactoryBean.create(TradesClient.class, "trades", null,
                    client.getBeanFactory());
                assertThat(again.whoAmI()).isEqualTo("dave");
                assertThat(RefreshingTokens.ASKED_FOR).hasValue("trades");
            }));
    }

    @Test
    void credentialsThatCannotApplyFailNamingTheProperty()
    {
        client("tcp://127.0.0.1:1/trades", client ->
            assertThatThrownBy(() -> client.getBean(TradesClient.class)).rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("xio.clients.trades.credentials.token").hasMessageNotContaining("tok-4711"),
            "xio.clients.trades.credentials.token=tok-4711", "xio.clients.trades.credentials.username=x");
        client("tcp://127.0.0.1:1/trades", client ->
            assertThatThrownBy(() -> client.getBean(TradesClient.class)).rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("xio.client.credentials.username"),
            "xio.client.credentials.username=alone");
    }

    @Test
    void aClientCertificateAuthenticatesAsItsSubjectsCommonName(@TempDir final Path dir) throws IOException
    {
        final TestCertificates certificates = TestCertificates.create();
        final String server = "file:" + TestCertificates.writePem(dir, "server", certificates.server());
        final String client = "file:" + TestCertificates.writePem(dir, "client", certificates.client());
        final String ca = "file:" + TestCertificates.writePem(dir, "ca", certificates.ca().certificate());
        runner(TradesServerApplication.class).withPropertyValues("xio.portals[0].uri=tls://127.0.0.1:0",
            "xio.portals[0].ssl.bundle=server", "xio.portals[0].ssl.client-auth=need",
            "spring.ssl.bundle.pem.server.keystore.certificate=" + server,
            "spring.ssl.bundle.pem.server.keystore.private-key=" + server.replace(".crt", ".key"),
            "spring.ssl.bundle.pem.server.truststore.certificate=" + ca).run(portal ->
            {
                assertThat(portal).hasNotFailed();
                final int port = portal.getBean(XioServiceExporter.class).portals().get(0).uri().port();
                client("tls://127.0.0.1:" + port + "/trades", withCertificate ->
                {
                    assertThat(trades(withCertificate).whoAmI()).isEqualTo("client");
                    assertThat(trades(withCertificate).trade("oil")).isEqualTo("client traded oil");
                }, "xio.clients.trades.ssl.bundle=me",
                    "spring.ssl.bundle.pem.me.keystore.certificate=" + client,
                    "spring.ssl.bundle.pem.me.keystore.private-key=" + client.replace(".crt", ".key"),
                    "spring.ssl.bundle.pem.me.truststore.certificate=" + ca);
            });
    }

    /** Hands out whatever token the test put here last. */
    @Configuration(proxyBeanMethods = false)
    static class RefreshingTokens
    {
        static final AtomicReference<String> TOKEN = new AtomicReference<>();
        static final AtomicReference<String> ASKED_FOR = new AtomicReference<>();

        @Bean
        XioCredentialsProvider tokens()
        {
            return client ->
            {
                ASKED_FOR.set(client);
                return Credentials.bearer(TOKEN.get());
            };
        }
    }
}
