package io.xio.spring.autoconfigure.client;

import io.xio.annotation.XioClient;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanDefinitionHolder;
import org.springframework.beans.factory.config.DependencyDescriptor;
import org.springframework.beans.factory.support.AutowireCandidateResolver;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Supplies a client proxy wherever a dependency of an interface type is annotated {@code @XioClient}: a
 * constructor or method parameter, or an {@code @Autowired} field; everything else goes to the resolver it
 * wraps (Spring's, or the application's). One proxy per interface, name and URI, shared by all its users.
 */
final class XioClientAutowireCandidateResolver implements AutowireCandidateResolver
{
    private final AutowireCandidateResolver delegate;
    private final BeanFactory beanFactory;
    private final Map<String, Object> proxies;

    XioClientAutowireCandidateResolver(final AutowireCandidateResolver delegate, final BeanFactory beanFactory,
        final Map<String, Object> proxies)
    {
        this.delegate = delegate;
        this.beanFactory = beanFactory;
        this.proxies = proxies;
    }

    XioClientAutowireCandidateResolver(final AutowireCandidateResolver delegate, final BeanFactory beanFactory)
    {
        this(delegate, beanFactory, new ConcurrentHashMap<>());
    }

    /** The shared proxy of {@code api} for a client name or URI. */
    Object proxy(final Class<?> api, final String name, final String uri)
    {
        return proxies.computeIfAbsent(api.getName() + "|" + name + "|" + uri, key ->
            XioClientFactoryBean.create(api, name, uri, beanFactory));
    }

    @Override
    public Object getSuggestedValue(final DependencyDescriptor descriptor)
    {
        final XioClient client = descriptor.getAnnotation(XioClient.class);
        if (client == null || !descriptor.getDependencyType().isInterface())
        {
            return delegate.getSuggestedValue(descriptor);
        }
        return proxy(descriptor.getDependencyType(), client.value(), client.uri());
    }

    @Override
    public boolean isAutowireCandidate(final BeanDefinitionHolder holder, final DependencyDescriptor descriptor)
    {
        return delegate.isAutowireCandidate(holder, descriptor);
    }

    @Override
    public boolean isRequired(final DependencyDescriptor descriptor)
    {
        return delegate.isRequired(descriptor);
    }

    @Override
    public boolean hasQualifier(final DependencyDescriptor descriptor)
    {
        return delegate.hasQualifier(descriptor);
    }

    @Override
    public String getSuggestedName(final DependencyDescriptor descriptor)
    {
        return delegate.getSuggestedName(descriptor);
    }

    @Override
    public Object getLazyResolutionProxyIfNecessary(final DependencyDescriptor descriptor, final String beanName)
    {
        return delegate.getLazyResolutionProxyIfNecessary(descriptor, beanName);
    }

    @Override
    public Class<?> getLazyResolutionProxyClass(final DependencyDescriptor descriptor, final String beanName)
    {
        return delegate.getLazyResolutionProxyClass(descriptor, beanName);
    }

    @Override
    public AutowireCandidateResolver cloneIfNecessary()
    {
        return new XioClientAutowireCandidateResolver(delegate.cloneIfNecessary(), beanFactory, proxies);
    }
}
