package io.xio.spring.autoconfigure;

import io.xio.annotation.XioClient;
import io.xio.annotation.XioService;
import io.xio.annotation.XioServiceAdvice;
import io.xio.spring.autoconfigure.client.XioClientConfigurationException;
import io.xio.spring.autoconfigure.client.XioClientFactoryBean;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionBuilder;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.core.type.filter.AnnotationTypeFilter;
import org.springframework.util.ClassUtils;

import java.util.List;
import java.util.Map;

/**
 * Registers, from the application's packages, every {@code @XioService} and {@code @XioServiceAdvice} class as a
 * bean and a client proxy bean for every {@code @XioClient} interface, so all work with plain constructor
 * injection.
 */
class XioComponentsRegistrar implements ImportBeanDefinitionRegistrar, BeanFactoryAware, EnvironmentAware,
    org.springframework.beans.factory.BeanClassLoaderAware
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
        final List<String> packages = AutoConfigurationPackages.get(beanFactory);
        final ClassPathScanningCandidateComponentProvider scanner =
            new ClassPathScanningCandidateComponentProvider(false, environment)
            {
                @Override
                protected boolean isCandidateComponent(final AnnotatedBeanDefinition definition)
                {
                    final AnnotationMetadata type = definition.getMetadata();
                    return type.isIndependent() && (type.isInterface() ? type.hasAnnotation(XioClient.class.getName())
                        : type.isConcrete() && (type.hasAnnotation(XioService.class.getName()) ||
                            type.hasAnnotation(XioServiceAdvice.class.getName())));
                }
            };
        scanner.addIncludeFilter(new AnnotationTypeFilter(XioService.class));
        scanner.addIncludeFilter(new AnnotationTypeFilter(XioServiceAdvice.class));
        scanner.addIncludeFilter(new AnnotationTypeFilter(XioClient.class, true, true));
        for (final String base : packages)
        {
            for (final BeanDefinition candidate : scanner.findCandidateComponents(base))
            {
                final String className = candidate.getBeanClassName();
                final AnnotationMetadata type = ((AnnotatedBeanDefinition)candidate).getMetadata();
                final String beanName = ClassUtils.getShortNameAsProperty(ClassUtils.resolveClassName(className,
                    classLoader));
                if (isRegisteredByType(registry, className))
                {
                    continue; // the application declared it itself
                }
                if (registry.containsBeanDefinition(beanName))
                {
                    throw new IllegalStateException("cannot register " + className + " as bean '" + beanName +
                        "': another bean has that name; rename one of them");
                }
                if (type.isInterface())
                {
                    final Map<String, Object> client = type.getAnnotationAttributes(XioClient.class.getName());
                    final Class<?> api = ClassUtils.resolveClassName(className, classLoader);
                    final String clientName = (String)client.get("value");
                    final String prefix = "xio.clients." + clientName;
                    final boolean uri = environment.containsProperty(prefix + ".uri");
                    final boolean service = environment.containsProperty(prefix + ".service-id");
                    if (((String)client.get("uri")).isEmpty() && (clientName.isEmpty() || !uri && !service))
                    {
                        throw new XioClientConfigurationException(api, clientName);
                    }
                    if (uri && service)
                    {
                        throw new XioClientConfigurationException(api, clientName, "sets both " + prefix + ".uri " +
                            "and " + prefix + ".service-id; a client calls one address or one service");
                    }
                    registry.registerBeanDefinition(beanName, BeanDefinitionBuilder
                        .genericBeanDefinition(XioClientFactoryBean.class)
                        .addConstructorArgValue(api)
                        .addConstructorArgValue(client.get("value"))
                        .addConstructorArgValue(client.get("uri"))
                        .setLazyInit(true)
                        .getBeanDefinition());
                    registry.getBeanDefinition(beanName).setAttribute(
                        org.springframework.beans.factory.FactoryBean.OBJECT_TYPE_ATTRIBUTE, api);
                }
                else
                {
                    registry.registerBeanDefinition(beanName, candidate);
                }
            }
        }
    }

    private static boolean isRegisteredByType(final BeanDefinitionRegistry registry, final String className)
    {
        for (final String name : registry.getBeanDefinitionNames())
        {
            final BeanDefinition definition = registry.getBeanDefinition(name);
            if (className.equals(definition.getBeanClassName()))
            {
                return true;
            }
            // A @Bean method: its declared return type names the class.
            if (definition instanceof AnnotatedBeanDefinition annotated &&
                annotated.getFactoryMethodMetadata() != null &&
                className.equals(annotated.getFactoryMethodMetadata().getReturnTypeName()))
            {
                return true;
            }
        }
        return false;
    }
}
