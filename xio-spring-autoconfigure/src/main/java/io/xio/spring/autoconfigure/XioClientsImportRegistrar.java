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

/**
 * Registers the client beans {@link ImportXioClients} names, leaving out those whose conditions do not match, and
 * none when {@code xio.enabled} is false (the auto-configuration that the clients need is then left out). Reads no
 * other property, as the scan's registrar.
 */
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
        if (!environment.getProperty("xio.enabled", Boolean.class, true))
        {
            return;
        }
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
            if (XioClientBeanDefinitions.conditionsMatch(registry, environment, client))
            {
                XioClientBeanDefinitions.registerClient(registry, client);
            }
        }
        for (final String base : packages)
        {
            for (final BeanDefinition candidate : XioClientBeanDefinitions.scan(registry, environment, base, false))
            {
                XioClientBeanDefinitions.registerClient(registry,
                    ClassUtils.resolveClassName(candidate.getBeanClassName(), classLoader));
            }
        }
    }
}
