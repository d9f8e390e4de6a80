package io.xio.spring.autoconfigure.client;

import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.XioProperties;
import io.xio.spring.autoconfigure.codec.XioCodec;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.FactoryBean;

import java.lang.reflect.Proxy;
import java.time.Duration;

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
        return create(api, name, uri, beanFactory.getBean(XioEngine.class), beanFactory.getBean(XioCodec.class),
            beanFactory.getBean(XioProperties.class));
    }

    /** A client proxy of {@code api} for the named client or the given URI. */
    public static <T> T create(final Class<T> api, final String name, final String uri, final XioEngine engine,
        final XioCodec codec, final XioProperties properties)
    {
        Duration timeout = properties.getClient().getTimeout();
        int connections = 0;
        String address = uri;
        if (address == null || address.isEmpty())
        {
            final XioProperties.NamedClient settings = properties.getClients().get(name);
            if (settings == null || settings.getUri() == null)
            {
                throw new XioClientConfigurationException(api, name);
            }
            address = settings.getUri();
            timeout = settings.getTimeout() != null ? settings.getTimeout() : timeout;
            connections = settings.getConnections() != null ? settings.getConnections() : 0;
        }
        return api.cast(Proxy.newProxyInstance(api.getClassLoader(), new Class<?>[] {api},
            new XioClientInvocationHandler(api, address, engine, codec, timeout, connections)));
    }

    @Override
    public Class<?> getObjectType()
    {
        return api;
    }
}
