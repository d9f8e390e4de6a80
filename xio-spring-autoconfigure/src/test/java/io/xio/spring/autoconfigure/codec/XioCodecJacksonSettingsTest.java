package io.xio.spring.autoconfigure.codec;

import io.xio.spring.codec.JacksonXioCodec;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.CborMapperBuilderCustomizer;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.cfg.EnumFeature;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.dataformat.cbor.CBORFactory;
import tools.jackson.dataformat.smile.SmileFactory;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Boot's {@code spring.jackson.*} settings and mapper customizers reach every codec, not only JSON. */
class XioCodecJacksonSettingsTest
{
    /** A value with a two-word property, to see the naming strategy, and an enum, to see a feature. */
    record Shipment(String trackingCode, Kind kind)
    {
    }

    enum Kind
    {
        PARCEL
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class))
        .withPropertyValues("xio.contexts=1", "xio.idle.busy-poll=0s",
            "spring.jackson.property-naming-strategy=SNAKE_CASE",
            "spring.jackson.deserialization.fail-on-unknown-properties=true");

    @ParameterizedTest
    @ValueSource(strings = {"json", "smile", "cbor"})
    void namingStrategyAndFeaturesFromSpringJacksonApplyToEveryCodec(final String format)
    {
        runner.withPropertyValues("xio.codec=" + format).run(context ->
        {
            final JacksonXioCodec codec = context.getBean(JacksonXioCodec.class);
            assertFormat(codec.mapper(), format);
            final byte[] bytes = codec.encode(new Shipment("T-1", Kind.PARCEL), Shipment.class);
            final JsonNode tree = codec.mapper().readTree(bytes);
            assertThat(tree.propertyNames()).containsExactlyInAnyOrder("tracking_code", "kind");
            assertThat(codec.decode(ByteBuffer.wrap(bytes), Shipment.class))
                .isEqualTo(new Shipment("T-1", Kind.PARCEL));
            // Jackson 3 accepts unknown properties by default; the property turned the check on.
            final byte[] unknown = codec.mapper().writeValueAsBytes(Map.of("tracking_code", "T", "weight", 3));
            assertThatThrownBy(() -> codec.decode(ByteBuffer.wrap(unknown), Shipment.class))
                .isInstanceOf(UnrecognizedPropertyException.class);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"json", "smile"})
    void anApplicationsJsonMapperBuilderCustomizerAppliesToJsonAndSmile(final String format)
    {
        runner.withUserConfiguration(EnumsAsIndex.class).withPropertyValues("xio.codec=" + format).run(context ->
        {
            final JacksonXioCodec codec = context.getBean(JacksonXioCodec.class);
            assertFormat(codec.mapper(), format);
            final JsonNode tree = codec.mapper().readTree(codec.encode(new Shipment("T-2", Kind.PARCEL),
                Shipment.class));
            assertThat(tree.get("kind").isInt()).isTrue();
            assertThat(tree.get("tracking_code").asString()).isEqualTo("T-2");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"json", "smile", "cbor"})
    void argumentsTravelWithTheSameSettings(final String format)
    {
        runner.withPropertyValues("xio.codec=" + format).run(context ->
        {
            final JacksonXioCodec codec = context.getBean(JacksonXioCodec.class);
            final byte[] bytes = codec.encodeArguments(new Object[] {new Shipment("T-3", Kind.PARCEL), List.of(1)},
                new java.lang.reflect.Type[] {Shipment.class, List.class});
            assertThat(codec.mapper().readTree(bytes).get(0).has("tracking_code")).isTrue();
            assertThat(codec.decodeArguments(ByteBuffer.wrap(bytes),
                new java.lang.reflect.Type[] {Shipment.class, List.class}))
                .containsExactly(new Shipment("T-3", Kind.PARCEL), List.of(1));
        });
    }

    @org.junit.jupiter.api.Test
    void cborIsBootsCborMapperWithItsCustomizers()
    {
        runner.withUserConfiguration(CborEnumsAsIndex.class).withPropertyValues("xio.codec=cbor").run(context ->
        {
            final JacksonXioCodec codec = context.getBean(JacksonXioCodec.class);
            assertThat(codec.mapper()).isSameAs(context.getBean(tools.jackson.dataformat.cbor.CBORMapper.class));
            final JsonNode tree = codec.mapper().readTree(codec.encode(new Shipment("T-4", Kind.PARCEL),
                Shipment.class));
            assertThat(tree.get("kind").isInt()).isTrue();
            assertThat(tree.has("tracking_code")).isTrue();
        });
    }

    @org.junit.jupiter.api.Test
    void cborWithAnApplicationsJsonMapperIsConfiguredLikeThatMapperNotBoots()
    {
        runner.withUserConfiguration(ApplicationJsonMapper.class).withPropertyValues("xio.codec=cbor").run(context ->
        {
            final JacksonXioCodec codec = context.getBean(JacksonXioCodec.class);
            assertFormat(codec.mapper(), "cbor");
            // Boot's CBORMapper still exists (spring.jackson.* made it) but knows nothing of the application's.
            assertThat(codec.mapper()).isNotSameAs(context.getBean(tools.jackson.dataformat.cbor.CBORMapper.class));
            final JsonNode tree = codec.mapper().readTree(codec.encode(new Shipment("T-5", Kind.PARCEL),
                Shipment.class));
            assertThat(tree.get("kind").isInt()).isTrue();
            assertThat(tree.has("trackingCode")).isTrue();
        });
    }

    @org.junit.jupiter.api.Test
    void cborUsesAnApplicationsOwnCborMapper()
    {
        runner.withUserConfiguration(ApplicationCborMapper.class).withPropertyValues("xio.codec=cbor").run(context ->
            assertThat(context.getBean(JacksonXioCodec.class).mapper())
                .isSameAs(context.getBean("applicationCbor")));
    }

    @org.junit.jupiter.api.Test
    void twoCborMappersAndNonePrimaryFailStartUpNamingThem()
    {
        runner.withUserConfiguration(TwoCborMappers.class).withPropertyValues("xio.codec=cbor").run(context ->
            assertThat(context).getFailure().rootCause().hasMessageContaining("xio.codec=cbor")
                .hasMessageContaining("2 CBORMapper beans").hasMessageContaining("firstCbor")
                .hasMessageContaining("secondCbor").hasMessageContaining("@Primary"));
    }

    private static void assertFormat(final ObjectMapper mapper, final String format)
    {
        switch (format)
        {
            case "smile" -> assertThat(mapper.tokenStreamFactory()).isInstanceOf(SmileFactory.class);
            case "cbor" -> assertThat(mapper.tokenStreamFactory()).isInstanceOf(CBORFactory.class);
            default -> assertThat(mapper).isInstanceOf(tools.jackson.databind.json.JsonMapper.class);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class EnumsAsIndex
    {
        @Bean
        JsonMapperBuilderCustomizer enumsAsIndex()
        {
            return builder -> builder.enable(EnumFeature.WRITE_ENUMS_USING_INDEX);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ApplicationJsonMapper
    {
        @Bean
        tools.jackson.databind.json.JsonMapper applicationJson()
        {
            return tools.jackson.databind.json.JsonMapper.builder().enable(EnumFeature.WRITE_ENUMS_USING_INDEX)
                .build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ApplicationCborMapper
    {
        @Bean
        tools.jackson.dataformat.cbor.CBORMapper applicationCbor()
        {
            return tools.jackson.dataformat.cbor.CBORMapper.builder().build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoCborMappers
    {
        @Bean
        tools.jackson.dataformat.cbor.CBORMapper firstCbor()
        {
            return tools.jackson.dataformat.cbor.CBORMapper.builder().build();
        }

        @Bean
        tools.jackson.dataformat.cbor.CBORMapper secondCbor()
        {
            return tools.jackson.dataformat.cbor.CBORMapper.builder().build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CborEnumsAsIndex
    {
        @Bean
        CborMapperBuilderCustomizer cborEnumsAsIndex()
        {
            return builder -> builder.enable(EnumFeature.WRITE_ENUMS_USING_INDEX);
        }
    }
}
