package io.xio.spring.autoconfigure.http;

import io.xio.spring.autoconfigure.http.shop.MetadataSeen;
import io.xio.spring.autoconfigure.http.shop.ShopService;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.method.configuration.EnableMethodSecurity;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.server.SecurityWebFilterChain;

/**
 * The shop on a web server: Spring Security's web chain asks every request for HTTP Basic credentials (alice is a
 * buyer, bob is not), method security guards {@code secret}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@AutoConfigurationPackage(basePackageClasses = ShopService.class)
@EnableMethodSecurity
class HttpShopApplication
{
    static final String ALICE = "alice";
    static final String BOB = "bob";

    private static UserDetails[] users()
    {
        return new UserDetails[] {
            User.withUsername(ALICE).password("{noop}alice-secret").roles("BUYER").build(),
            User.withUsername(BOB).password("{noop}bob-secret").roles("BROWSER").build()};
    }

    @Bean
    MetadataSeen metadataSeen()
    {
        return new MetadataSeen();
    }

    /** The servlet web chain. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @EnableWebSecurity
    static class Servlet
    {
        @Bean
        InMemoryUserDetailsManager users()
        {
            return new InMemoryUserDetailsManager(HttpShopApplication.users());
        }

        @Bean
        SecurityFilterChain web(final HttpSecurity http) throws Exception
        {
            return http.authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
                .httpBasic(basic -> { }).csrf(csrf -> csrf.disable()).build();
        }
    }

    /** The reactive web chain. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @EnableWebFluxSecurity
    static class Reactive
    {
        @Bean
        MapReactiveUserDetailsService users()
        {
            return new MapReactiveUserDetailsService(HttpShopApplication.users());
        }

        @Bean
        SecurityWebFilterChain web(final ServerHttpSecurity http)
        {
            return http.authorizeExchange(exchanges -> exchanges.anyExchange().authenticated())
                .httpBasic(basic -> { }).csrf(csrf -> csrf.disable()).build();
        }
    }
}
