package io.xio.sample;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/**
 * The {@code secure} profile's user store: one user, whose name and password the sample's clients present. Its
 * presence is what makes xio authenticate every session set-up (XioSecurityAutoConfiguration); an in-memory store
 * answers at once, which the portals' context threads need.
 */
@Configuration(proxyBeanMethods = false)
@Profile("secure")
class SecureConfiguration
{
    @Bean
    UserDetailsService sampleUsers(@Value("${sample.secure.username}") final String username,
        @Value("${sample.secure.password}") final String password)
    {
        return new InMemoryUserDetailsManager(User.withUsername(username).password("{noop}" + password)
            .roles("sample").build());
    }
}
