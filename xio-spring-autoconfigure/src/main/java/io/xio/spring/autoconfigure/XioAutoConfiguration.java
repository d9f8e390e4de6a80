package io.xio.spring.autoconfigure;

import io.xio.engine.SessionAcceptor;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.client.XioDnsEndpoints;
import io.xio.spring.autoconfigure.service.XioGracefulShutdownLifecycle;
import io.xio.spring.autoconfigure.service.XioPortInfoListener;
import io.xio.spring.call.XioServerInterceptor;
import io.xio.spring.client.XioClientRegistry;
import io.xio.spring.codec.FormatMappers;
import io.xio.spring.codec.JacksonXioCodec;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.health.UnauthenticatedHealthAcceptor;
import io.xio.spring.health.XioHealth;
import io.xio.spring.observation.XioInstrumentation;
import io.xio.spring.service.ContextPropagationCallContext;
import io.xio.spring.service.XioCallContext;
import io.xio.spring.service.XioExportListener;
import io.xio.spring.service.XioServiceExporter;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.context.LifecycleProperties;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.thread.Threading;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.smile.SmileFactory;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Auto-configuration of xio: the engine from {@code xio.*} properties, the codec of method arguments (Boot's
 * {@link JsonMapper} configuration carried over to the binary format), the service exporter that binds the
 * portals once the context is refreshed (deciding on session set-ups with the application's
 * {@link SessionAcceptor} bean, if it has one; service methods on Boot's task executor, in the context each call
 * arrived with; stopping in Boot's graceful-shutdown phase), and client proxies for {@code @XioClient}
 * interfaces. Every bean backs off when the application defines its own.
 */
@AutoConfiguration(after = JacksonAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "xio.enabled", matchIfMissing = true)
@EnableConfigurationProperties(XioProperties.class)
@Import(XioComponentsRegistrar.class)
public final class XioAutoConfiguration
{
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    XioEngine xioEngine(final XioProperties properties, final ObjectProvider<XioEngineCustomizer> customizers)
    {
        final XioEngine.Builder builder = XioEngine.builder().name("xio");
        final PropertyMapper map = PropertyMapper.get(); // a property not set leaves the engine's default
        map.from(properties::getContexts).to(builder::contexts);
        map.from(properties.getIdle()::getBusyPoll).to(builder::busyPoll);
        map.from(properties.getIdle()::getCallerSpin).to(builder::callerSpin);
        map.from(properties.getIdle()::getAdaptive).to(builder::adaptivePolling);
        map.from(properties::getOnContextFailure).to(builder::onContextFailure);
        map.from(properties::getConnectTimeout).to(builder::connectTimeout);
        map.from(properties::getReconnectTimeout).to(builder::reconnectTimeout);
        map.from(properties::getLeakDetection).to(builder::leakDetection);
        keepalive(properties.getKeepalive(), builder);
        builder.limits(XioLimitsMapping.limits(properties.getLimits()));
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    /** Interval and timeout go to the engine together: one set alone keeps the engine's default for the other. */
    private static void keepalive(final XioProperties.Keepalive keepalive, final XioEngine.Builder builder)
    {
        if (keepalive.getInterval() == null && keepalive.getTimeout() == null)
        {
            return;
        }
        final Duration interval = Objects.requireNonNullElse(keepalive.getInterval(),
            XioEngine.DEFAULT_KEEPALIVE_INTERVAL);
        final Duration timeout = Objects.requireNonNullElse(keepalive.getTimeout(),
            XioEngine.DEFAULT_KEEPALIVE_TIMEOUT);
        if (timeout.compareTo(interval) <= 0)
        {
            // The one not set is the engine's default, which the user may not know: say so.
            throw new InvalidConfigurationPropertyValueException("xio.keepalive.timeout", timeout,
                "must be longer than xio.keepalive.interval (" + simple(interval) +
                (keepalive.getInterval() == null ? ", its default" : "") + ")" + (keepalive.getTimeout() == null
                ? "; xio.keepalive.timeout is not set, so it is its default " + simple(timeout) +
                ": set it too" : ""));
        }
        builder.keepalive(interval, timeout);
    }

    /** A duration as it is written in properties ({@code 10s}, {@code 750ms}), in the largest unit that is exact. */
    private static String simple(final Duration duration)
    {
        final ChronoUnit unit = duration.getNano() == 0 ? ChronoUnit.SECONDS
            : duration.getNano() % 1_000_000 == 0 ? ChronoUnit.MILLIS : ChronoUnit.NANOS;
        return DurationStyle.SIMPLE.print(duration, unit);
    }

    /**
     * The codec on Boot's mappers: JSON is Boot's {@link JsonMapper} (or the application's), Smile a mapper
     * configured like it (Boot has none of its own), CBOR Boot's {@code CBORMapper} ({@code spring.jackson.*},
     * {@code spring.jackson.cbor.*} and {@code CborMapperBuilderCustomizer} beans) while the JSON mapper is Boot's
     * too, the application's own {@code CBORMapper} bean if it defines one, or else one configured like the JSON
     * mapper.
     */
    @Bean
    @ConditionalOnMissingBean
    XioCodec xioCodec(final XioProperties properties, final ObjectProvider<JsonMapper> jsonMapper,
        final ApplicationContext context)
    {
        final JsonMapper json = jsonMapper.getIfAvailable(JsonMapper::new);
        final ObjectMapper mapper = switch (properties.getCodec())
        {
            case JSON -> json;
            case SMILE -> FormatMappers.of(json, new SmileFactory());
            case CBOR -> cbor(json, context);
        };
        return new JacksonXioCodec(mapper);
    }

    private static ObjectMapper cbor(final JsonMapper json, final ApplicationContext context)
    {
        if (!org.springframework.util.ClassUtils.isPresent("tools.jackson.dataformat.cbor.CBORMapper",
            context.getClassLoader()))
        {
            throw new IllegalStateException("xio.codec=cbor needs tools.jackson.dataformat:jackson-dataformat-cbor " +
                "on the class path");
        }
        return CborMappers.of(json, context);
    }

    /** Kept apart so that this configuration loads without the optional CBOR module. */
    private static final class CborMappers
    {
        static ObjectMapper of(final JsonMapper json, final ApplicationContext context)
        {
            final ObjectMapper cbor = context.getBeanProvider(tools.jackson.dataformat.cbor.CBORMapper.class)
                .getIfUnique();
            if (cbor == null)
            {
                final String[] names = context.getBeanNamesForType(tools.jackson.dataformat.cbor.CBORMapper.class);
                if (names.length > 1)
                {
                    throw new IllegalStateException("xio.codec=cbor found " + names.length + " CBORMapper beans " +
                        java.util.Arrays.toString(names) + " and none is @Primary: mark the one xio uses " +
                        "@Primary or define an XioCodec bean");
                }
                return FormatMappers.of(json, new tools.jackson.dataformat.cbor.CBORFactory());
            }
            // Boot's CBORMapper knows nothing of an application's JsonMapper bean; only the pair of Boot's own
            // shares the settings. An application's own CBORMapper is its choice and is used as it is.
            final boolean bootsCbor = madeByJacksonAutoConfiguration(cbor, context);
            if (bootsCbor && !madeByJacksonAutoConfiguration(json, context))
            {
                return FormatMappers.of(json, new tools.jackson.dataformat.cbor.CBORFactory());
            }
            return cbor;
        }

        /** Whether {@code mapper} is a bean that a method of Boot's {@link JacksonAutoConfiguration} made. */
        private static boolean madeByJacksonAutoConfiguration(final ObjectMapper mapper,
            final ApplicationContext context)
        {
            if (!(context.getAutowireCapableBeanFactory()
                instanceof final org.springframework.beans.factory.config.ConfigurableListableBeanFactory factory))
            {
                return false;
            }
            for (final String name : factory.getBeanNamesForType(mapper.getClass(), false, false))
            {
                // The factory bean is the configuration class, both with and without AOT processing.
                final String configuration = factory.containsBeanDefinition(name) ?
                    factory.getBeanDefinition(name).getFactoryBeanName() : null;
                if (configuration != null && factory.getBean(name) == mapper)
                {
                    final Class<?> type = factory.getType(configuration);
                    return type != null && isJacksonAutoConfiguration(ClassUtils.getUserClass(type));
                }
            }
            return false;
        }

        private static boolean isJacksonAutoConfiguration(final Class<?> type)
        {
            for (Class<?> declaring = type; declaring != null; declaring = declaring.getEnclosingClass())
            {
                if (declaring == JacksonAutoConfiguration.class)
                {
                    return true;
                }
            }
            return false;
        }
    }

    @Bean
    @ConditionalOnMissingBean
    XioClientRegistry xioClientRegistry()
    {
        return new XioClientRegistry();
    }

    /** The resolver shared by every client whose address is a DNS name, built when the first such client is. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    XioDnsEndpoints xioDnsEndpoints(final XioProperties properties)
    {
        return new XioDnsEndpoints(properties.getClient().getDns());
    }

    /** {@code local.xio.port} and {@code local.xio.ports[i]}: the ports the portals are bound at. */
    @Bean
    XioPortInfoListener xioPortInfoListener(final ApplicationContext context,
        final ConfigurableEnvironment environment)
    {
        return new XioPortInfoListener(context, environment);
    }

    @Bean
    @ConditionalOnMissingBean
    XioServiceExporter xioServiceExporter(final ApplicationContext context, final XioEngine engine,
        final XioCodec codec, final XioProperties properties, final ObjectProvider<XioInstrumentation> instrumentation,
        final ObjectProvider<XioServerInterceptor> interceptors, final ObjectProvider<SessionAcceptor> acceptor,
        final ObjectProvider<SslBundles> sslBundles, final ObjectProvider<XioExportListener> listeners,
        final ObjectProvider<XioCallContext> callContext, final ObjectProvider<LifecycleProperties> lifecycle)
    {
        final LifecycleProperties phases = lifecycle.getIfAvailable();
        final XioServiceExporter exporter = new XioServiceExporter(context, engine, codec,
            XioExporterSettings.server(properties, sslBundles.getIfAvailable()),
            new XioServiceExporter.Settings(instrumentation.getIfAvailable(), interceptors.orderedStream().toList(),
                acceptor(acceptor.getIfAvailable(), engine, properties.getServer().getHealth()),
                workerExecutor(properties, context),
                callContext.getIfAvailable(() -> callContext(context)),
                phases != null ? phases.getTimeoutPerShutdownPhase() : null,
                Threading.VIRTUAL.isActive(context.getEnvironment())));
        // Readiness first: it refuses traffic before discovery withdraws the instance, and accepts it before.
        exporter.addListeners(List.of(new XioReadinessExportListener(context)));
        exporter.addListeners(listeners.orderedStream().toList());
        return exporter;
    }

    /**
     * The application's acceptor, letting health checks in without authentication when
     * {@code xio.server.health.allow-unauthenticated} says so, up to {@code max-unauthenticated-sessions} of them.
     */
    private static @Nullable SessionAcceptor acceptor(final @Nullable SessionAcceptor acceptor,
        final XioEngine engine, final XioProperties.Health health)
    {
        return acceptor != null && health.isEnabled() && health.isAllowUnauthenticated()
            ? new UnauthenticatedHealthAcceptor(acceptor, () -> anonymousHealthSessions(engine),
                health.getMaxUnauthenticatedSessions())
            : acceptor;
    }

    /** The engine's open health sessions without a principal: a snapshot, asked only at a health set-up. */
    private static int anonymousHealthSessions(final XioEngine engine)
    {
        return (int)engine.sessions().stream().filter(session -> session.isServerSide() &&
            session.principal() == null && XioHealth.RESOURCE.equals(session.resource())).count();
    }

    @Bean
    @ConditionalOnBean(XioServiceExporter.class)
    XioGracefulShutdownLifecycle xioGracefulShutdownLifecycle(final XioServiceExporter exporter)
    {
        return new XioGracefulShutdownLifecycle(exporter);
    }

    /**
     * What service methods run on: the Executor bean {@code xio.server.executor} names, else Boot's application task
     * executor, else null (the exporter then runs each call on a thread of its own).
     */
    static @Nullable Executor workerExecutor(final XioProperties properties, final ApplicationContext context)
    {
        final String name = properties.getServer().getExecutor();
        if (StringUtils.hasText(name))
        {
            if (!context.containsBean(name) || !context.isTypeMatch(name, Executor.class))
            {
                throw new InvalidConfigurationPropertyValueException("xio.server.executor", name,
                    "it must name an Executor bean; the Executor beans are " +
                    List.of(context.getBeanNamesForType(Executor.class)));
            }
            return context.getBean(name, Executor.class);
        }
        final String boots = TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME;
        return context.containsBean(boots) && context.isTypeMatch(boots, Executor.class)
            ? context.getBean(boots, Executor.class) : null;
    }

    /** Micrometer's context-propagation when it is on the class path, else none. */
    private static XioCallContext callContext(final ApplicationContext context)
    {
        return ClassUtils.isPresent("io.micrometer.context.ContextSnapshotFactory", context.getClassLoader())
            ? new ContextPropagationCallContext() : XioCallContext.NONE;
    }
}
