package io.xio.spring.autoconfigure.reflection;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review 17: JsonSchemas says it writes the schemas of types "as Jackson reads and writes them by default", java.time
 * among them, but these JDK types, which Jackson writes as one string or number, are described as beans of their
 * getters ({@code $ref} to a definition that drags JDK internals such as ZoneRules or IsoChronology in), so a caller
 * building JSON from the schema sends what Jackson does not read.
 */
class JsonSchemasJdkTypesTest
{
    @ParameterizedTest
    @ValueSource(classes = {java.time.Period.class, java.time.YearMonth.class, java.time.Year.class,
        java.time.MonthDay.class, java.time.OffsetTime.class, java.time.ZoneOffset.class, java.util.Date.class,
        java.util.concurrent.atomic.AtomicLong.class, java.util.OptionalInt.class, java.io.File.class})
    void aJdkTypeJacksonWritesAsOneValueIsNotDescribedAsABean(final Class<?> type)
    {
        final JsonSchemas schemas = new JsonSchemas();
        final Map<String, Object> schema = schemas.schema(type);
        assertThat(schema).as(type + " gave " + schema + " with definitions " + schemas.definitions().keySet())
            .doesNotContainKey("$ref");
    }
}
