package io.xio.spring.autoconfigure;

import io.xio.cluster.TransportPreference;
import io.xio.engine.Limits;
import io.xio.engine.SessionOptions;
import io.xio.engine.StreamLimits;
import io.xio.engine.XioEngine;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.convert.ConversionService;
import org.springframework.util.unit.DataSize;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.io.InputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The IDE metadata the configuration processor generated (with the additional metadata merged in): the defaults of
 * engine options, which the properties leave unset, are the engine's own, so that the two cannot drift apart.
 */
class XioConfigurationMetadataTest
{
    /** The engine's default of every property that configures the engine. */
    private static final Map<String, Object> ENGINE_DEFAULTS = engineDefaults();

    /** The property classes whose every property is an engine option. */
    private static final Set<String> ENGINE_OPTION_SOURCES = Set.of(XioProperties.Limits.class.getName(),
        XioProperties.Limits.Streams.class.getName(), XioProperties.Idle.class.getName(),
        XioProperties.Keepalive.class.getName());

    private static final ConversionService CONVERSION = ApplicationConversionService.getSharedInstance();

    private static Map<String, JsonNode> properties;

    private static JsonNode hints;

    @BeforeAll
    static void readTheGeneratedMetadata() throws Exception
    {
        // This module's own file, not the ones of Boot's jars on the class path.
        final var location = XioProperties.class.getProtectionDomain().getCodeSource().getLocation().toURI()
            .resolve("META-INF/spring-configuration-metadata.json").toURL();
        final JsonNode metadata;
        try (InputStream in = location.openStream())
        {
            metadata = JsonMapper.builder().build().readTree(in);
        }
        properties = new LinkedHashMap<>();
        metadata.get("properties").forEach(property -> properties.put(property.get("name").asString(), property));
        hints = metadata.get("hints");
    }

    private static Map<String, Object> engineDefaults()
    {
        final Limits limits = Limits.DEFAULT;
        final Map<String, Object> defaults = new LinkedHashMap<>();
        defaults.put("xio.idle.busy-poll", XioEngine.DEFAULT_BUSY_POLL);
        defaults.put("xio.idle.caller-spin", XioEngine.DEFAULT_CALLER_SPIN);
        defaults.put("xio.idle.adaptive", XioEngine.DEFAULT_ADAPTIVE_POLLING);
        defaults.put("xio.keepalive.interval", XioEngine.DEFAULT_KEEPALIVE_INTERVAL);
        defaults.put("xio.keepalive.timeout", XioEngine.DEFAULT_KEEPALIVE_TIMEOUT);
        defaults.put("xio.connect-timeout", XioEngine.DEFAULT_CONNECT_TIMEOUT);
        defaults.put("xio.reconnect-timeout", XioEngine.DEFAULT_RECONNECT_TIMEOUT);
        defaults.put("xio.on-context-failure", XioEngine.DEFAULT_CONTEXT_FAILURE_POLICY);
        defaults.put("xio.leak-detection", false);
        defaults.put("xio.client.timeout", SessionOptions.DEFAULT.timeout());
        defaults.put("xio.limits.max-message-size", DataSize.ofBytes(limits.maxMessageBytes()));
        defaults.put("xio.limits.max-header-size", DataSize.ofBytes(limits.maxHeaderBytes()));
        defaults.put("xio.limits.max-segments", limits.maxSegments());
        defaults.put("xio.limits.dedup-window", limits.dedupWindow());
        defaults.put("xio.limits.retained-response-size", DataSize.ofBytes(limits.retainedResponseBytes()));
        defaults.put("xio.limits.max-in-flight", limits.maxInFlight());
        defaults.put("xio.limits.max-queued-size", DataSize.ofBytes(limits.maxQueuedBytes()));
        defaults.put("xio.limits.max-unsent-size", DataSize.ofBytes(limits.maxUnsentBytes()));
        defaults.put("xio.limits.write-stall-timeout", limits.writeStallTimeout());
        defaults.put("xio.limits.handshake-timeout", limits.handshakeTimeout());
        defaults.put("xio.limits.incomplete-frame-timeout", limits.incompleteFrameTimeout());
        defaults.put("xio.limits.min-receive-rate", DataSize.ofBytes(limits.minReceiveRate()));
        defaults.put("xio.limits.max-sessions", limits.maxSessions());
        defaults.put("xio.limits.max-sessions-per-connection", limits.maxSessionsPerConnection());
        defaults.put("xio.limits.max-sessions-per-peer", limits.maxSessionsPerPeer());
        defaults.put("xio.limits.max-sessions-per-principal", limits.maxSessionsPerPrincipal());
        defaults.put("xio.limits.max-in-flight-per-principal", limits.maxInFlightPerPrincipal());
        defaults.put("xio.limits.max-authentication-failures-per-host", limits.maxAuthenticationFailuresPerHost());
        defaults.put("xio.limits.authentication-failure-interval", limits.authenticationFailureInterval());
        defaults.put("xio.limits.max-connections-per-portal", limits.maxConnectionsPerPortal());
        defaults.put("xio.limits.max-connections-per-peer", limits.maxConnectionsPerPeer());
        defaults.put("xio.limits.max-metadata-size", DataSize.ofBytes(limits.maxMetadataBytes()));
        defaults.put("xio.limits.max-retained-size-per-session", DataSize.ofBytes(limits.maxRetainedBytesPerSession()));
        defaults.put("xio.limits.max-retained-size", DataSize.ofBytes(limits.maxRetainedBytes()));
        final StreamLimits streams = limits.streams();
        defaults.put("xio.limits.streams.max", streams.maxStreams());
        defaults.put("xio.limits.streams.max-per-session", streams.maxStreamsPerSession());
        defaults.put("xio.limits.streams.max-per-connection", streams.maxStreamsPerConnection());
        defaults.put("xio.limits.streams.max-per-peer", streams.maxStreamsPerPeer());
        defaults.put("xio.limits.streams.window-messages", streams.windowMessages());
        defaults.put("xio.limits.streams.window-size", DataSize.ofBytes(streams.windowBytes()));
        defaults.put("xio.limits.streams.max-window-size-per-session",
            DataSize.ofBytes(streams.maxWindowBytesPerSession()));
        defaults.put("xio.limits.streams.max-window-size", DataSize.ofBytes(streams.maxWindowBytes()));
        return defaults;
    }

    @Test
    void everyEngineOptionsDeclaredDefaultIsTheEnginesConstant()
    {
        assertThat(properties.values().stream()
            .filter(property -> ENGINE_OPTION_SOURCES.contains(property.get("sourceType").asString()))
            .map(property -> property.get("name").asString()))
            .as("every engine option has its engine default here").isNotEmpty()
            .allMatch(ENGINE_DEFAULTS::containsKey);
        ENGINE_DEFAULTS.forEach((name, engineDefault) ->
        {
            assertThat(properties).as(name).containsKey(name);
            final JsonNode declared = properties.get(name).get("defaultValue");
            assertThat(declared).as(name + " has a default in the metadata").isNotNull();
            final Object value = CONVERSION.convert(declared.isString() ? declared.asString() : declared.toString(),
                engineDefault.getClass());
            assertThat(value).as(name + " = " + declared).isEqualTo(engineDefault);
        });
    }

    @Test
    void durationsAreTypedAndShownInTheirOwnUnit()
    {
        assertThat(properties.get("xio.idle.busy-poll").get("defaultValue").asString()).isEqualTo("50us");
        ENGINE_DEFAULTS.forEach((name, engineDefault) ->
        {
            if (engineDefault instanceof Duration)
            {
                assertThat(properties.get(name).get("type").asString()).as(name).isEqualTo(Duration.class.getName());
            }
        });
    }

    @Test
    void namedClientsAndPortalsAreTypedSoThatTheIdeOffersTheirProperties()
    {
        // Boot's metadata has no entries for the properties of map values and list elements (spring-boot#9945):
        // IDEs complete xio.clients.<name>.* and xio.portals[n].* from the value type named here.
        assertThat(properties.get("xio.clients").get("type").asString())
            .isEqualTo("java.util.Map<java.lang.String," + XioProperties.NamedClient.class.getName() + ">");
        assertThat(properties.get("xio.portals").get("type").asString())
            .isEqualTo("java.util.List<" + XioProperties.Portal.class.getName() + ">");
        for (final String property : new String[]{"uri", "timeout", "connections", "service-id", "load-balancing"})
        {
            assertThat(BeanUtils.getPropertyDescriptor(XioProperties.NamedClient.class, camel(property)))
                .as(property).isNotNull().satisfies(descriptor -> assertThat(descriptor.getWriteMethod()).isNotNull());
        }
        assertThat(BeanUtils.getPropertyDescriptor(XioProperties.Portal.class, "uri").getWriteMethod()).isNotNull();
        assertThat(properties.get("xio.enabled").get("defaultValue").asBoolean()).isTrue();
    }

    @Test
    void everyMemberOfAPortalANamedClientAndAServiceIsInTheMetadataWithItsJavadocAndDefault() throws Exception
    {
        // Generated from the property classes and their Javadoc; -Dxio.metadata.write=true rewrites the file (the
        // processor merges it into the module's metadata at the next compile of XioProperties: a clean build).
        final List<ObjectNode> generated = CollectionMemberMetadata.generate();
        if (Boolean.getBoolean("xio.metadata.write"))
        {
            CollectionMemberMetadata.write(generated);
            return;
        }
        assertThat(CollectionMemberMetadata.committed())
            .as("the additional metadata's entries for list elements and map values, against the property classes;"
                + " rewrite them with ./mvnw -q -pl xio-spring-autoconfigure -am test"
                + " -Dtest=XioConfigurationMetadataTest -Dsurefire.failIfNoSpecifiedTests=false"
                + " -Dxio.metadata.write=true")
            .containsExactlyElementsOf(generated);
        assertThat(generated).extracting(entry -> entry.get("name").asString())
            .contains("xio.portals[].uri", "xio.portals[].ssl.client-auth", "xio.clients.*.uri",
                "xio.clients.*.retry.max-attempts", "xio.server.services.*.max-concurrent-calls");
        assertThat(properties.keySet()).as("the module's metadata, merged by the processor")
            .containsAll(generated.stream().map(entry -> entry.get("name").asString()).toList());
    }

    @Test
    void everyListOrMapOfPropertyObjectsHasItsMembersGenerated()
    {
        assertThat(CollectionMemberMetadata.collectionsOfPropertyObjects())
            .as("list and map properties whose elements are XioProperties classes")
            .isEqualTo(CollectionMemberMetadata.generatedCollections());
    }

    @Test
    void enumeratedValuesHaveHintsForEveryConstant()
    {
        assertThat(hintValues("xio.codec")).isEqualTo(kebab(XioProperties.Codec.values()));
        assertThat(hintValues("xio.on-context-failure")).isEqualTo(kebab(io.xio.engine.ContextFailurePolicy.values()));
        assertThat(hintValues("xio.server.redirect")).isEqualTo(kebab(XioProperties.Redirect.values()));
        assertThat(hintValues("xio.server.error.include-message"))
            .isEqualTo(kebab(XioProperties.IncludeMessage.values()));
        assertThat(hintValues("xio.clients.*.transports")).as("the transports a named client may list")
            .containsExactlyElementsOf(TransportPreference.DEFAULT);
        // The setter takes exactly these (it fails start-up on any other).
        final XioProperties.NamedClient client = new XioProperties.NamedClient();
        client.setTransports(List.copyOf(hintValues("xio.clients.*.transports")));
        assertThatThrownBy(() -> client.setTransports(List.of("udp"))).isInstanceOf(IllegalArgumentException.class);
        hints.forEach(hint ->
        {
            if (hint.has("values"))
            {
                hint.get("values").forEach(value ->
                    assertThat(value.get("description")).as(hint.get("name") + " " + value.get("value")).isNotNull());
            }
        });
    }

    @Test
    void everyPropertyOfXioPropertiesHasItsJavadocAsDescription()
    {
        final List<JsonNode> xio = properties.values().stream().filter(property -> property.has("sourceType")
            && property.get("sourceType").asString().startsWith(XioProperties.class.getName())).toList();
        assertThat(xio).as("the properties bound by XioProperties and its nested classes")
            .extracting(property -> property.get("name").asString())
            .contains("xio.enabled", "xio.idle.busy-poll", "xio.limits.max-in-flight", "xio.clients.*.uri");
        assertThat(xio).allSatisfy(property -> assertThat(property.path("description").asString(""))
            .as(property.get("name").asString() + "'s description").isNotBlank());
    }

    @Test
    void everyHintIsForAPropertyThatExists()
    {
        hints.forEach(hint -> assertThat(properties).as("the property of a hint").containsKey(hint.get("name")
            .asString()));
    }

    @Test
    void beanAndClassNamesAreCompletedFromTheApplication()
    {
        assertThat(provider("xio.server.executor")).isEqualTo("spring-bean-reference:java.util.concurrent.Executor");
        assertThat(provider("xio.client.allowed-exceptions")).isEqualTo("class-reference:java.lang.Exception");
        assertThat(provider("xio.clients.*.allowed-exceptions")).isEqualTo("class-reference:java.lang.Exception");
    }

    private static String provider(final String name)
    {
        for (final JsonNode hint : hints)
        {
            if (hint.get("name").asString().equals(name))
            {
                final JsonNode provider = hint.get("providers").get(0);
                return provider.get("name").asString() + ":" + provider.get("parameters").get("target").asString();
            }
        }
        throw new AssertionError("no hint for " + name);
    }

    private static Set<String> hintValues(final String name)
    {
        for (final JsonNode hint : hints)
        {
            if (hint.get("name").asString().equals(name))
            {
                final Set<String> values = new java.util.LinkedHashSet<>();
                hint.get("values").forEach(value -> values.add(value.get("value").asString()));
                return values;
            }
        }
        throw new AssertionError("no hint for " + name);
    }

    private static Set<String> kebab(final Enum<?>[] constants)
    {
        return Arrays.stream(constants).map(constant -> constant.name().toLowerCase(Locale.ROOT).replace('_', '-'))
            .collect(Collectors.toCollection(java.util.LinkedHashSet::new));
    }

    private static String camel(final String kebab)
    {
        final StringBuilder name = new StringBuilder();
        boolean upper = false;
        for (final char c : kebab.toCharArray())
        {
            if (c == '-')
            {
                upper = true;
            }
            else
            {
                name.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return name.toString();
    }
}
