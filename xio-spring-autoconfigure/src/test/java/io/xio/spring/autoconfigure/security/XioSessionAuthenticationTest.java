package io.xio.spring.autoconfigure.security;

import io.xio.spring.security.PasswordAuthenticationExtractor;
import io.xio.spring.security.XioAuthenticatingSessionAcceptor;
import io.xio.spring.security.XioSecurityContextInterceptor;
import io.xio.spring.security.XioSecurityExceptionAdvice;
import io.xio.engine.Credentials;
import io.xio.spring.security.XioAuthenticationExtractor;
import io.xio.engine.PeerIdentity;
import io.xio.engine.SessionAcceptor;
import io.xio.engine.SetupDecision;
import io.xio.engine.SetupRequest;
import io.xio.engine.XioUri;
import io.xio.engine.transport.tls.TestCertificates;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.autoconfigure.sample.secure.server.TestJwts;
import io.xio.spring.autoconfigure.sample.secure.server.TradesServerApplication;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.authentication.AuthenticationServiceException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The acceptor Spring Security configures for the portals, asked directly with set-up requests: which credentials
 * it accepts as whom, which it refuses as unauthenticated, and when it steps aside. (XioSecurityTest makes the
 * same decisions reach real clients.)
 */
class XioSessionAuthenticationTest
{
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class,
            XioSecurityAutoConfiguration.class))
        .withPropertyValues("xio.contexts=1");

    private static SetupRequest setup(final Credentials credentials)
    {
        return new SetupRequest("trades", Map.of(), "tcp://127.0.0.1:50000", XioUri.parse("tcp://127.0.0.1:7000"), 0,
            credentials, PeerIdentity.of("tcp://127.0.0.1:50000"));
    }

    private static Authentication accepted(final SetupDecision decision)
    {
        assertThat(decision).isInstanceOf(SetupDecision.Accept.class);
        return (Authentication)((SetupDecision.Accept)decision).principal();
    }

    private static String refused(final SetupDecision decision)
    {
        assertThat(decision).isInstanceOf(SetupDecision.Unauthenticated.class);
        return ((SetupDecision.Unauthenticated)decision).detail();
    }

    @Test
    void aUserAndPasswordAreCheckedByTheUserStoreAndThePasswordIsNotKept()
    {
        runner.withUserConfiguration(TradesServerApplication.class).run(context ->
        {
            final SessionAcceptor acceptor = context.getBean(SessionAcceptor.class);
            assertThat(acceptor).isInstanceOf(XioAuthenticatingSessionAcceptor.class);
            final Authentication alice = accepted(acceptor.onSetup(setup(Credentials.password("alice",
                "alice-secret"))));
            assertThat(alice.getName()).isEqualTo("alice");
            assertThat(alice.getAuthorities()).extracting(GrantedAuthority::getAuthority).contains("ROLE_trader");
            assertThat(alice.getCredentials()).as("erased once checked").isNull();

            final String detail = refused(acceptor.onSetup(setup(Credentials.password("alice", "guessed"))));
            assertThat(detail).doesNotContain("guessed");
            refused(acceptor.onSetup(setup(Credentials.password("mallory", "anything"))));
        });
    }

    @Test
    void aBearerTokenIsCheckedByTheJwtDecoder()
    {
        runner.withUserConfiguration(TradesServerApplication.class).run(context ->
        {
            final SessionAcceptor acceptor = context.getBean(SessionAcceptor.class);
            final Authentication carol = accepted(acceptor.onSetup(setup(Credentials.bearer(
                TestJwts.token("carol", "audit", Duration.ofMinutes(5))))));
            assertThat(carol.getName()).isEqualTo("carol");
            assertThat(carol.getAuthorities()).extracting(GrantedAuthority::getAuthority).contains("SCOPE_audit");

            refused(acceptor.onSetup(setup(Credentials.bearer(TestJwts.forged("carol", "audit")))));
            refused(acceptor.onSetup(setup(Credentials.bearer(TestJwts.token("carol", "audit",
                Duration.ofMinutes(-5))))));
            refused(acceptor.onSetup(setup(Credentials.bearer("not a jwt"))));
        });
    }

    @Test
    void aSetUpWithoutCredentialsIsRefusedUnlessAuthenticationIsOptional()
    {
        runner.withUserConfiguration(TradesServerApplication.class).run(context ->
            assertThat(refused(context.getBean(SessionAcceptor.class).onSetup(setup(Credentials.NONE))))
                .contains("no credentials"));
        runner.withUserConfiguration(TradesServerApplication.class)
            .withPropertyValues("xio.server.security.require-authentication=false").run(context ->
            {
                final SessionAcceptor acceptor = context.getBean(SessionAcceptor.class);
                assertThat(accepted(acceptor.onSetup(setup(Credentials.NONE)))).isNull();
                // Optional does not mean unchecked: wrong credentials are still refused.
                refused(acceptor.onSetup(setup(Credentials.password("alice", "guessed"))));
            });
    }

    @Test
    void credentialsOrACertificateThatNoExtractorUnderstandsAreRefusedEvenWhenAuthenticationIsOptional()
    {
        // Only user names and passwords are understood here: a token or a certificate cannot be checked.
        final XioAuthenticatingSessionAcceptor acceptor = new XioAuthenticatingSessionAcceptor(
            List.of(new PasswordAuthenticationExtractor()), authentication -> authentication, false);
        assertThat(refused(acceptor.onSetup(setup(Credentials.bearer("tok-4711"))))).doesNotContain("tok-4711");
        final X509Certificate certificate = TestCertificates.create().client().certificate();
        refused(acceptor.onSetup(new SetupRequest("trades", Map.of(), "tls://127.0.0.1:50000",
            XioUri.parse("tls://127.0.0.1:7000"), 0, Credentials.NONE,
            new PeerIdentity("tls://127.0.0.1:50000", List.of(certificate), null, "TLSv1.3"))));
        // Presenting nothing is still anonymous.
        assertThat(accepted(acceptor.onSetup(setup(Credentials.NONE)))).isNull();
    }

    @Test
    void aManagerThatCannotDecideRejectsWithoutBlamingThePeerAndOneThatBreaksRefuses()
    {
        final XioAuthenticatingSessionAcceptor unavailable = new XioAuthenticatingSessionAcceptor(
            List.of(new PasswordAuthenticationExtractor()), authentication ->
            {
                throw new AuthenticationServiceException("identity provider down");
            }, true);
        final SetupDecision rejected = unavailable.onSetup(setup(Credentials.password("alice", "alice-secret")));
        assertThat(rejected).isEqualTo(SetupDecision.reject("authentication unavailable"));
        final XioAuthenticatingSessionAcceptor broken = new XioAuthenticatingSessionAcceptor(
            List.of(new PasswordAuthenticationExtractor()), authentication ->
            {
                throw new IllegalStateException("user store broke on " + authentication.getName());
            }, false);
        for (int i = 0; i < 3; i++) // each refused, and logged once
        {
            assertThat(refused(broken.onSetup(setup(Credentials.password("alice", "pw-4711")))))
                .doesNotContain("pw-4711");
        }
    }

    @Test
    void withoutAWayToAuthenticateOrWithTheApplicationsOwnAcceptorItStepsAside()
    {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(SessionAcceptor.class)
            .hasSingleBean(XioSecurityContextInterceptor.class));
        runner.withUserConfiguration(TradesServerApplication.class, OwnAcceptor.class).run(context ->
            assertThat(context).getBean(SessionAcceptor.class).isSameAs(OwnAcceptor.ACCEPTOR));
        runner.withClassLoader(new FilteredClassLoader(Authentication.class)).run(context ->
            assertThat(context).hasNotFailed().doesNotHaveBean(XioSecurityContextInterceptor.class)
                .doesNotHaveBean(XioSecurityExceptionAdvice.class));
    }

    @Test
    void theApplicationsExtractorsAreAskedInTheirOrder()
    {
        runner.withUserConfiguration(TradesServerApplication.class, AttributeExtractor.class).run(context ->
        {
            final SessionAcceptor acceptor = context.getBean(SessionAcceptor.class);
            final SetupRequest withAttributes = new SetupRequest("trades", Map.of("user", "bob", "secret",
                "bob-secret"), "tcp://127.0.0.1:50000", XioUri.parse("tcp://127.0.0.1:7000"), 0,
                Credentials.password("alice", "alice-secret"), PeerIdentity.of("tcp://127.0.0.1:50000"));
            assertThat(accepted(acceptor.onSetup(withAttributes)).getName()).as("asked before the password one")
                .isEqualTo("bob");
            assertThat(accepted(acceptor.onSetup(setup(Credentials.password("alice", "alice-secret")))).getName())
                .isEqualTo("alice");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnAcceptor
    {
        static final SessionAcceptor ACCEPTOR = request -> SetupDecision.reject("mine");

        @Bean
        SessionAcceptor ownAcceptor()
        {
            return ACCEPTOR;
        }
    }

    /** Credentials of its own kind, in set-up attributes: asked first. */
    @Configuration(proxyBeanMethods = false)
    static class AttributeExtractor
    {
        @Bean
        @org.springframework.core.annotation.Order(XioAuthenticationExtractor.PASSWORD_ORDER - 1)
        XioAuthenticationExtractor attributes()
        {
            return request -> request.attributes().containsKey("user")
                ? org.springframework.security.authentication.UsernamePasswordAuthenticationToken.unauthenticated(
                    request.attributes().get("user"), request.attributes().get("secret")) : null;
        }
    }
}
