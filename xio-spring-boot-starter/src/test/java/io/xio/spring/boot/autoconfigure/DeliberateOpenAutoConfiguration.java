package io.xio.spring.boot.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * An auto-configuration that breaks Spring Boot's conventions as {@code SpringArchitectureTest}'s rules forbid: not
 * final, with public {@code @Bean} methods, also in its nested configuration. The rules' own test; never imported.
 */
@AutoConfiguration
public class DeliberateOpenAutoConfiguration
{
    @Bean
    public String deliberatePublicBean()
    {
        return "public";
    }

    @Configuration(proxyBeanMethods = false)
    static final class Nested
    {
        @Bean
        public Integer deliberateNestedPublicBean()
        {
            return 1;
        }
    }
}
