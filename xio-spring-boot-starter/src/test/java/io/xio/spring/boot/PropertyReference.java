package io.xio.spring.boot;

import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The property reference ({@code docs/properties.md}): every property of xio's modules, with its default and
 * description, rendered from the configuration metadata on the class path (what the configuration processor
 * generated from the properties' Javadoc, with each module's additional metadata merged in), so that the page
 * says what the IDE says.
 */
final class PropertyReference
{
    /** Sections of their own for the members of list elements and map values, before the two-segment rule. */
    private static final List<String> COLLECTIONS = List.of("xio.portals[]", "xio.clients.*", "xio.server.services.*");

    private PropertyReference()
    {
    }

    /** The xio properties of every metadata file on the class path: xio.* and xio's parts of others (management). */
    static List<ConfigurationMetadataProperty> properties() throws IOException
    {
        final ConfigurationMetadataRepositoryJsonBuilder builder =
            ConfigurationMetadataRepositoryJsonBuilder.create(StandardCharsets.UTF_8);
        for (final URL url : Collections.list(PropertyReference.class.getClassLoader()
            .getResources("META-INF/spring-configuration-metadata.json")))
        {
            try (InputStream in = url.openStream())
            {
                builder.withJsonResource(in);
            }
        }
        return builder.build().getAllProperties().values().stream()
            .filter(property -> property.getId().startsWith("xio.") || property.getId().contains(".xio."))
            .sorted((a, b) -> a.getId().compareTo(b.getId()))
            .toList();
    }

    /** The Markdown page. */
    static String render(final List<ConfigurationMetadataProperty> properties)
    {
        // xio's own sections first, then its parts of others' (management.*).
        final Map<String, List<ConfigurationMetadataProperty>> sections = new TreeMap<>(
            Comparator.comparing((String section) -> !section.startsWith("xio")).thenComparing(section -> section));
        properties.forEach(property ->
            sections.computeIfAbsent(section(property.getId()), key -> new ArrayList<>()).add(property));
        final StringBuilder page = new StringBuilder();
        page.append("# Property reference\n\n")
            .append("Every property of xio's modules, with its default and what it does. This page is generated from")
            .append(" the\nconfiguration metadata that IDEs read (the properties' Javadoc), by `PropertyReferenceTest`")
            .append(" in\n`xio-spring-boot-starter`, which fails when the page is stale; do not edit it by hand. The")
            .append(" guide to these\nproperties is [the Spring guide](spring.md). `xio.portals[]` stands for each")
            .append(" element of the list (`xio.portals[0]`,\n`xio.portals[1]`, ...), `xio.clients.*` for each named")
            .append(" client (`xio.clients.orders`). Durations take a unit\n(`50us`, `5s`; a bare number is")
            .append(" milliseconds unless the description says otherwise), sizes too (`64KB`).\n\n");
        page.append("| Section | Properties |\n| --- | --- |\n");
        sections.forEach((section, members) -> page.append("| [`").append(section).append("`](#")
            .append(anchor(section)).append(") | ").append(members.size()).append(" |\n"));
        sections.forEach((section, members) ->
        {
            page.append("\n## ").append(section)
                .append("\n\n| Property | Default | Description |\n| --- | --- | --- |\n");
            members.forEach(property -> page.append("| `").append(property.getId()).append("` | ")
                .append(defaultValue(property.getDefaultValue())).append(" | ")
                .append(description(property)).append(" |\n"));
        });
        return page.toString();
    }

    private static String section(final String name)
    {
        for (final String collection : COLLECTIONS)
        {
            if (name.startsWith(collection + "."))
            {
                return collection;
            }
        }
        final String[] segments = name.split("\\.");
        return segments.length > 2 ? segments[0] + "." + segments[1] : segments[0];
    }

    /** GitHub's heading anchor: lower case, punctuation other than '-' and '_' dropped, spaces to '-'. */
    static String anchor(final String heading)
    {
        return heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    private static String defaultValue(final Object value)
    {
        if (value == null)
        {
            return "";
        }
        final String text = value instanceof Object[] values
            ? Arrays.stream(values).map(String::valueOf).collect(Collectors.joining(", "))
            : String.valueOf(value);
        return "`" + text.replace("|", "\\|") + "`";
    }

    private static String description(final ConfigurationMetadataProperty property)
    {
        String text = property.getDescription() == null ? "" : property.getDescription();
        text = text.replaceAll("\\{@(?:code|literal|link|linkplain) ([^{}]*)}", "`$1`").replace("|", "\\|");
        if (property.isDeprecated())
        {
            text = "**Deprecated.** " + text;
        }
        return text;
    }
}
