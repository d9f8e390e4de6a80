package io.xio.spring.autoconfigure.client;

import io.xio.engine.SessionOptions;
import io.xio.engine.TlsOptions;
import io.xio.engine.XioEngine;
import io.xio.engine.cluster.EndpointResolver;
import io.xio.engine.cluster.LoadBalancer;
import io.xio.engine.cluster.ServiceClient;
import io.xio.engine.cluster.TransportPreference;
import io.xio.spring.autoconfigure.XioProperties;
import io.xio.spring.autoconfigure.call.XioClientInterceptor;
import io.xio.spring.autoconfigure.codec.XioCodec;
import io.xio.spring.autoconfigure.observation.XioInstrumentation;
import io.xio.spring.autoconfigure.ssl.XioSslBundles;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundles;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes the proxy of one {@code @XioClient} interface. Its settings come from {@code xio.clients.<name>} or
 * from a URI given on the annotation; a name with no settings fails start-up naming both. A named client calls one
 * address ({@code uri}) or every instance of a service ({@code service-id}), never both.
 */
public final class XioClientFactoryBean<T> implements FactoryBean<T>, BeanFactoryAware
{
    private final Class<T> api;
    private final String name;
    private final String uri;
    private BeanFactory beanFactory;

    public XioClientFactoryBean(final Class<T> api, final String name, final String uri)
    {
        this.api = api;
        this.name = name;
        this.uri = uri;
    }

    @Override
    public void setBeanFactory(final BeanFactory beanFactory)
    {
        this.beanFactory = beanFactory;
    }

    @Override
    public T getObject()
    {
        return create(api, name, uri, beanFactory);
    }

    /** A client proxy of {@code api} for the named client or the given URI, made of the context's xio beans. */
    public static <T> T create(final Class<T> api, final String name, final String uri, final BeanFactory beans)
    {
        final XioProperties properties = beans.getBean(XioProperties.class);
        Duration timeout = properties.getClient().getTimeout();
        int connections = 0;
        String address = uri;
        final List<Class<? extends Exception>> allowed = new ArrayList<>(properties.getClient().getAllowedExceptions());
        XioProperties.NamedRetry retry = null;
        XioProperties.NamedClient settings = null;
        if (address == null || address.isEmpty())
        {
            settings = namedClient(properties, name);
            if (settings == null || settings.getUri() == null && settings.getServiceId() == null)
            {
                throw new XioClientConfigurationException(api, name);
            }
            if (settings.getUri() != null && settings.getServiceId() != null)
            {
                throw new XioClientConfigurationException(api, name, "sets both xio.clients." + name +
                    ".uri and xio.clients." + name + ".service-id; a client calls one address or one service");
            }
            address = settings.getUri();
            timeout = settings.getTimeout() != null ? settings.getTimeout() : timeout;
            connections = settings.getConnections() != null ? settings.getConnections() : 0;
            allowed.addAll(settings.getAllowedExceptions());
            retry = settings.getRetry();
        }
        final String label = name == null || name.isEmpty() ? address : name;
        final boolean service = settings != null && settings.getServiceId() != null;
        final String prefix = "xio.clients." + name;
        final SessionOptions options = SessionOptions.DEFAULT.withTimeout(timeout).withConnections(connections)
            .withCredentials(CredentialsSource.of(label, settings == null ? null : settings.getCredentials(),
                prefix + ".credentials", properties.getClient().getCredentials(),
                () -> beans.getBeanProvider(XioCredentialsProvider.class).orderedStream().toList()))
            .withTls(service ? serviceTls(settings, prefix, beans) : tls(settings, prefix,
                properties.getClient().getSsl(), address, beans));
        final XioEngine engine = beans.getBean(XioEngine.class);
        final ClientSessions sessions = service ? serviceSessions(engine, settings, name, options, beans)
            : new UriSessions(engine, address, options);
        final XioClientInvocationHandler handler = new XioClientInvocationHandler(api, name, sessions, engine,
            beans.getBean(XioCodec.class), options,
            beans.getBeanProvider(XioInstrumentation.class).getIfAvailable(() -> XioInstrumentation.NONE),
            new AllowedExceptions(allowed), RetryPolicy.of(properties.getClient().getRetry(), retry,
                label),
            () -> beans.getBeanProvider(XioClientInterceptor.class).orderedStream().toList());
        beans.getBeanProvider(XioClientRegistry.class).ifAvailable(registry -> registry.add(handler));
        return api.cast(Proxy.newProxyInstance(api.getClassLoader(), new Class<?>[] {api}, handler));
    }

    /**
     * The sessions of a client that names a service: a {@link ServiceClient} over the instances the application's
     * {@link EndpointResolver} (the Spring Cloud {@code DiscoveryClient} bridge) reports. Fails naming
     * {@code service-id} when there is no resolver.
     */
    private static ClientSessions serviceSessions(final XioEngine engine, final XioProperties.NamedClient settings,
        final String name, final SessionOptions options, final BeanFactory beans)
    {
        final String property = "xio.clients." + name + ".service-id";
        final EndpointResolver resolver = beans.getBeanProvider(EndpointResolver.class).getIfAvailable();
        if (resolver == null)
        {
            throw new InvalidConfigurationPropertyValueException(property, settings.getServiceId(), "a client " +
                "that names a service needs Spring Cloud discovery (a DiscoveryClient bean, e.g. from " +
                "spring-cloud-starter-zookeeper-discovery) or an EndpointResolver bean; there is neither");
        }
        final ServiceClient client = ServiceClient.builder(engine, resolver, settings.getServiceId())
            .resource(settings.getResource() != null ? settings.getResource() : name)
            .balancer(switch (settings.getLoadBalancing())
            {
                case ROUND_ROBIN -> LoadBalancer.roundRobin();
                case LEAST_IN_FLIGHT -> LoadBalancer.leastInFlight();
                case RENDEZVOUS -> LoadBalancer.rendezvous();
            })
            .transports(settings.getTransports() != null ? settings.getTransports() : TransportPreference.DEFAULT)
            .sessionOptions(options)
            .build();
        return new ServiceSessions(client, settings.getServiceId());
    }

    /**
     * A service client's TLS options: its own SSL bundle's, used for the instances' tls portals; none without one
     * (the instances' addresses are not known before they register).
     */
    private static TlsOptions serviceTls(final XioProperties.NamedClient settings, final String prefix,
        final BeanFactory beans)
    {
        if (settings.getSsl().getBundle() == null)
        {
            return null;
        }
        return XioSslBundles.tlsOptions(beans.getBeanProvider(SslBundles.class).getIfAvailable(),
            prefix + ".ssl.bundle", settings.getSsl().getBundle(), "tls://service/" + settings.getServiceId())
            .withVerifyHostname(!settings.getSsl().hasVerifyHostname() || settings.getSsl().isVerifyHostname());
    }

    /**
     * The TLS options of the client's SSL bundle, or null for none: its own (which needs a tls:// address), else
     * for a tls:// address {@code xio.client.ssl}'s, so that one default serves the tls clients among others; the
     * client's own verify-hostname applies to either.
     */
    private static TlsOptions tls(final XioProperties.NamedClient settings, final String prefix,
        final XioProperties.ClientSsl defaults, final String address, final BeanFactory beans)
    {
        final boolean own = settings != null && settings.getSsl().getBundle() != null;
        final XioProperties.ClientSsl ssl = own ? settings.getSsl() : defaults;
        if (ssl.getBundle() == null || !own && !"tls".equals(io.xio.engine.XioUri.parse(address).scheme()))
        {
            return null;
        }
        return XioSslBundles.tlsOptions(beans.getBeanProvider(SslBundles.class).getIfAvailable(),
            own ? prefix + ".ssl.bundle" : "xio.client.ssl.bundle", ssl.getBundle(), address)
            .withVerifyHostname(settings != null && settings.getSsl().hasVerifyHostname()
                ? settings.getSsl().isVerifyHostname() : ssl.isVerifyHostname());
    }

    /** The client's settings, matching names the way relaxed binding spells them (orderService, order-service). */
    private static XioProperties.NamedClient namedClient(final XioProperties properties, final String name)
    {
        final XioProperties.NamedClient exact = properties.getClients().get(name);
        if (exact != null)
        {
            return exact;
        }
        final String wanted = canonical(name);
        return properties.getClients().entrySet().stream().filter(e -> canonical(e.getKey()).equals(wanted))
            .map(java.util.Map.Entry::getValue).findFirst().orElse(null);
    }

    private static String canonical(final String name)
    {
        return name.replace("-", "").replace("_", "").toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public Class<?> getObjectType()
    {
        return api;
    }
}
