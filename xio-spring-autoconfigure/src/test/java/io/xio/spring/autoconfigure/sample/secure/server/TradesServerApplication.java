package io.xio.spring.autoconfigure.sample.secure.server;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.method.configuration.EnableMethodSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/**
 * The secured service's application: method security, users alice (a trader), bob (not one) and client (the
 * subject of the test CA's client certificate, a trader), and JWTs signed with the test's key.
 */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
@EnableMethodSecurity
public class TradesServerApplication
{
    @Bean
    UserDetailsService users()
    {
        return new InMemoryUserDetailsManager(
            User.withUsername("alice").password("{noop}alice-secret").roles("trader").build(),
            User.withUsername("bob").password("{noop}bob-secret").roles("viewer").build(),
            // Who presents the test CA's client certificate (CN=client): no password can log in as it.
            User.withUsername("client").password("{noop}" + java.util.UUID.randomUUID()).roles("trader").build());
    }

    @Bean
    JwtDecoder jwtDecoder()
    {
        return NimbusJwtDecoder.withPublicKey(TestJwts.publicKey()).build(); // a local key: decoding never blocks
    }
}
