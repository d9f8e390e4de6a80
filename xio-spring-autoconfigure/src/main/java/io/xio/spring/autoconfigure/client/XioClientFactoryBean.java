package io.xio.spring.autoconfigure.client;

import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.XioProperties;
import io.xio.spring.autoconfigure.call.XioClientInterceptor;
import io.xio.spring.autoconfigure.codec.XioCodec;
import io.xio.spring.autoconfigure.observation.XioInstrumentation;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.FactoryBean;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes the proxy of one {@code @XioClient} interface. Its settings come from {@code xio.clients.<name>} or
 * from a URI given on the annotation; a name with no settings fails start-up naming both.
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
        if (address == null || address.isEmpty())
        {
            final XioProperties.NamedClient settings = namedClient(properties, name);
            if (settings == null || settings.getUri() == null)
            {
                throw new XioClientConfigurationException(api, name);
            }
            address = settings.getUri();
            timeout = settings.getTimeout() != null ? settings.getTimeout() : timeout;
            connections = settings.getConnections() != null ? settings.getConnections() : 0;
            allowed.addAll(settings.getAllowedExceptions());
            retry = settings.getRetry();
        }
        final XioClientInvocationHandler handler = new XioClientInvocationHandler(api, name, address,
            beans.getBean(XioEngine.class), beans.getBean(XioCodec.class), timeout, connections,
            beans.getBeanProvider(XioInstrumentation.class).getIfAvailable(() -> XioInstrumentation.NONE),
            new AllowedExceptions(allowed), RetryPolicy.of(properties.getClient().getRetry(), retry,
                name == null || name.isEmpty() ? address : name),
            () -> beans.getBeanProvider(XioClientInterceptor.class).orderedStream().toList());
        beans.getBeanProvider(XioClientRegistry.class).ifAvailable(registry -> registry.add(handler));
        return api.cast(Proxy.newProxyInstance(api.getClassLoader(), new Class<?>[] {api}, handler));
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
