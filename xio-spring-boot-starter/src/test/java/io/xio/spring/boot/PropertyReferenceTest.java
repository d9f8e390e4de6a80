package io.xio.spring.boot;

import org.junit.jupiter.api.Test;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/properties.md} is the page {@link PropertyReference} renders from the configuration metadata, so the
 * reference cannot drift from the properties; {@code -Dxio.docs.write=true} rewrites it.
 */
class PropertyReferenceTest
{
    /** The tests run in the module's folder; the page is in the repository's docs. */
    private static final Path PAGE = Path.of("..", "docs", "properties.md").toAbsolutePath().normalize();

    private static final String REWRITE =
        "./mvnw -q -pl xio-spring-boot-starter -am clean test -Dtest=PropertyReferenceTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Dxio.docs.write=true";

    @Test
    void thePropertyReferenceIsThePageRenderedFromTheMetadata() throws Exception
    {
        final String rendered = PropertyReference.render(PropertyReference.properties());
        if (Boolean.getBoolean("xio.docs.write"))
        {
            Files.writeString(PAGE, rendered, StandardCharsets.UTF_8);
        }
        assertThat(PAGE).as("the property reference; rewrite it with " + REWRITE).exists();
        assertThat(Files.readString(PAGE, StandardCharsets.UTF_8).replace("\r\n", "\n"))
            .as(PAGE + " is stale; rewrite it with " + REWRITE).isEqualTo(rendered);
    }

    @Test
    void everyPropertyOfXiosModulesHasADescriptionAndTheCollectionsListTheirMembers() throws Exception
    {
        final List<ConfigurationMetadataProperty> properties = PropertyReference.properties();
        assertThat(properties).extracting(ConfigurationMetadataProperty::getId)
            .contains("xio.enabled", "xio.limits.max-in-flight", "xio.portals[].uri", "xio.portals[].ssl.bundle",
                "xio.clients.*.uri", "xio.clients.*.retry.max-attempts", "xio.server.services.*.max-queued-calls",
                "management.health.xio.require-clients", "management.endpoint.xio.access")
            .doesNotContain("spring.application.name", "management.health.db.enabled");
        assertThat(properties).allSatisfy(property ->
            assertThat(property.getDescription()).as(property.getId() + "'s description").isNotBlank());
        assertThat(PropertyReference.render(properties)).contains(
            "| `xio.limits.max-in-flight` | `1024` | Most calls a session may have in flight. |",
            "## xio.clients.*", "[`xio.portals[]`](#xioportals)");
    }
}
