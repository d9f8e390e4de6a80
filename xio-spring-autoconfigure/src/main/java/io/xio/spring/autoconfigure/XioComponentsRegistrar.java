package io.xio.spring.autoconfigure;

import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * Registers, from the application's packages (those of {@code @SpringBootApplication} or
 * {@code @AutoConfigurationPackage}), every {@code @XioService} and {@code @XioServiceAdvice} class as a bean and a
 * client bean for every {@code @XioClient} interface, so all work with plain constructor injection. Client
 * interfaces elsewhere come in through {@link ImportXioClients}. Reads no property: a client's settings are bound
 * when its bean is created.
 */
class XioComponentsRegistrar implements ImportBeanDefinitionRegistrar, BeanFactoryAware, EnvironmentAware,
    BeanClassLoaderAware
{
    private BeanFactory beanFactory;
    private Environment environment;
    private ClassLoader classLoader = getClass().getClassLoader();

    @Override
    public void setBeanClassLoader(final ClassLoader loader)
    {
        this.classLoader = loader;
    }

    @Override
    public void setBeanFactory(final BeanFactory beanFactory)
    {
        this.beanFactory = beanFactory;
    }

    @Override
    public void setEnvironment(final Environment environment)
    {
        this.environment = environment;
    }

    @Override
    public void registerBeanDefinitions(final AnnotationMetadata metadata, final BeanDefinitionRegistry registry)
    {
        if (!AutoConfigurationPackages.has(beanFactory))
        {
            return;
        }
        for (final String base : AutoConfigurationPackages.get(beanFactory))
        {
            for (final BeanDefinition candidate : XioClientBeanDefinitions.scan(registry, environment, base,
                true))
            {
                final String className = candidate.getBeanClassName();
                final Class<?> type = ClassUtils.resolveClassName(className, classLoader);
                if (((AnnotatedBeanDefinition)candidate).getMetadata().isInterface())
                {
                    XioClientBeanDefinitions.registerClient(registry, type);
                }
                else if (!XioClientBeanDefinitions.isRegisteredByType(registry, className))
                {
                    XioClientBeanDefinitions.register(registry, className, XioClientBeanDefinitions.beanName(type),
                        candidate);
                }
            }
        }
    }
}
