package io.xio.spring.autoconfigure.client;

import io.xio.annotation.XioClient;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ReflectionUtils;

/**
 * Fills fields annotated {@code @XioClient} (of an interface type) with client proxies, for beans that prefer
 * {@code @XioClient("kv") KvStore kv;} over a client interface of their own.
 */
public final class XioClientFieldInjector implements BeanPostProcessor
{
    private final BeanFactory beanFactory;

    public XioClientFieldInjector(final BeanFactory beanFactory)
    {
        this.beanFactory = beanFactory;
    }

    @Override
    public Object postProcessBeforeInitialization(final Object bean, final String beanName) throws BeansException
    {
        ReflectionUtils.doWithFields(bean.getClass(), field ->
        {
            final XioClient client = field.getAnnotation(XioClient.class);
            if (client == null)
            {
                return;
            }
            if (!field.getType().isInterface())
            {
                throw new BeanCreationException(beanName, "@XioClient field " + field + " must have an interface type");
            }
            final XioClientAutowireCandidateResolver shared = XioClientResolverInstaller.installed(beanFactory);
            final Object proxy = shared != null ? shared.proxy(field.getType(), client.value(), client.uri())
                : XioClientFactoryBean.create(field.getType(), client.value(), client.uri(), beanFactory);
            ReflectionUtils.makeAccessible(field);
            ReflectionUtils.setField(field, bean, proxy);
        });
        return bean;
    }
}
