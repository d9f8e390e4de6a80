package io.xio.spring.autoconfigure.security;

import io.xio.spring.security.BearerTokenAuthenticationExtractor;
import io.xio.spring.security.CertificateAuthenticationExtractor;
import io.xio.spring.security.PasswordAuthenticationExtractor;
import io.xio.spring.security.XioAuthenticatingSessionAcceptor;
import io.xio.spring.security.XioAuthenticationExtractor;
import io.xio.spring.security.XioSecurityContextInterceptor;
import io.xio.spring.security.XioSecurityExceptionAdvice;
import io.xio.engine.SessionAcceptor;
import io.xio.spring.autoconfigure.XioProperties;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderStrategy;
import org.springframework.security.core.userdetails.UserDetailsService;

/**
 * Spring Security for xio's services, when it is on the class path: every call runs with its session's
 * authentication as its {@code SecurityContext} (so {@code @PreAuthorize} works on {@code @XioService} methods
 * where the application enables method security), and Spring Security's refusals reach callers as
 * PERMISSION_DENIED / UNAUTHENTICATED. Once the application configures authentication (an
 * {@link AuthenticationManager}, {@link AuthenticationProvider}, {@link UserDetailsService} or {@code JwtDecoder}
 * bean) the portals authenticate every session set-up with it ({@link XioAuthenticatingSessionAcceptor}), unless
 * the application declares its own {@link SessionAcceptor}.
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
    "org.springframework.boot.security.oauth2.server.resource.autoconfigure.servlet." +
        "OAuth2ResourceServerAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "xio.enabled", matchIfMissing = true)
@ConditionalOnClass(Authentication.class)
@EnableConfigurationProperties(XioProperties.class)
public final class XioSecurityAutoConfiguration
{
    @Bean
    @ConditionalOnMissingBean
    XioSecurityContextInterceptor xioSecurityContextInterceptor(
        final ObjectProvider<SecurityContextHolderStrategy> strategy)
    {
        return new XioSecurityContextInterceptor(
            () -> strategy.getIfAvailable(SecurityContextHolder::getContextHolderStrategy));
    }

    @Bean
    @ConditionalOnMissingBean
    XioSecurityExceptionAdvice xioSecurityExceptionAdvice()
    {
        return new XioSecurityExceptionAdvice();
    }

    @Bean
    @ConditionalOnMissingBean
    PasswordAuthenticationExtractor xioPasswordAuthenticationExtractor()
    {
        return new PasswordAuthenticationExtractor();
    }

    @Bean
    @ConditionalOnMissingBean(SessionAcceptor.class)
    @Conditional(AuthenticationConfigured.class)
    XioAuthenticatingSessionAcceptor xioSessionAcceptor(final XioProperties properties,
        final ObjectProvider<XioAuthenticationExtractor> extractors,
        final ObjectProvider<AuthenticationManager> manager, final ListableBeanFactory beans)
    {
        return new XioAuthenticatingSessionAcceptor(extractors.orderedStream().toList(),
            manager.getIfUnique(() -> XioAuthenticationManagers.fromBeans(beans)),
            properties.getServer().getSecurity().isRequireAuthentication());
    }

    /** Bearer tokens, with spring-security-oauth2-resource-server. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = XioAuthenticationManagers.BEARER_TOKEN)
    static final class BearerTokenConfiguration
    {
        @Bean
        @ConditionalOnMissingBean
        BearerTokenAuthenticationExtractor xioBearerTokenAuthenticationExtractor()
        {
            return new BearerTokenAuthenticationExtractor();
        }
    }

    /** Client certificates, with spring-security-web (its pre-authenticated token and X.509 extractor). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = XioAuthenticationManagers.PRE_AUTHENTICATED)
    static final class CertificateConfiguration
    {
        @Bean
        @ConditionalOnMissingBean
        CertificateAuthenticationExtractor xioCertificateAuthenticationExtractor()
        {
            return new CertificateAuthenticationExtractor();
        }
    }

    /** Whether the application configured a way to authenticate. */
    static final class AuthenticationConfigured extends AnyNestedCondition
    {
        AuthenticationConfigured()
        {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBean(AuthenticationManager.class)
        static final class Manager
        {
        }

        @ConditionalOnBean(AuthenticationProvider.class)
        static final class Provider
        {
        }

        @ConditionalOnBean(UserDetailsService.class)
        static final class Users
        {
        }

        @ConditionalOnBean(type = XioAuthenticationManagers.JWT_DECODER)
        static final class Jwt
        {
        }
    }
}
