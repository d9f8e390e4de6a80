package io.xio.spring.autoconfigure.reflection;

import io.xio.annotation.XioService;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review 17: the definitions cap (256) does not bound a description's size, and a description larger than the
 * header limit (64 KiB by default) cannot be answered at all: describe fails with INTERNAL, so the xio command
 * line can neither describe nor call any method of that service.
 */
class XioReflectionLargeServiceTest
{
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class,
            XioReflectionAutoConfiguration.class))
        .withUserConfiguration(Chains.class)
        .withPropertyValues("xio.contexts=1", "xio.portals[0].uri=tcp://127.0.0.1:0");

    /** A generic type whose properties are ever new parameterisations of itself: it takes all 256 definitions. */
    public record Chain<T>(T value, Chain<List<T>> next)
    {
    }

    public interface Chained
    {
        Chain<String> chain();
    }

    @XioService("chained")
    static class ChainedService implements Chained
    {
        @Override
        public Chain<String> chain()
        {
            return new Chain<>("a", null);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Chains
    {
        @Bean
        ChainedService chainedService()
        {
            return new ChainedService();
        }
    }

    @Test
    void aServiceAtTheDefinitionsCapCanStillBeDescribed()
    {
        runner.run(context ->
        {
            final JsonNode described = XioReflectionTest.call(context, XioReflection.RESOURCE, "describe(String)",
                "[\"chained\"]");
            assertThat(described.get("definitions").size()).isEqualTo(JsonSchemas.MAX_DEFINITIONS);
        });
    }
}
