package io.xio.spring.autoconfigure;

import io.xio.engine.Limits;
import io.xio.engine.SessionAcceptor;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.client.XioClientRegistry;
import io.xio.spring.autoconfigure.call.XioServerInterceptor;
import io.xio.spring.autoconfigure.codec.JacksonXioCodec;
import io.xio.spring.autoconfigure.codec.XioCodec;
import io.xio.spring.autoconfigure.observation.XioInstrumentation;
import io.xio.spring.autoconfigure.service.XioExportListener;
import io.xio.spring.autoconfigure.service.XioServiceExporter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.smile.SmileMapper;

/**
 * Auto-configuration of xio: the engine from {@code xio.*} properties, the codec of method arguments (Boot's
 * {@link JsonMapper} configuration carried over to the binary format), the service exporter that binds the
 * portals once the context is refreshed (deciding on session set-ups with the application's
 * {@link SessionAcceptor} bean, if it has one), and client proxies for {@code @XioClient} interfaces. Every bean
 * backs off when the application defines its own.
 */
@AutoConfiguration(after = JacksonAutoConfiguration.class)
@EnableConfigurationProperties(XioProperties.class)
@Import(XioComponentsRegistrar.class)
public class XioAutoConfiguration
{
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public XioEngine xioEngine(final XioProperties properties, final ObjectProvider<XioEngineCustomizer> customizers)
    {
        final XioEngine.Builder builder = XioEngine.builder().name("xio");
        final PropertyMapper map = PropertyMapper.get();
        map.from(properties::getContexts).to(builder::contexts);
        map.from(properties.getIdle()::getBusyPoll).to(builder::busyPoll);
        map.from(properties::getOnContextFailure).to(builder::onContextFailure);
        builder.limits(limits(properties.getLimits()));
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    /** The engine's limits from {@code xio.limits.*}; one that contradicts another fails start-up naming both. */
    static Limits limits(final XioProperties.Limits properties)
    {
        try
        {
            return Limits.DEFAULT
                .withMaxMessageBytes((int)Math.min(Integer.MAX_VALUE, properties.getMaxMessageSize().toBytes()))
                .withMaxHeaderBytes((int)properties.getMaxHeaderSize().toBytes())
                .withMaxInFlight(properties.getMaxInFlight())
                .withMaxQueuedBytes((int)properties.getMaxQueuedSize().toBytes())
                .withMaxUnsentBytes(properties.getMaxUnsentSize() != null ? properties.getMaxUnsentSize().toBytes() :
                    Math.max(Limits.DEFAULT.maxUnsentBytes(), properties.getMaxQueuedSize().toBytes()))
                .withWriteStallTimeout(properties.getWriteStallTimeout())
                .withHandshakeTimeout(properties.getHandshakeTimeout())
                .withIncompleteFrameTimeout(properties.getIncompleteFrameTimeout())
                .withMinReceiveRate((int)properties.getMinReceiveRate().toBytes())
                .withMaxSessions(properties.getMaxSessions())
                .withMaxSessionsPerConnection(properties.getMaxSessionsPerConnection())
                .withMaxSessionsPerPeer(properties.getMaxSessionsPerPeer())
                .withMaxSessionsPerPrincipal(properties.getMaxSessionsPerPrincipal())
                .withMaxInFlightPerPrincipal(properties.getMaxInFlightPerPrincipal())
                .withMaxAuthenticationFailuresPerHost(properties.getMaxAuthenticationFailuresPerHost())
                .withAuthenticationFailureInterval(properties.getAuthenticationFailureInterval())
                .withMaxConnectionsPerPortal(properties.getMaxConnectionsPerPortal())
                .withMaxConnectionsPerPeer(properties.getMaxConnectionsPerPeer())
                .withMaxMetadataBytes((int)properties.getMaxMetadataSize().toBytes())
                .withMaxRetainedBytesPerSession(properties.getMaxRetainedSizePerSession().toBytes())
                .withMaxRetainedBytes(properties.getMaxRetainedSize().toBytes());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalStateException("invalid xio.limits: " + ex.getMessage(), ex);
        }
    }

    @Bean
    @ConditionalOnMissingBean
    public XioCodec xioCodec(final XioProperties properties, final ObjectProvider<JsonMapper> jsonMapper,
        final ApplicationContext context)
    {
        final JsonMapper json = jsonMapper.getIfAvailable(JsonMapper::new);
        final ObjectMapper mapper = switch (properties.getCodec())
        {
            case JSON -> json;
            case SMILE -> SmileMapper.builder().addModules(json.registeredModules()).build();
            case CBOR -> cbor(json, context.getClassLoader());
        };
        return new JacksonXioCodec(mapper);
    }

    private static ObjectMapper cbor(final JsonMapper json, final ClassLoader classLoader)
    {
        if (!org.springframework.util.ClassUtils.isPresent("tools.jackson.dataformat.cbor.CBORMapper", classLoader))
        {
            throw new IllegalStateException("xio.codec=cbor needs tools.jackson.dataformat:jackson-dataformat-cbor " +
                "on the class path");
        }
        return CborMappers.of(json);
    }

    /** Kept apart so that this configuration loads without the optional CBOR module. */
    private static final class CborMappers
    {
        static ObjectMapper of(final JsonMapper json)
        {
            return tools.jackson.dataformat.cbor.CBORMapper.builder().addModules(json.registeredModules()).build();
        }
    }

    @Bean
    @ConditionalOnMissingBean
    public XioClientRegistry xioClientRegistry()
    {
        return new XioClientRegistry();
    }

    @Bean
    @ConditionalOnMissingBean
    public XioServiceExporter xioServiceExporter(final ApplicationContext context, final XioEngine engine,
        final XioCodec codec, final XioProperties properties, final ObjectProvider<XioInstrumentation> instrumentation,
        final ObjectProvider<XioServerInterceptor> interceptors, final ObjectProvider<SessionAcceptor> acceptor,
        final ObjectProvider<SslBundles> sslBundles, final ObjectProvider<XioExportListener> listeners)
    {
        final XioServiceExporter exporter = new XioServiceExporter(context, engine, codec, properties,
            instrumentation.getIfAvailable(() -> XioInstrumentation.NONE), interceptors.orderedStream().toList(),
            acceptor.getIfAvailable(() -> SessionAcceptor.DEFAULT), sslBundles.getIfAvailable());
        exporter.addListeners(listeners.orderedStream().toList());
        return exporter;
    }
}
