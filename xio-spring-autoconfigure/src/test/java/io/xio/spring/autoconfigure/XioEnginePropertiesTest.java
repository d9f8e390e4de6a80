package io.xio.spring.autoconfigure;

import io.xio.engine.ContextFailurePolicy;
import io.xio.engine.Limits;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.sample.server.ServerApplication;
import org.junit.jupiter.api.Test;
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
            final Limits limits = context.getBean(XioEngine.class).limits();
            final Object reached = Limits.class.getMethod(engineName(name)).invoke(limits);
            assertThat(((Object)(reached instanceof Number number ? number.longValue() : reached)))
                .as(name + "=" + value.text()).isEqualTo(value.expected());
        }));
    }

    /** The engine's name of a limit property: {@code xio.limits.max-unsent-size} is {@code maxUnsentBytes}. */
    private static String engineName(final String property)
    {
        final String[] words = property.substring("xio.limits.".length()).split("-");
        final StringBuilder name = new StringBuilder(words[0]);
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
