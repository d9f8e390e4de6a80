package io.xio.spring.autoconfigure.security;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.authentication.dao.DaoAuthenticationProvider;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.util.ClassUtils;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@link AuthenticationManager} the portals use when the application has none of its own (or several): a
 * {@link ProviderManager} over the application's {@link AuthenticationProvider} beans, a
 * {@code JwtAuthenticationProvider} for its {@code JwtDecoder} (with its {@code JwtAuthenticationConverter}, if
 * any), and for its {@link UserDetailsService} a {@link DaoAuthenticationProvider} (with its
 * {@link PasswordEncoder}, if any) and a pre-authenticated provider for client certificates. Made once, at
 * start-up; the optional parts are kept in classes of their own, so that this loads without them.
 */
final class XioAuthenticationManagers
{
    static final String BEARER_TOKEN =
        "org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken";
    static final String JWT_DECODER = "org.springframework.security.oauth2.jwt.JwtDecoder";
    static final String PRE_AUTHENTICATED =
        "org.springframework.security.web.authentication.preauth.PreAuthenticatedAuthenticationToken";

    private XioAuthenticationManagers()
    {
    }

    static AuthenticationManager fromBeans(final ListableBeanFactory beans)
    {
        final ClassLoader loader = XioAuthenticationManagers.class.getClassLoader();
        final List<AuthenticationProvider> providers = new ArrayList<>(
            beans.getBeanProvider(AuthenticationProvider.class).orderedStream().toList());
        if (ClassUtils.isPresent(JWT_DECODER, loader) && ClassUtils.isPresent(BEARER_TOKEN, loader))
        {
            Jwts.add(beans, providers);
        }
        final UserDetailsService users = beans.getBeanProvider(UserDetailsService.class).getIfUnique();
        if (users != null)
        {
            final DaoAuthenticationProvider passwords = new DaoAuthenticationProvider(users);
            beans.getBeanProvider(PasswordEncoder.class).ifUnique(passwords::setPasswordEncoder);
            providers.add(passwords);
            if (ClassUtils.isPresent(PRE_AUTHENTICATED, loader))
            {
                Certificates.add(users, providers);
            }
        }
        if (providers.isEmpty())
        {
            throw new IllegalStateException("xio cannot authenticate session set-ups: there are several " +
                "AuthenticationManager beans and no AuthenticationProvider, UserDetailsService or JwtDecoder; mark " +
                "one manager @Primary or declare a SessionAcceptor bean");
        }
        return new ProviderManager(providers);
    }

    /** Bearer tokens that are JWTs, with spring-security-oauth2-resource-server and -jose. */
    private static final class Jwts
    {
        static void add(final ListableBeanFactory beans, final List<AuthenticationProvider> providers)
        {
            final ObjectProvider<org.springframework.security.oauth2.jwt.JwtDecoder> decoder =
                beans.getBeanProvider(org.springframework.security.oauth2.jwt.JwtDecoder.class);
            decoder.ifUnique(jwt ->
            {
                final org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationProvider
                    provider = new org.springframework.security.oauth2.server.resource.authentication
                        .JwtAuthenticationProvider(jwt);
                beans.getBeanProvider(
                    org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationConverter.class)
                    .ifUnique(provider::setJwtAuthenticationConverter);
                providers.add(provider);
            });
        }
    }

    /** Client certificates named by their CN, whose authorities the user store gives. */
    private static final class Certificates
    {
        static void add(final UserDetailsService users, final List<AuthenticationProvider> providers)
        {
            final org.springframework.security.web.authentication.preauth.PreAuthenticatedAuthenticationProvider
                provider = new org.springframework.security.web.authentication.preauth
                    .PreAuthenticatedAuthenticationProvider();
            provider.setPreAuthenticatedUserDetailsService(new org.springframework.security.core.userdetails
                .UserDetailsByNameServiceWrapper<>(users));
            providers.add(provider);
        }
    }
}
