package io.xio.spring.autoconfigure;

import io.xio.engine.ContextFailurePolicy;
import io.xio.engine.Limits;
import io.xio.engine.StreamLimits;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.sample.server.ServerApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.unit.DataSize;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.InputStream;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** Every engine option from {@code xio.*}: unset, the engine's default; set, the engine's value. */
class XioEnginePropertiesTest
{
    private static final String STREAMS = "xio.limits.streams.";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class))
        .withUserConfiguration(ServerApplication.class).withPropertyValues("xio.contexts=1");

    @Test
    void anOptionNotSetIsTheEnginesDefault()
    {
        runner.run(context ->
        {
            assertThat(context).hasNotFailed();
            final XioEngine engine = context.getBean(XioEngine.class);
            assertThat(engine.busyPoll()).isEqualTo(XioEngine.DEFAULT_BUSY_POLL);
            assertThat(engine.callerSpin()).isEqualTo(XioEngine.DEFAULT_CALLER_SPIN);
            assertThat(engine.adaptivePolling()).isEqualTo(XioEngine.DEFAULT_ADAPTIVE_POLLING);
            assertThat(engine.keepaliveInterval()).isEqualTo(XioEngine.DEFAULT_KEEPALIVE_INTERVAL);
            assertThat(engine.keepaliveTimeout()).isEqualTo(XioEngine.DEFAULT_KEEPALIVE_TIMEOUT);
            assertThat(engine.reconnectTimeout()).isEqualTo(XioEngine.DEFAULT_RECONNECT_TIMEOUT);
            assertThat(engine.connectTimeout()).isEqualTo(XioEngine.DEFAULT_CONNECT_TIMEOUT);
            assertThat(engine.onContextFailure()).isEqualTo(XioEngine.DEFAULT_CONTEXT_FAILURE_POLICY);
            assertThat(engine.isLeakDetection()).isFalse();
            assertThat(engine.limits()).isEqualTo(Limits.DEFAULT);
        });
    }

    @Test
    void eachOptionSetReachesTheEngine()
    {
        runner.withPropertyValues("xio.idle.busy-poll=2", "xio.idle.caller-spin=3", "xio.idle.adaptive=false",
            "xio.keepalive.interval=2s", "xio.keepalive.timeout=20s", "xio.connect-timeout=750ms",
            "xio.reconnect-timeout=1m",
            "xio.leak-detection=true", "xio.on-context-failure=restart-context", "xio.limits.max-segments=8",
            "xio.limits.dedup-window=4096", "xio.limits.retained-response-size=4KB").run(context ->
            {
                assertThat(context).hasNotFailed();
                final XioEngine engine = context.getBean(XioEngine.class);
                assertThat(engine.busyPoll()).as("a bare number is microseconds, as the property documents")
                    .isEqualTo(Duration.ofNanos(2_000));
                assertThat(engine.callerSpin()).as("a bare number is microseconds").isEqualTo(Duration.ofNanos(3_000));
                assertThat(engine.adaptivePolling()).isFalse();
                assertThat(engine.keepaliveInterval()).hasSeconds(2);
                assertThat(engine.keepaliveTimeout()).hasSeconds(20);
                assertThat(engine.connectTimeout()).hasMillis(750);
                assertThat(engine.reconnectTimeout()).hasMinutes(1);
                assertThat(engine.isLeakDetection()).isTrue();
                assertThat(engine.onContextFailure()).isEqualTo(ContextFailurePolicy.RESTART_CONTEXT);
                assertThat(engine.limits().maxSegments()).isEqualTo(8);
                assertThat(engine.limits().dedupWindow()).isEqualTo(4096);
                assertThat(engine.limits().retainedResponseBytes()).isEqualTo(4096);
                assertThat(engine.limits().withMaxSegments(Limits.DEFAULT.maxSegments())
                    .withDedupWindow(Limits.DEFAULT.dedupWindow())
                    .withRetainedResponseBytes(Limits.DEFAULT.retainedResponseBytes()))
                    .as("the limits not set").isEqualTo(Limits.DEFAULT);
            });
    }

    @Test
    void anIdleDurationWrittenWithItsUnitKeepsIt()
    {
        runner.withPropertyValues("xio.idle.busy-poll=1ms", "xio.idle.caller-spin=5us").run(context ->
        {
            final XioEngine engine = context.getBean(XioEngine.class);
            assertThat(engine.busyPoll()).isEqualTo(Duration.ofMillis(1));
            assertThat(engine.callerSpin()).isEqualTo(Duration.ofNanos(5_000));
        });
    }

    @Test
    void everyLimitPropertySetReachesTheEngine() throws Exception
    {
        // Each xio.limits.* property of the IDE metadata, at twice its default, must reach the engine's limit of the
        // same name (a size property's limit counts bytes): a property the mapping misses, or sends to another
        // limit, fails here.
        final Map<String, Doubled> doubled = doubledLimitDefaults();
        assertThat(doubled).as("the xio.limits.* properties").hasSizeGreaterThan(20);
        doubled.forEach((name, value) -> runner.withPropertyValues(name + "=" + value.text()).run(context ->
        {
            assertThat(context).hasNotFailed();
            final Object reached = reached(context.getBean(XioEngine.class).limits(), name);
            assertThat(((Object)(reached instanceof Number number ? number.longValue() : reached)))
                .as(name + "=" + value.text()).isEqualTo(value.expected());
        }));
        assertThat(doubled).as("the xio.limits.streams.* properties").containsKeys("xio.limits.streams.max",
            "xio.limits.streams.window-size", "xio.limits.streams.max-window-size");
    }

    /** The engine's limit that {@code property} sets, read from {@code limits} (a stream limit from its streams). */
    private static Object reached(final Limits limits, final String property) throws ReflectiveOperationException
    {
        if (property.startsWith(STREAMS))
        {
            return StreamLimits.class.getMethod(engineName(property.substring(STREAMS.length()), true))
                .invoke(limits.streams());
        }
        return Limits.class.getMethod(engineName(property.substring("xio.limits.".length()), false)).invoke(limits);
    }

    /**
     * The engine's name of a limit property (after {@code xio.limits.} or {@code xio.limits.streams.}):
     * {@code max-unsent-size} is {@code maxUnsentBytes}; a stream count leaves out its noun, so that
     * {@code max-per-session} is {@code maxStreamsPerSession} and {@code max} is {@code maxStreams}.
     */
    private static String engineName(final String property, final boolean stream)
    {
        final String[] words = property.split("-");
        final StringBuilder name = new StringBuilder(words[0]);
        if (stream && "max".equals(words[0]) && (words.length == 1 || "per".equals(words[1])))
        {
            name.append("Streams");
        }
        for (int i = 1; i < words.length; i++)
        {
            final String word = "size".equals(words[i]) ? "bytes" : words[i];
            name.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1));
        }
        return name.toString();
    }

    /** A property value as written, and what the engine's limit must then be (a number as a long). */
    private record Doubled(String text, Object expected)
    {
    }

    /** Every {@code xio.limits.*} property of this module's metadata, with twice its default as a value. */
    private static Map<String, Doubled> doubledLimitDefaults() throws Exception
    {
        final JsonNode metadata;
        try (InputStream in = XioProperties.class.getProtectionDomain().getCodeSource().getLocation().toURI()
            .resolve("META-INF/spring-configuration-metadata.json").toURL().openStream())
        {
            metadata = JsonMapper.builder().build().readTree(in);
        }
        final Map<String, Doubled> doubled = new TreeMap<>();
        metadata.get("properties").forEach(property ->
        {
            final String name = property.get("name").asString();
            if (name.startsWith("xio.limits."))
            {
                final JsonNode value = property.get("defaultValue");
                assertThat(value).as(name + "'s default").isNotNull();
                doubled.put(name, switch (property.get("type").asString())
                {
                    case "java.lang.Integer" -> new Doubled(String.valueOf(2 * value.asInt()), 2L * value.asInt());
                    case "java.time.Duration" ->
                    {
                        final Duration twice = DurationStyle.detectAndParse(value.asString()).multipliedBy(2);
                        yield new Doubled(twice.toString(), twice);
                    }
                    case "org.springframework.util.unit.DataSize" ->
                    {
                        final long bytes = 2 * DataSize.parse(value.asString()).toBytes();
                        yield new Doubled(DataSize.ofBytes(bytes).toString(), bytes);
                    }
                    default -> throw new AssertionError(name + " has a type this test does not know");
                });
            }
        });
        return doubled;
    }

    @Test
    void aKeepaliveIntervalAloneKeepsTheEnginesTimeout()
    {
        runner.withPropertyValues("xio.keepalive.interval=3s").run(context ->
        {
            final XioEngine engine = context.getBean(XioEngine.class);
            assertThat(engine.keepaliveInterval()).hasSeconds(3);
            assertThat(engine.keepaliveTimeout()).isEqualTo(XioEngine.DEFAULT_KEEPALIVE_TIMEOUT);
        });
    }

    @Test
    void aKeepaliveTimeoutNoLongerThanTheIntervalFailsStartUpNamingTheProperty()
    {
        runner.withPropertyValues("xio.keepalive.interval=5s", "xio.keepalive.timeout=5s").run(context ->
        {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("xio.keepalive.timeout").hasMessageContaining("xio.keepalive.interval");
        });
    }

    @Test
    void aDedupWindowSmallerThanMaxInFlightFailsStartUpNamingBoth()
    {
        runner.withPropertyValues("xio.limits.max-in-flight=4096", "xio.limits.dedup-window=1024").run(context ->
        {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class, invalid ->
                    assertThat(invalid.getName()).isEqualTo("xio.limits.dedup-window"))
                .hasMessageContaining("xio.limits.dedup-window (1024) must be at least xio.limits.max-in-flight (4096)")
                .hasMessageNotContaining("dedupWindow").hasMessageNotContaining("maxInFlight");
        });
    }

    @Test
    void aMaxUnsentSizeBelowMaxQueuedSizeFailsStartUpNamingBothProperties()
    {
        runner.withPropertyValues("xio.limits.max-queued-size=2MB", "xio.limits.max-unsent-size=1MB").run(context ->
        {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class, invalid ->
                    assertThat(invalid.getName()).isEqualTo("xio.limits.max-unsent-size"))
                .hasMessageContaining("xio.limits.max-unsent-size (1048576) must be at least "
                    + "xio.limits.max-queued-size (2097152)")
                .hasMessageNotContaining("Bytes");
        });
    }

    @Test
    void streamLimitsSetTogetherReachTheEngineWhereEachAloneWouldContradictADefault()
    {
        // A session budget below the default window and an engine budget below the default session budget: only
        // together with the smaller window do they fit.
        runner.withPropertyValues("xio.limits.streams.max=100", "xio.limits.streams.max-per-session=10",
            "xio.limits.streams.max-per-connection=20", "xio.limits.streams.max-per-peer=30",
            "xio.limits.streams.window-messages=16", "xio.limits.streams.window-size=64KB",
            "xio.limits.streams.max-window-size-per-session=128KB", "xio.limits.streams.max-window-size=1MB")
            .run(context ->
            {
                assertThat(context).hasNotFailed();
                final Limits limits = context.getBean(XioEngine.class).limits();
                assertThat(limits.streams()).isEqualTo(StreamLimits.builder().maxStreams(100).maxStreamsPerSession(10)
                    .maxStreamsPerConnection(20).maxStreamsPerPeer(30).windowMessages(16).windowBytes(64 << 10)
                    .maxWindowBytesPerSession(128 << 10).maxWindowBytes(1 << 20).build());
                assertThat(limits.withStreams(StreamLimits.DEFAULT)).as("the limits not set").isEqualTo(Limits.DEFAULT);
            });
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "xio.limits.streams.window-size=1MB,xio.limits.streams.max-window-size-per-session=512KB"
            + "|xio.limits.streams.window-size|xio.limits.streams.window-size (1048576) must be at most "
            + "xio.limits.streams.max-window-size-per-session (524288)",
        "xio.limits.streams.max-window-size-per-session=128KB|xio.limits.streams.max-window-size-per-session"
            + "|xio.limits.streams.window-size (262144) must be at most "
            + "xio.limits.streams.max-window-size-per-session (131072)",
        "xio.limits.streams.max-window-size=32MB|xio.limits.streams.max-window-size"
            + "|xio.limits.streams.max-window-size-per-session (67108864), and that at most "
            + "xio.limits.streams.max-window-size (33554432)"})
    void aStreamWindowThatDoesNotFitItsBudgetFailsStartUpNamingThePropertySet(final String settings,
        final String property, final String reason)
    {
        runner.withPropertyValues(settings.split(",")).run(context ->
        {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class, invalid ->
                    assertThat(invalid.getName()).isEqualTo(property))
                .hasMessageContaining(reason)
                .hasMessageNotContaining("windowBytes").hasMessageNotContaining("maxWindowBytes");
        });
    }

    @Test
    void aKeepaliveIntervalAloneAtTheDefaultTimeoutSaysTheTimeoutIsItsDefault()
    {
        runner.withPropertyValues("xio.keepalive.interval=20s").run(context ->
        {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("must be longer than xio.keepalive.interval (20s)")
                .hasMessageContaining("xio.keepalive.timeout is not set, so it is its default 10s");
        });
    }
}
