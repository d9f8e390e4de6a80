package io.xio.spring.autoconfigure.service;

import io.xio.annotation.XioExceptionHandler;
import io.xio.annotation.XioServiceAdvice;
import io.xio.spring.autoconfigure.error.XioError;
import io.xio.spring.autoconfigure.error.XioErrorCode;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.ExceptionDepthComparator;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.util.ReflectionUtils;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link XioExceptionHandler} methods that apply to one service, the service's own first, then those of the
 * {@link XioServiceAdvice} beans advising it in their order: maps an exception a service method threw to the
 * error its caller gets, as Spring MVC's {@code @ExceptionHandler} and {@code @ControllerAdvice} do. The first
 * bean with a handler for the exception's type or a supertype answers, with its handler for the nearest one.
 * Built at start-up, where a malformed handler fails naming itself; thread-safe (used by whichever thread answers
 * a call, on a failure only).
 */
public final class XioExceptionHandlers
{
    /** No handlers: every failure is answered unmapped. */
    public static final XioExceptionHandlers NONE = new XioExceptionHandlers(List.of());

    /**
     * What a failure is answered with.
     *
     * @param type the class name the caller is told
     * @param error the code and message
     */
    public record Answer(String type, XioError error)
    {
    }

    private final List<BeanHandlers> beans;
    /** The handler chosen for each exception class met so far, empty when none applies. */
    private final Map<Class<?>, Optional<Handler>> chosen = new ConcurrentHashMap<>();

    private XioExceptionHandlers(final List<BeanHandlers> beans)
    {
        this.beans = beans;
    }

    /**
     * The handlers of the service exported as {@code resource} (the bean {@code service}, exporting {@code api}),
     * then those of the {@code advices} that advise it, ordered by {@code @Order}.
     */
    public static XioExceptionHandlers of(final Object service, final String resource, final Class<?> api,
        final List<Object> advices)
    {
        final List<BeanHandlers> beans = new ArrayList<>();
        final Class<?> serviceType = AopUtils.getTargetClass(service);
        add(beans, service);
        final List<Object> ordered = new ArrayList<>(advices);
        AnnotationAwareOrderComparator.sort(ordered);
        for (final Object advice : ordered)
        {
            final XioServiceAdvice scope = AnnotatedElementUtils.findMergedAnnotation(AopUtils.getTargetClass(advice),
                XioServiceAdvice.class);
            if (scope != null && advises(scope, resource, serviceType, api))
            {
                add(beans, advice);
            }
        }
        return beans.isEmpty() ? NONE : new XioExceptionHandlers(List.copyOf(beans));
    }

    /** A failure with no handler: its own type and message, with {@code code}. */
    public static Answer unmapped(final Throwable failure, final XioErrorCode code)
    {
        return new Answer(failure.getClass().getName(), XioError.of(code, failure.getMessage()));
    }

    /**
     * What a failure thrown by the service's method is answered with: its handler's error, else (no handler, or
     * it returned null) the failure unmapped with UNKNOWN; a handler that throws answers with what it threw,
     * unmapped.
     */
    public Answer answer(final Throwable failure)
    {
        final Class<?> type = failure.getClass();
        Optional<Handler> handler = chosen.get(type);
        if (handler == null)
        {
            handler = chosen.computeIfAbsent(type, this::choose);
        }
        return handler.isPresent() ? handler.get().answer(failure) : unmapped(failure, XioErrorCode.UNKNOWN);
    }

    private Optional<Handler> choose(final Class<?> thrown)
    {
        for (final BeanHandlers bean : beans)
        {
            final Handler handler = bean.nearest(thrown);
            if (handler != null)
            {
                return Optional.of(handler);
            }
        }
        return Optional.empty();
    }

    private static boolean advises(final XioServiceAdvice scope, final String resource, final Class<?> serviceType,
        final Class<?> api)
    {
        if (scope.services().length == 0 && scope.assignableTypes().length == 0)
        {
            return true;
        }
        return Arrays.asList(scope.services()).contains(resource) || Arrays.stream(scope.assignableTypes())
            .anyMatch(type -> type.isAssignableFrom(serviceType) || type.isAssignableFrom(api));
    }

    private static void add(final List<BeanHandlers> beans, final Object bean)
    {
        final Class<?> type = AopUtils.getTargetClass(bean);
        final Map<Method, XioExceptionHandler> methods = MethodIntrospector.selectMethods(type,
            (MethodIntrospector.MetadataLookup<XioExceptionHandler>)method ->
                AnnotatedElementUtils.findMergedAnnotation(method, XioExceptionHandler.class));
        if (methods.isEmpty())
        {
            return;
        }
        final Map<Class<? extends Throwable>, Handler> byType = new LinkedHashMap<>();
        for (final Map.Entry<Method, XioExceptionHandler> entry : methods.entrySet())
        {
            final Method method = entry.getKey();
            for (final Class<? extends Throwable> handled : handledTypes(method, entry.getValue()))
            {
                final Handler handler = new Handler(bean, AopUtils.selectInvocableMethod(method, bean.getClass()));
                final Handler before = byType.put(handled, handler);
                if (before != null)
                {
                    throw new IllegalStateException("@XioExceptionHandler methods " + before.method + " and " +
                        method + " both handle " + handled.getName() + "; keep one");
                }
            }
        }
        beans.add(new BeanHandlers(byType));
    }

    @SuppressWarnings("unchecked")
    private static List<Class<? extends Throwable>> handledTypes(final Method method,
        final XioExceptionHandler settings)
    {
        if (!XioError.class.isAssignableFrom(method.getReturnType()))
        {
            throw new IllegalStateException("@XioExceptionHandler " + method + " must return " +
                XioError.class.getName());
        }
        final Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length > 1 || parameters.length == 1 && !Throwable.class.isAssignableFrom(parameters[0]))
        {
            throw new IllegalStateException("@XioExceptionHandler " + method + " may take no parameter or the " +
                "exception it handles");
        }
        final List<Class<? extends Throwable>> handled = settings.value().length > 0
            ? List.of(settings.value())
            : parameters.length == 1 ? List.of((Class<? extends Throwable>)parameters[0]) : List.of();
        if (handled.isEmpty())
        {
            throw new IllegalStateException("@XioExceptionHandler " + method + " names no exception type: name " +
                "them on the annotation or take the exception as its parameter");
        }
        for (final Class<? extends Throwable> type : handled)
        {
            if (parameters.length == 1 && !parameters[0].isAssignableFrom(type))
            {
                throw new IllegalStateException("@XioExceptionHandler " + method + " handles " + type.getName() +
                    ", which its parameter cannot take");
            }
        }
        return handled;
    }

    /** One bean's handlers by the exception type each handles. */
    private record BeanHandlers(Map<Class<? extends Throwable>, Handler> byType)
    {
        /** The handler for the nearest supertype of {@code thrown} (itself included), or null. */
        Handler nearest(final Class<?> thrown)
        {
            final List<Class<? extends Throwable>> matches = new ArrayList<>();
            for (final Class<? extends Throwable> type : byType.keySet())
            {
                if (type.isAssignableFrom(thrown))
                {
                    matches.add(type);
                }
            }
            if (matches.isEmpty())
            {
                return null;
            }
            @SuppressWarnings("unchecked")
            final Class<? extends Throwable> exact = (Class<? extends Throwable>)thrown;
            matches.sort(new ExceptionDepthComparator(exact));
            return byType.get(matches.get(0));
        }
    }

    /** One handler method on its bean. */
    private static final class Handler
    {
        private final Object bean;
        private final Method method;

        Handler(final Object bean, final Method method)
        {
            ReflectionUtils.makeAccessible(method);
            this.bean = bean;
            this.method = method;
        }

        Answer answer(final Throwable failure)
        {
            final Object error;
            try
            {
                error = method.getParameterCount() == 0 ? method.invoke(bean) : method.invoke(bean, failure);
            }
            catch (final InvocationTargetException ex)
            {
                return unmapped(ex.getCause(), XioErrorCode.UNKNOWN); // declined, or answered with another type
            }
            catch (final IllegalAccessException ex)
            {
                throw new IllegalStateException(ex);
            }
            return error == null ? unmapped(failure, XioErrorCode.UNKNOWN)
                : new Answer(failure.getClass().getName(), (XioError)error);
        }
    }
}
