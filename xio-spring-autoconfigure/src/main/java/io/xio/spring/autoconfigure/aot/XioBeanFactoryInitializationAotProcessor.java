package io.xio.spring.autoconfigure.aot;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import io.xio.annotation.XioClient;
import io.xio.annotation.XioExceptionHandler;
import io.xio.annotation.XioService;
import io.xio.annotation.XioServiceAdvice;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.service.XioServiceExporter;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeHint;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The runtime hints xio needs for an application's own types, found ahead of time from its bean definitions:
 * a JDK proxy for every {@code @XioClient} interface (the client bean's type, whether the bean is a factory bean
 * or a definition with the interface as target type), reflection on the methods of the interfaces that clients
 * call and {@code @XioService} beans export, Jackson binding for those methods' parameter and result types (and
 * for what they reach: array element types at any depth, generic arrays included, in signatures and properties
 * alike, {@code @JsonSubTypes} and the permitted subclasses of sealed types), the
 * {@code (String)} constructors of the exceptions client methods declare (a client rebuilds them), and the
 * {@code @XioExceptionHandler} methods of services and advices. Registered in {@code META-INF/spring/aot.factories};
 * runs on the build's thread during AOT processing, never in the application.
 */
class XioBeanFactoryInitializationAotProcessor implements BeanFactoryInitializationAotProcessor
{
    private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

    @Override
    public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(
        final ConfigurableListableBeanFactory beanFactory)
    {
        final Set<Class<?>> clients = new LinkedHashSet<>();
        final Set<Class<?>> services = new LinkedHashSet<>();
        final Set<Class<?>> advices = new LinkedHashSet<>();
        for (final String name : beanFactory.getBeanDefinitionNames())
        {
            // The type without creating anything: a client factory bean's object type comes from its definition.
            final Class<?> type = beanFactory.getType(name, false);
            if (type == null)
            {
                continue;
            }
            final Class<?> user = ClassUtils.getUserClass(type);
            if (user.isInterface() && AnnotatedElementUtils.hasAnnotation(user, XioClient.class))
            {
                clients.add(user);
            }
            else if (AnnotatedElementUtils.hasAnnotation(user, XioService.class))
            {
                services.add(user);
            }
            else if (AnnotatedElementUtils.hasAnnotation(user, XioServiceAdvice.class))
            {
                advices.add(user);
            }
        }
        if (clients.isEmpty() && services.isEmpty() && advices.isEmpty())
        {
            return null;
        }
        return (generationContext, code) ->
        {
            final RuntimeHints hints = generationContext.getRuntimeHints();
            clients.forEach(client -> client(hints, client));
            services.forEach(service -> service(hints, service));
            advices.forEach(advice -> exceptionHandlers(hints, advice));
        };
    }

    private void client(final RuntimeHints hints, final Class<?> api)
    {
        // The proxy implements the interface alone (XioClientProxies).
        hints.proxies().registerJdkProxy(api);
        methods(hints, api);
        for (final Method method : api.getMethods())
        {
            for (final Class<?> declared : method.getExceptionTypes())
            {
                hints.reflection().registerType(declared, MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
            }
        }
    }

    private void service(final RuntimeHints hints, final Class<?> type)
    {
        methods(hints, XioServiceExporter.exportedInterface(type,
            AnnotatedElementUtils.findMergedAnnotation(type, XioService.class)));
        exceptionHandlers(hints, type);
    }

    /** The interface's methods, invoked on a service and read on both sides, and the types the codec binds. */
    private void methods(final RuntimeHints hints, final Class<?> api)
    {
        hints.reflection().registerType(api, MemberCategory.INVOKE_PUBLIC_METHODS);
        for (final Method method : api.getMethods())
        {
            if (method.isDefault() || Modifier.isStatic(method.getModifiers()))
            {
                continue;
            }
            final ServiceMethod described = ServiceMethod.of(method, api);
            for (final Type parameter : described.parameterTypes())
            {
                bind(hints, parameter);
            }
            bind(hints, described.resultType());
        }
    }

    private void bind(final RuntimeHints hints, final Type type)
    {
        if (type == void.class || ServiceMethod.isSegment(type))
        {
            return;
        }
        // Spring's registrar follows generics and bean properties but neither into arrays nor to subtypes; what it
        // registers on a scratch copy shows where it stopped, and each type found there is bound in turn.
        final ReflectionHints scratch = new ReflectionHints();
        final Set<String> seen = new HashSet<>();
        final Deque<Type> pending = new ArrayDeque<>(List.of(type));
        while (!pending.isEmpty())
        {
            final Type next = pending.poll();
            if (!seen.add(next.getTypeName()))
            {
                continue;
            }
            if (next instanceof final Class<?> c && c.isArray())
            {
                pending.add(c.getComponentType());
            }
            else if (next instanceof final GenericArrayType array)
            {
                pending.add(array.getGenericComponentType());
            }
            else if (next instanceof final WildcardType wildcard)
            {
                pending.addAll(List.of(wildcard.getUpperBounds()));
                pending.addAll(List.of(wildcard.getLowerBounds()));
            }
            else if (next instanceof Class<?> || next instanceof ParameterizedType)
            {
                if (next instanceof final ParameterizedType parameterized)
                {
                    pending.addAll(List.of(parameterized.getActualTypeArguments()));
                }
                else
                {
                    subTypes((Class<?>)next, pending);
                }
                bindings.registerReflectionHints(hints.reflection(), next);
                bindings.registerReflectionHints(scratch, next);
                scratch.typeHints().map(TypeHint::getType).map(reference -> load(reference.getName(), type))
                    .filter(found -> found != null && !seen.contains(found.getTypeName()))
                    .forEach(pending::add);
            }
        }
    }

    /** The subtypes Jackson may meet where {@code type} is declared. */
    private static void subTypes(final Class<?> type, final Deque<Type> pending)
    {
        final JsonSubTypes subTypes = type.getAnnotation(JsonSubTypes.class);
        if (subTypes != null)
        {
            for (final JsonSubTypes.Type subType : subTypes.value())
            {
                pending.add(subType.value());
            }
        }
        if (type.isSealed())
        {
            pending.addAll(List.of(type.getPermittedSubclasses()));
        }
    }

    private static @Nullable Class<?> load(final String name, final Type root)
    {
        final ClassLoader loader = root instanceof final Class<?> c && c.getClassLoader() != null ?
            c.getClassLoader() : XioBeanFactoryInitializationAotProcessor.class.getClassLoader();
        try
        {
            return ClassUtils.forName(name, loader);
        }
        catch (final ClassNotFoundException | LinkageError ex)
        {
            return null;
        }
    }

    private static void exceptionHandlers(final RuntimeHints hints, final Class<?> type)
    {
        MethodIntrospector.selectMethods(type, (MethodIntrospector.MetadataLookup<XioExceptionHandler>)method ->
            AnnotatedElementUtils.findMergedAnnotation(method, XioExceptionHandler.class))
            .keySet().forEach(method -> hints.reflection().registerMethod(method, ExecutableMode.INVOKE));
    }
}
