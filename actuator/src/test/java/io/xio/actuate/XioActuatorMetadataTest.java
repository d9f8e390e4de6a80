package io.xio.actuate;

import io.xio.actuate.health.XioHealthProperties;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.InputStream;

import static org.assertj.core.api.Assertions.assertThat;

/** The actuator module's IDE metadata, generated and merged with its additional metadata. */
class XioActuatorMetadataTest
{
    @Test
    void theHealthIndicatorsSwitchIsDescribedWithItsDefault() throws Exception
    {
        final var location = XioHealthProperties.class.getProtectionDomain().getCodeSource().getLocation().toURI()
            .resolve("META-INF/spring-configuration-metadata.json").toURL();
        final JsonNode metadata;
        try (InputStream in = location.openStream())
        {
            metadata = JsonMapper.builder().build().readTree(in);
        }
        JsonNode enabled = null;
        for (final JsonNode property : metadata.get("properties"))
        {
            if (property.get("name").asString().equals("management.health.xio.enabled"))
            {
                enabled = property;
            }
        }
        assertThat(enabled).as("management.health.xio.enabled").isNotNull();
        assertThat(enabled.get("type").asString()).isEqualTo("java.lang.Boolean");
        assertThat(enabled.get("defaultValue").asBoolean()).isTrue();
        assertThat(enabled.get("description").asString()).isNotBlank();
    }
}
