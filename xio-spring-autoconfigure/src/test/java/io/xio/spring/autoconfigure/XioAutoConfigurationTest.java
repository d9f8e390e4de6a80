package io.xio.spring.autoconfigure;

import io.xio.engine.Context;
import io.xio.engine.ContextState;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.client.XioClientConfigurationException;
import io.xio.spring.codec.JacksonXioCodec;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.autoconfigure.sample.client.ClientApplication;
import io.xio.spring.autoconfigure.sample.server.ServerApplication;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.dataformat.smile.SmileFactory;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;

/** Conditions, properties and their failure messages, without a network. */
class XioAutoConfigurationTest
{
    @Test
    void aClientOnlyApplicationGetsAnEngineACodecAndNoPortals()
    {
        runner(ServerApplication.class).run(context ->
        {
            assertThat(context).hasNotFailed().hasSingleBean(XioEngine.class).hasSingleBean(XioCodec.class);
            assertThat(context.getBean(XioEngine.class).contexts()).hasSize(1);
            assertThat(((JacksonXioCodec)context.getBean(XioCodec.class)).mapper().tokenStreamFactory())
                .isInstanceOf(SmileFactory.class);
            assertThat(context.getBean(XioServiceExporter.class).portals()).isEmpty();
        });
    }

    @Test
    void worksWithoutTheOptionalCborModuleAndSaysWhatIsMissingWhenAskedForIt()
    {
        final org.springframework.boot.test.context.FilteredClassLoader noCbor =
            new org.springframework.boot.test.context.FilteredClassLoader("tools.jackson.dataformat.cbor");
        runner(ServerApplication.class).withClassLoader(noCbor).run(context ->
            assertThat(context).hasNotFailed().hasSingleBean(XioCodec.class));
        runner(ServerApplication.class).withClassLoader(noCbor).withPropertyValues("xio.codec=cbor").run(context ->
        {
            assertThat(context).hasFailed();
            assertThat(messages(context.getStartupFailure())).contains("jackson-dataformat-cbor");
        });
    }

    @Test
    void portalsBindAndTheFirstRedirectsRoundRobinOverTheOthers()
    {
        runner(ServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0",
            "xio.portals[1].uri=tcp://127.0.0.1:0", "xio.portals[2].uri=tcp://127.0.0.1:0",
            "xio.server.redirect=round-robin").run(context ->
            {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(XioServiceExporter.class).portals()).hasSize(3)
                    .allSatisfy(portal -> assertThat(portal.uri().port()).isPositive());
            });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBeans
    {
        static final AtomicInteger CUSTOMIZED = new AtomicInteger();

        @Bean
        XioCodec myCodec()
        {
            return new XioCodec()
            {
                @Override
                public byte[] encodeArguments(final Object[] arguments, final java.lang.reflect.Type[] types)
                {
                    return new byte[0];
                }

                @Override
                public Object[] decodeArguments(final ByteBuffer bytes, final java.lang.reflect.Type[] types)
                {
                    return new Object[types.length];
                }

                @Override
                public byte[] encode(final Object value, final java.lang.reflect.Type type)
                {
                    return new byte[0];
                }

                @Override
                public Object decode(final ByteBuffer bytes, final java.lang.reflect.Type type)
                {
                    return null;
                }
            };
        }

        @Bean
        XioEngineCustomizer twoContexts()
        {
            return builder ->
            {
                CUSTOMIZED.incrementAndGet();
                builder.contexts(2);
            };
        }
    }

    @Test
    void userBeansWinAndCustomizersTuneTheEngine()
    {
        runner(ServerApplication.class).withUserConfiguration(OwnBeans.class).run(context ->
        {
            assertThat(context).hasNotFailed().hasSingleBean(XioCodec.class).hasBean("myCodec");
            assertThat(context.getBean(XioEngine.class).contexts()).hasSize(2);
            assertThat(OwnBeans.CUSTOMIZED.get()).isPositive();
        });
    }

    @Test
    void limitsDefaultToTheEnginesAndEachPropertyReachesIt()
    {
        runner(ServerApplication.class).run(context ->
            assertThat(context.getBean(XioEngine.class).limits()).isEqualTo(io.xio.engine.Limits.DEFAULT));
        runner(ServerApplication.class).withPropertyValues("xio.limits.max-queued-size=2MB",
            "xio.limits.max-unsent-size=16MB", "xio.limits.write-stall-timeout=3s", "xio.limits.handshake-timeout=2s",
            "xio.limits.incomplete-frame-timeout=1s", "xio.limits.min-receive-rate=1KB", "xio.limits.max-sessions=9",
            "xio.limits.max-sessions-per-connection=7", "xio.limits.max-sessions-per-peer=8",
            "xio.limits.max-sessions-per-principal=4", "xio.limits.max-in-flight-per-principal=3",
            "xio.limits.max-connections-per-portal=6", "xio.limits.max-connections-per-peer=5",
            "xio.limits.max-metadata-size=4KB", "xio.limits.max-authentication-failures-per-host=50",
            "xio.limits.authentication-failure-interval=30s",
            "xio.limits.max-retained-size-per-session=3MB", "xio.limits.max-retained-size=0B").run(context ->
            {
                final io.xio.engine.Limits limits = context.getBean(XioEngine.class).limits();
                assertThat(limits.maxQueuedBytes()).isEqualTo(2 << 20);
                assertThat(limits.maxUnsentBytes()).isEqualTo(16 << 20);
                assertThat(limits.writeStallTimeout()).hasSeconds(3);
                assertThat(limits.handshakeTimeout()).hasSeconds(2);
                assertThat(limits.incompleteFrameTimeout()).hasSeconds(1);
                assertThat(limits.minReceiveRate()).isEqualTo(1024);
                assertThat(limits.maxSessions()).isEqualTo(9);
                assertThat(limits.maxSessionsPerConnection()).isEqualTo(7);
                assertThat(limits.maxSessionsPerPeer()).isEqualTo(8);
                assertThat(limits.maxSessionsPerPrincipal()).isEqualTo(4);
                assertThat(limits.maxInFlightPerPrincipal()).isEqualTo(3);
                assertThat(limits.maxAuthenticationFailuresPerHost()).isEqualTo(50);
                assertThat(limits.authenticationFailureInterval()).hasSeconds(30);
                assertThat(limits.maxConnectionsPerPortal()).isEqualTo(6);
                assertThat(limits.maxConnectionsPerPeer()).isEqualTo(5);
                assertThat(limits.maxMetadataBytes()).isEqualTo(4096);
                assertThat(limits.maxRetainedBytesPerSession()).isEqualTo(3 << 20);
                assertThat(limits.maxRetainedBytes()).isZero();
            });
        runner(ServerApplication.class).withPropertyValues("xio.limits.max-queued-size=100MB").run(context ->
            assertThat(context.getBean(XioEngine.class).limits().maxUnsentBytes()).isEqualTo(100L << 20));
        runner(ServerApplication.class).withPropertyValues("xio.limits.max-queued-size=2MB",
            "xio.limits.max-unsent-size=1MB").run(context ->
        {
            assertThat(context).hasFailed();
            assertThat(messages(context.getStartupFailure()))
                .contains("xio.limits.max-unsent-size").contains("xio.limits.max-queued-size")
                .doesNotContain("maxUnsentBytes");
        });
    }

    @ParameterizedTest
    @CsvSource({"xio.codec=smile, false", "xio.on-context-failure=close-engine, false",
        "xio.on-context-failure=restart-context, true"})
    void theContextFailurePolicyClosesTheEngineUnlessToldToRestartTheContext(final String setting,
        final boolean restarts)
    {
        runner(ServerApplication.class).withPropertyValues(setting).run(context ->
        {
            assertThat(context).hasNotFailed();
            final XioEngine engine = context.getBean(XioEngine.class);
            final Context failing = engine.contexts().get(0);
            failing.execute(() ->
            {
                throw new OutOfMemoryError("injected");
            });
            org.awaitility.Awaitility.await("failure handled").atMost(Duration.ofSeconds(10))
                .until(() -> handled(engine, failing));
            assertThat(engine.isOpen()).isEqualTo(restarts);
            assertThat(engine.contexts().get(0).state())
                .isEqualTo(restarts ? ContextState.RUNNING : ContextState.FAILED);
        });
    }

    /** Whether the engine closed itself or put a fresh context in the failed one's place. */
    private static boolean handled(final XioEngine engine, final Context failed)
    {
        return failed.state() == ContextState.FAILED && (engine.contexts().get(0) != failed || !engine.isOpen());
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnService
    {
        @Bean
        io.xio.spring.autoconfigure.sample.server.KvStoreImpl storeMadeByHand()
        {
            return new io.xio.spring.autoconfigure.sample.server.KvStoreImpl();
        }
    }

    @Test
    void aServiceTheApplicationDeclaresWithABeanMethodIsNotRegisteredTwice()
    {
        runner(ServerApplication.class).withUserConfiguration(OwnService.class).run(context ->
            assertThat(context).hasNotFailed()
                .hasSingleBean(io.xio.spring.autoconfigure.sample.server.KvStoreImpl.class)
                .hasBean("storeMadeByHand"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "xio.contexts=0|xio.contexts|0|must be at least 1",
        "xio.idle.busy-poll=-1ms|xio.idle.busy-poll|-1ms|must not be negative",
        "xio.portals[0].uri=not a uri|xio.portals[0].uri|not a uri|malformed xio URI",
        "xio.clients.kv.uri=tcp://localhost:7000|xio.clients.kv.uri|tcp://localhost:7000|names no resource",
        "xio.clients.kv.timeout=0s|xio.clients.kv.timeout|0s|must be positive",
        "xio.limits.max-in-flight=0|xio.limits.max-in-flight|0|must be at least 1",
        "xio.server.services.kv.max-concurrent-calls=0|xio.server.services.kv.max-concurrent-calls|0|at least 1",
        "xio.server.services.kv.max-queued-calls=-1|xio.server.services.kv.max-queued-calls|-1|must not be negative",
        "xio.limits.max-message-size=10B|xio.limits.max-message-size|10B|must be from 1KB to 2GB",
        "xio.limits.max-sessions-per-peer=0|xio.limits.max-sessions-per-peer|0|must be at least 1",
        "xio.limits.write-stall-timeout=0s|xio.limits.write-stall-timeout|0s|must be positive",
        "xio.limits.max-unsent-size=0B|xio.limits.max-unsent-size|0B|must be from 1B",
        "xio.limits.streams.max=-1|xio.limits.streams.max|-1|must be at least 1",
        "xio.limits.streams.max-per-session=0|xio.limits.streams.max-per-session|0|must be at least 1",
        "xio.limits.streams.window-messages=65537|xio.limits.streams.window-messages|65537|must be from 1 to 65536",
        "xio.limits.streams.window-size=0B|xio.limits.streams.window-size|0B|must be from 1B",
        "xio.limits.streams.window-size=2GB|xio.limits.streams.window-size|2GB|must be from 1B to 2147483647B",
        "xio.limits.streams.max-window-size=-1MB|xio.limits.streams.max-window-size|-1MB|must be from 1B",
        "xio.codec=xml|xio.codec|xml|XML",
        "xio.on-context-failure=reboot|xio.on-context-failure|reboot|REBOOT"})
    void aBadPropertyFailsStartUpNamingThePropertyAndTheValue(final String setting, final String property,
        final String value, final String reason)
    {
        runner(ServerApplication.class).withPropertyValues(setting).run(context ->
        {
            assertThat(context).hasFailed();
            // What Spring Boot's bind failure analyzer prints: the property, its value, and the reason.
            final BindException bind = find(context.getStartupFailure(), BindException.class);
            assertThat(bind.getProperty().getName()).hasToString(property);
            assertThat(String.valueOf(bind.getProperty().getValue())).isEqualTo(value);
            assertThat(messages(bind)).containsIgnoringCase(reason);
        });
    }

    private static <T extends Throwable> T find(final Throwable failure, final Class<T> type)
    {
        for (Throwable t = failure; t != null; t = t.getCause())
        {
            if (type.isInstance(t))
            {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + failure);
    }

    private static String messages(final Throwable failure)
    {
        final StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause())
        {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }

    @Test
    void aClientWithoutSettingsFailsStartUpNamingTheClientAndTheProperty()
    {
        runner(ClientApplication.class).run(context ->
        {
            assertThat(context).hasFailed();
            assertThat(find(context.getStartupFailure(), XioClientConfigurationException.class))
                .hasMessageContaining("@XioClient(\"kv\")").hasMessageContaining("xio.clients.kv.uri");
            final FailureAnalysis analysis =
                new io.xio.spring.autoconfigure.diagnostics.XioClientConfigurationFailureAnalyzerAccess()
                .analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("KvClient").contains("xio.clients.kv.uri");
            assertThat(analysis.getAction()).contains("Set xio.clients.kv.uri");
        });
    }
}
