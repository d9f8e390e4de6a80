package io.xio.spring.autoconfigure;

import io.xio.annotation.XioClient;
import io.xio.annotation.XioService;
import io.xio.annotation.XioServiceAdvice;
import io.xio.spring.autoconfigure.client.XioClientFactoryBean;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.core.type.classreading.MetadataReader;
import org.springframework.core.type.filter.AnnotationTypeFilter;
import org.springframework.util.ClassUtils;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;

/**
 * The bean definitions of xio components, shared by the auto-configuration's scan of the application's packages and
 * {@link ImportXioClients}: one {@link XioClientFactoryBean} definition per {@code @XioClient} interface, written
 * from the annotation alone (no property is read before run time, so AOT processing needs no client address).
 * Used on the thread that loads bean definitions.
 */
final class XioClientBeanDefinitions
{
    private XioClientBeanDefinitions()
    {
    }

    /**
     * Finds {@code @XioClient} interfaces and, with {@code services}, {@code @XioService}/advice classes whose
     * conditions ({@code @Profile}, {@code @Conditional}) match.
     */
    static Set<BeanDefinition> scan(final BeanDefinitionRegistry registry, final Environment environment,
        final String basePackage, final boolean services)
    {
        return new Scanner(registry, environment, services).findCandidateComponents(basePackage);
    }

    /**
     * Whether {@code client}, an interface listed by name rather than found by a scan, is to be registered: whether
     * its conditions match, as a scan would judge them. True for a class that is not an {@code @XioClient}
     * interface, so that {@link #registerClient} fails saying so.
     */
    static boolean conditionsMatch(final BeanDefinitionRegistry registry, final Environment environment,
        final Class<?> client)
    {
        if (!client.isInterface() || client.getAnnotation(XioClient.class) == null)
        {
            return true;
        }
        final Scanner scanner = new Scanner(registry, environment, false);
        try
        {
            return scanner.isCandidateComponent(scanner.getMetadataReaderFactory().getMetadataReader(
                client.getName()));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read " + client.getName() + " to evaluate its conditions", ex);
        }
    }

    /** The classpath scan of xio components, judging conditions against the registry being filled. */
    private static final class Scanner extends ClassPathScanningCandidateComponentProvider
    {
        private final BeanDefinitionRegistry registry;
        private final boolean services;

        Scanner(final BeanDefinitionRegistry registry, final Environment environment, final boolean services)
        {
            super(false, environment);
            this.registry = registry;
            this.services = services;
            if (services)
            {
                addIncludeFilter(new AnnotationTypeFilter(XioService.class));
                addIncludeFilter(new AnnotationTypeFilter(XioServiceAdvice.class));
            }
            addIncludeFilter(new AnnotationTypeFilter(XioClient.class, true, true));
        }

        @Override
        protected BeanDefinitionRegistry getRegistry()
        {
            return registry;
        }

        // Redeclared so that conditionsMatch may judge one class by the scan's filters and conditions.
        @Override
        protected boolean isCandidateComponent(final MetadataReader reader) throws IOException
        {
            return super.isCandidateComponent(reader);
        }

        @Override
        protected boolean isCandidateComponent(final AnnotatedBeanDefinition definition)
        {
            final AnnotationMetadata type = definition.getMetadata();
            return type.isIndependent() && (type.isInterface() ? type.hasAnnotation(XioClient.class.getName())
                : services && type.isConcrete() && (type.hasAnnotation(XioService.class.getName()) ||
                    type.hasAnnotation(XioServiceAdvice.class.getName())));
        }
    }

    /**
     * Registers the client bean of {@code api} under its short name, unless the application or an earlier import
     * already registered a bean of that type.
     */
    static void registerClient(final BeanDefinitionRegistry registry, final Class<?> api)
    {
        final XioClient client = api.getAnnotation(XioClient.class);
        if (!api.isInterface() || client == null)
        {
            throw new IllegalStateException("cannot register " + api.getName() + " as an xio client: only an " +
                "interface annotated @XioClient can be");
        }
        XioClientFactoryBean.checkName(api, client.value());
        if (isRegisteredByType(registry, api.getName()))
        {
            return;
        }
        final RootBeanDefinition definition = new RootBeanDefinition(XioClientFactoryBean.class);
        // Never lazy, not even under spring.main.lazy-initialization: a client without an address fails start-up.
        definition.setLazyInit(false);
        // The product's type without creating the factory: what type matching and AOT processing read.
        definition.setTargetType(ResolvableType.forClassWithGenerics(XioClientFactoryBean.class, api));
        definition.setAttribute(FactoryBean.OBJECT_TYPE_ATTRIBUTE, api);
        definition.getConstructorArgumentValues().addIndexedArgumentValue(0, api);
        definition.getConstructorArgumentValues().addIndexedArgumentValue(1, client.value());
        definition.getConstructorArgumentValues().addIndexedArgumentValue(2, client.uri());
        register(registry, api.getName(), beanName(api), definition);
    }

    /** Registers a scanned or built definition, failing when its name is another bean's. */
    static void register(final BeanDefinitionRegistry registry, final String className, final String beanName,
        final BeanDefinition definition)
    {
        if (registry.containsBeanDefinition(beanName))
        {
            throw new IllegalStateException("cannot register " + className + " as bean '" + beanName +
                "': another bean has that name; rename one of them");
        }
        registry.registerBeanDefinition(beanName, definition);
    }

    static String beanName(final Class<?> type)
    {
        return ClassUtils.getShortNameAsProperty(type);
    }

    /** Whether a bean of the class is registered already: by the application itself or as an xio client. */
    static boolean isRegisteredByType(final BeanDefinitionRegistry registry, final String className)
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
            if (definition.getAttribute(FactoryBean.OBJECT_TYPE_ATTRIBUTE) instanceof Class<?> product &&
                className.equals(product.getName()))
            {
                return true;
            }
        }
        return false;
    }
}
