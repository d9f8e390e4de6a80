package io.xio.spring.autoconfigure;

import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.annotation.AnnotationAttributes;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

import java.util.LinkedHashSet;
import java.util.Set;

/** Registers the client beans {@link ImportXioClients} names; reads no property, as the scan's registrar. */
class XioClientsImportRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanClassLoaderAware
{
    private Environment environment;
    private ClassLoader classLoader = getClass().getClassLoader();

    @Override
    public void setEnvironment(final Environment environment)
    {
        this.environment = environment;
    }

    @Override
    public void setBeanClassLoader(final ClassLoader loader)
    {
        this.classLoader = loader;
    }

    @Override
    public void registerBeanDefinitions(final AnnotationMetadata metadata, final BeanDefinitionRegistry registry)
    {
        final AnnotationAttributes attributes = AnnotationAttributes.fromMap(
            metadata.getAnnotationAttributes(ImportXioClients.class.getName()));
        final Set<String> packages = new LinkedHashSet<>();
        packages.addAll(Set.of(attributes.getStringArray("value")));
        packages.addAll(Set.of(attributes.getStringArray("basePackages")));
        for (final Class<?> type : attributes.getClassArray("basePackageClasses"))
        {
            packages.add(ClassUtils.getPackageName(type));
        }
        final Class<?>[] clients = attributes.getClassArray("clients");
        if (packages.isEmpty() && clients.length == 0)
        {
            packages.add(ClassUtils.getPackageName(metadata.getClassName()));
        }
        for (final Class<?> client : clients)
        {
            XioClientBeanDefinitions.registerClient(registry, client);
        }
        for (final String base : packages)
        {
            for (final BeanDefinition candidate : XioClientBeanDefinitions.scan(environment, base, false))
            {
                XioClientBeanDefinitions.registerClient(registry,
                    ClassUtils.resolveClassName(candidate.getBeanClassName(), classLoader));
            }
        }
    }
}
