package io.xio.spring.autoconfigure.client;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/** Installs {@link XioClientAutowireCandidateResolver}, so {@code @XioClient} works on injection points. */
public final class XioClientResolverInstaller implements BeanFactoryPostProcessor
{
    @Override
    public void postProcessBeanFactory(final ConfigurableListableBeanFactory beanFactory) throws BeansException
    {
        if (beanFactory instanceof DefaultListableBeanFactory listable &&
            !(listable.getAutowireCandidateResolver() instanceof XioClientAutowireCandidateResolver))
        {
            listable.setAutowireCandidateResolver(new XioClientAutowireCandidateResolver());
        }
    }
}
