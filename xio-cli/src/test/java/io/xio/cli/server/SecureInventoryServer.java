package io.xio.cli.server;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/** {@link InventoryServer} with Spring Security: every session authenticates against its one user. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(InventoryService.class)
public class SecureInventoryServer
{
    public static final String USER = "operator";
    public static final String PASSWORD = "operator-secret";

    @Bean
    UserDetailsService users()
    {
        return new InMemoryUserDetailsManager(User.withUsername(USER).password("{noop}" + PASSWORD)
            .roles("ops").build());
    }
}
