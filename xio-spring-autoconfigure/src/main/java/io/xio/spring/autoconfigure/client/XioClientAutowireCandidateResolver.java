package io.xio.spring.autoconfigure.client;

import io.xio.annotation.XioClient;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.XioProperties;
import io.xio.spring.autoconfigure.codec.XioCodec;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.DependencyDescriptor;
import org.springframework.context.annotation.ContextAnnotationAutowireCandidateResolver;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Supplies a client proxy wherever a dependency of an interface type is annotated {@code @XioClient}: a
 * constructor or method parameter, or an {@code @Autowired} field. Other dependencies resolve as usual.
 */
final class XioClientAutowireCandidateResolver extends ContextAnnotationAutowireCandidateResolver
{
    private final Map<String, Object> proxies = new ConcurrentHashMap<>();

    @Override
    public Object getSuggestedValue(final DependencyDescriptor descriptor)
    {
        final XioClient client = descriptor.getAnnotation(XioClient.class);
        if (client == null || !descriptor.getDependencyType().isInterface())
        {
            return super.getSuggestedValue(descriptor);
        }
        final Class<?> api = descriptor.getDependencyType();
        final BeanFactory factory = getBeanFactory();
        return proxies.computeIfAbsent(api.getName() + "|" + client.value() + "|" + client.uri(), key ->
            XioClientFactoryBean.create(api, client.value(), client.uri(), factory.getBean(XioEngine.class),
                factory.getBean(XioCodec.class), factory.getBean(XioProperties.class)));
    }
}
