package io.xio.spring.reflection;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * JDK types Jackson writes as one string or number are described as that value, not as beans of their getters
 * (which would drag JDK internals such as ZoneRules or IsoChronology in); names and properties come from the
 * mapper's bean serializer.
 */
class JsonSchemasJdkTypesTest
{
    @ParameterizedTest
    @ValueSource(classes = {java.time.Period.class, java.time.YearMonth.class, java.time.Year.class,
        java.time.MonthDay.class, java.time.OffsetTime.class, java.time.ZoneOffset.class, java.util.Date.class,
        java.util.concurrent.atomic.AtomicLong.class, java.util.OptionalInt.class, java.io.File.class})
    void aJdkTypeJacksonWritesAsOneValueIsNotDescribedAsABean(final Class<?> type)
    {
        final JsonSchemas schemas = new JsonSchemas(new JsonMapper());
        final Map<String, Object> schema = schemas.schema(type);
        assertThat(schema).as(type + " gave " + schema + " with definitions " + schemas.definitions().keySet())
            .doesNotContainKey("$ref");
        // OptionalInt: the number or null
        final Object kind = schema.get("type") instanceof java.util.List<?> kinds ? kinds.get(0) : schema.get("type");
        assertThat(kind).as(type + " gave " + schema).isIn("string", "integer", "number");
    }

    /** A bean as the mapper writes it: its naming strategy, {@code @JsonProperty}, {@code @JsonIgnore}. */
    public record Parcel(int weightGrams, @JsonProperty("to") String destination, @JsonIgnore String secret)
    {
    }

    @Test
    void aBeansPropertiesAreTheOnesTheMapperWritesUnderItsNames()
    {
        final JsonMapper snake = JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .build();
        final JsonSchemas schemas = new JsonSchemas(snake);
        assertThat(schemas.schema(Parcel.class)).containsEntry("$ref", "#/$defs/Parcel");
        @SuppressWarnings("unchecked")
        final Map<String, Object> parcel = (Map<String, Object>)schemas.definitions().get("Parcel");
        assertThat(parcel).containsEntry("title", "Parcel");
        @SuppressWarnings("unchecked")
        final Map<String, Object> properties = (Map<String, Object>)parcel.get("properties");
        assertThat(properties).containsOnlyKeys("weight_grams", "to");
    }
}
