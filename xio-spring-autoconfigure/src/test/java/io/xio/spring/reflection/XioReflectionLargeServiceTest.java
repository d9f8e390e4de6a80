package io.xio.spring.reflection;

import io.xio.annotation.XioService;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.autoconfigure.reflection.XioReflectionAutoConfiguration;
import io.xio.engine.RemoteException;
import io.xio.spring.codec.JacksonXioCodec;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Descriptions larger than a header may be: one at the definitions cap travels in a data segment, and one larger
 * than the bound on descriptions is refused with a code and a message that say what to do.
 */
class XioReflectionLargeServiceTest
{
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class,
            XioReflectionAutoConfiguration.class))
        .withUserConfiguration(Chains.class)
        .withPropertyValues("xio.contexts=1", "xio.portals[0].uri=tcp://127.0.0.1:0");

    /**
     * A generic type whose properties are ever new parameterisations of itself: it takes all 256 definitions. (A
     * class, not a record: Jackson resolves the serializers of final property types at once, and overflows the
     * stack on such a record.)
     */
    public static class Chain<T>
    {
        public T value;
        public Chain<List<T>> next;
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
            return new Chain<>();
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
            assertThat(described.get("$defs").size()).isEqualTo(JsonSchemas.MAX_DEFINITIONS);
            XioReflectionTest.assertEveryReferenceResolves(described);
            assertThat(XioReflectionTest.call(context, XioReflection.RESOURCE, "describe(String,String)",
                "[\"chained\", \"chain\"]").get("$defs").size()).isEqualTo(JsonSchemas.MAX_DEFINITIONS);
        });
    }

    @Test
    void aDescriptionLargerThanTheBoundIsRefusedWithACode()
    {
        runner.withUserConfiguration(SmallBound.class).run(context ->
        {
            assertThatThrownBy(() -> XioReflectionTest.call(context, XioReflection.RESOURCE, "describe(String)",
                "[\"chained\"]")).rootCause().isInstanceOf(RemoteException.class)
                .hasMessageContaining("RESOURCE_EXHAUSTED").hasMessageContaining("more than the 4096");
        });
    }

    /** The reflection service with a bound of 4 KiB on descriptions. */
    @Configuration(proxyBeanMethods = false)
    static class SmallBound
    {
        @Bean
        XioReflectionService xioReflectionService(final ObjectProvider<XioServiceExporter> exporter)
        {
            return new XioReflectionService(() -> exporter.getObject().services(),
                new JacksonXioCodec(new JsonMapper()), 4096);
        }
    }
}
