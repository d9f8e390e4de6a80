package io.xio.spring.reflection;

import io.xio.spring.autoconfigure.reflection.XioReflectionAutoConfiguration;
import io.xio.annotation.XioService;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.codec.JacksonXioCodec;
import io.xio.spring.codec.XioCodec;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.dataformat.smile.SmileMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calls in JSON and the schemas read the properties the binary codec reads: its mapper's settings (here a
 * snake_case naming strategy, from {@code spring.jackson.*} or from a codec of the application's own), not
 * Jackson's defaults.
 */
class XioJsonCallsMapperTest
{
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class,
            XioReflectionAutoConfiguration.class))
        .withUserConfiguration(Parcels.class)
        .withPropertyValues("xio.contexts=1", "xio.portals[0].uri=tcp://127.0.0.1:0");

    /** A value whose property names a naming strategy changes. */
    public record Parcel(int weightGrams, String destinationCity)
    {
    }

    public interface ParcelDesk
    {
        Parcel weigh(Parcel parcel);
    }

    @XioService("parcels")
    static class ParcelDeskService implements ParcelDesk
    {
        @Override
        public Parcel weigh(final Parcel parcel)
        {
            return new Parcel(parcel.weightGrams() + 1, parcel.destinationCity());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Parcels
    {
        @Bean
        ParcelDeskService parcelDeskService()
        {
            return new ParcelDeskService();
        }
    }

    /** A codec of the application's own, on a Smile mapper with a naming strategy. */
    @Configuration(proxyBeanMethods = false)
    static class OwnCodec
    {
        @Bean
        XioCodec xioCodec()
        {
            return new JacksonXioCodec(SmileMapper.builder()
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build());
        }
    }

    @Test
    void jsonCallsFollowBootsJacksonSettingsAsTheBinaryCodecDoes()
    {
        runner.withPropertyValues("spring.jackson.property-naming-strategy=SNAKE_CASE").run(this::agree);
    }

    @Test
    void jsonCallsFollowTheApplicationsOwnCodec()
    {
        runner.withUserConfiguration(OwnCodec.class).run(this::agree);
    }

    private void agree(final AssertableApplicationContext context) throws Exception
    {
        assertThat(context).hasNotFailed();
        final JsonNode weighed = XioReflectionTest.call(context, "parcels", "weigh(Parcel)",
            "[{\"weight_grams\": 5, \"destination_city\": \"Oslo\"}]");
        assertThat(weighed.get("weight_grams").asInt()).isEqualTo(6);
        assertThat(weighed.get("destination_city").asString()).isEqualTo("Oslo");

        final JsonNode described = XioReflectionTest.call(context, XioReflection.RESOURCE, "describe(String)",
            "[\"parcels\"]");
        assertThat(described.get("$defs").get("Parcel").get("properties").propertyNames())
            .containsExactlyInAnyOrder("weight_grams", "destination_city");

        final Parcel parcel = new Parcel(7, "Bergen");
        final JsonNode binary = ((JacksonXioCodec)context.getBean(XioCodec.class)).mapper().valueToTree(parcel);
        final JsonNode json = context.getBean(XioReflectionService.class).json().mapper().valueToTree(parcel);
        assertThat(json).isEqualTo(binary);
        assertThat(binary.has("weight_grams")).isTrue();
    }
}
