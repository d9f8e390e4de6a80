package io.xio.spring.autoconfigure.client;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/** Wraps the bean factory's autowire candidate resolver in {@link XioClientAutowireCandidateResolver}. */
public final class XioClientResolverInstaller implements BeanFactoryPostProcessor, org.springframework.core.Ordered
{
    @Override
    public void postProcessBeanFactory(final ConfigurableListableBeanFactory beanFactory) throws BeansException
    {
        if (beanFactory instanceof DefaultListableBeanFactory listable &&
            !(listable.getAutowireCandidateResolver() instanceof XioClientAutowireCandidateResolver))
        {
            listable.setAutowireCandidateResolver(
                new XioClientAutowireCandidateResolver(listable.getAutowireCandidateResolver(), listable));
        }
    }

    /** After the application's own resolver set-up (e.g. CustomAutowireConfigurer), so that it is kept. */
    @Override
    public int getOrder()
    {
        return org.springframework.core.Ordered.LOWEST_PRECEDENCE;
    }

    /** The installed resolver of {@code beanFactory}, or null when there is none. */
    static XioClientAutowireCandidateResolver installed(final Object beanFactory)
    {
        return beanFactory instanceof DefaultListableBeanFactory listable &&
            listable.getAutowireCandidateResolver() instanceof XioClientAutowireCandidateResolver resolver
            ? resolver : null;
    }
}
