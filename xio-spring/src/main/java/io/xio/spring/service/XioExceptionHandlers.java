package io.xio.spring.service;

import io.xio.annotation.XioExceptionHandler;
import io.xio.annotation.XioServiceAdvice;
import io.xio.spring.error.XioError;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.error.XioErrorDisclosure;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link XioExceptionHandler} methods that apply to one service, the service's own first, then those of the
 * {@link XioServiceAdvice} beans advising it in their order: maps an exception a service method threw to the
 * error its caller gets, as Spring MVC's {@code @ExceptionHandler} and {@code @ControllerAdvice} do. The first
 * bean with a handler for the exception's type or a supertype answers, with its handler for the nearest one; Spring
 * Security's refusals only by a handler for the refusal's own type (or a subtype), not by a catch-all.
 * A handler's answer carries the exception's class name only when the method declares it (or
 * {@code include-exception} is on). A failure nobody chose to expose (no handler answered, and the called method
 * does not declare its type; {@code throws Exception} declares none) goes out as its {@link XioErrorDisclosure}
 * allows, by default with a generic message and an error id that the server's log line for it, with the stack
 * trace, also carries.
 * Built at start-up, where a malformed handler fails naming itself; thread-safe (used by whichever thread answers
 * a call, on a failure only).
 */
public final class XioExceptionHandlers
{
    private static final Logger LOG = LoggerFactory.getLogger(XioExceptionHandlers.class);
    private static final Set<String> SECURITY_REFUSALS = Set.of(
        "org.springframework.security.access.AccessDeniedException",
        "org.springframework.security.core.AuthenticationException");

    /** No handlers: a failure is answered as declared, or hidden. */
    public static final XioExceptionHandlers NONE = new XioExceptionHandlers("?", List.of(),
        XioErrorDisclosure.HIDDEN);

    /**
     * What a failure is answered with.
     *
     * @param type the class name the caller is told
     * @param error the code and message
     */
    public record Answer(String type, XioError error)
    {
    }

    /** How often an undecodable call is logged at most. */
    static final long UNDECODABLE_LOG_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final String resource;
    private final AtomicLong lastUndecodable = new AtomicLong(System.nanoTime() - UNDECODABLE_LOG_NANOS);
    private final List<BeanHandlers> beans;
    private final XioErrorDisclosure disclosure;
    /** The handler chosen for each exception class met so far, empty when none applies. */
    private final Map<Class<?>, Optional<Handler>> chosen = new ConcurrentHashMap<>();

    private XioExceptionHandlers(final String resource, final List<BeanHandlers> beans,
        final XioErrorDisclosure disclosure)
    {
        this.resource = resource;
        this.beans = beans;
        this.disclosure = disclosure;
    }

    /** As {@link #of(Object, String, Class, List, XioErrorDisclosure)}, hiding what nobody chose to expose. */
    public static XioExceptionHandlers of(final Object service, final String resource, final Class<?> api,
        final List<Object> advices)
    {
        return of(service, resource, api, advices, XioErrorDisclosure.HIDDEN);
    }

    /**
     * The handlers of the service exported as {@code resource} (the bean {@code service}, exporting {@code api}),
     * then those of the {@code advices} that advise it, ordered by {@code @Order}; what none answers and the
     * method does not declare goes out as {@code disclosure} allows.
     */
    public static XioExceptionHandlers of(final Object service, final String resource, final Class<?> api,
        final List<Object> advices, final XioErrorDisclosure disclosure)
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
        return new XioExceptionHandlers(resource, List.copyOf(beans), disclosure);
    }

    /**
     * A failure xio itself words for the caller (a refusal while shutting down, a method that does not exist): its
     * own type and message, with {@code code}. Not for exceptions whose text someone else wrote.
     */
    public static Answer unmapped(final Throwable failure, final XioErrorCode code)
    {
        return new Answer(failure.getClass().getName(), XioError.of(code, failure.getMessage()));
    }

    /** As {@link #answer(Throwable, Method)} when the method called is not known. */
    public Answer answer(final Throwable failure)
    {
        return answer(failure, null);
    }

    /**
     * What a failure thrown by the service's {@code method} (or an interceptor around it) is answered with: its
     * handler's error; else (no handler, it returned null, or it threw) the failure with UNKNOWN, with its type and
     * message when {@code method} declares its type, otherwise as the disclosure allows. An exactly-once call's
     * {@link ExactlyOnceCalls.AnsweredFailure} has its answer already.
     */
    public Answer answer(final Throwable failure, final @Nullable Method method)
    {
        if (failure instanceof ExactlyOnceCalls.AnsweredFailure answered)
        {
            return answered.answer(); // stored when it first happened, or xio's own words: given as it is
        }
        final Class<?> type = failure.getClass();
        Optional<Handler> handler = chosen.get(type);
        if (handler == null)
        {
            handler = chosen.computeIfAbsent(type, this::choose);
        }
        Throwable unanswered = failure;
        if (handler.isPresent())
        {
            final Object outcome = handler.get().invoke(failure);
            if (outcome instanceof XioError error)
            {
                // The handler chose the words; the class name is the method's to expose (or development's).
                return new Answer(disclosure.includeException() || declared(failure, method)
                    ? failure.getClass().getName() : XioErrorDisclosure.HIDDEN_TYPE, error);
            }
            unanswered = outcome instanceof Throwable thrown ? thrown : failure; // it declined, or threw another
        }
        return declared(unanswered, method) ? unmapped(unanswered, XioErrorCode.UNKNOWN)
            : undisclosed(unanswered, XioErrorCode.UNKNOWN, method);
    }

    /**
     * A failure of xio's own work on a call that nobody worded for the caller (its arguments could not be decoded,
     * its result could not be encoded): {@code code}, and only what the disclosure allows.
     */
    public Answer internal(final Throwable failure, final XioErrorCode code)
    {
        return undisclosed(failure, code, null);
    }

    /**
     * Whether {@code method} declares the failure's type: {@code throws Exception} (or {@code RuntimeException},
     * {@code Throwable}) says nothing about what the caller may see, so it declares nothing.
     */
    /**
     * A call whose arguments could not be decoded (or whose method name could not be read): the peer's input is
     * at fault, so INVALID_ARGUMENT with a fixed message; logged at WARN once per {@link #UNDECODABLE_LOG_NANOS}
     * at most, naming the exception's type only (its message may quote the peer's bytes), so that a peer sending
     * garbage in a loop does not flood the log.
     */
    public Answer undecodable(final Throwable failure)
    {
        final long now = System.nanoTime();
        final long last = lastUndecodable.get();
        if (now - last >= UNDECODABLE_LOG_NANOS && lastUndecodable.compareAndSet(last, now))
        {
            LOG.warn("a call to {} had arguments that could not be decoded ({}), answered {}; logged once a minute " +
                "at most", resource, failure.getClass().getName(), XioErrorCode.INVALID_ARGUMENT);
        }
        return new Answer(XioErrorDisclosure.HIDDEN_TYPE,
            XioError.of(XioErrorCode.INVALID_ARGUMENT, "the call's arguments could not be decoded"));
    }

    private static boolean declared(final Throwable failure, final @Nullable Method method)
    {
        if (method != null)
        {
            for (final Class<?> type : method.getExceptionTypes())
            {
                if (type != Exception.class && type != RuntimeException.class && type != Throwable.class &&
                    type.isInstance(failure))
                {
                    return true;
                }
            }
        }
        return false;
    }

    /** Logs the failure with its stack trace and an error id, and answers with what the disclosure allows. */
    private Answer undisclosed(final Throwable failure, final XioErrorCode code, final @Nullable Method method)
    {
        final String errorId = String.format("%010x", ThreadLocalRandom.current().nextLong() >>> 24); // 40 bits
        LOG.error("xio call to {}{} failed, error id {} ({})", resource, method == null ? "" : "." + method.getName(),
            errorId, code, failure);
        return new Answer(disclosure.includeException() ? failure.getClass().getName() : XioErrorDisclosure.HIDDEN_TYPE,
            XioError.of(code, disclosure.includeMessage() ? failure.getMessage()
                : XioErrorDisclosure.genericMessage(errorId)));
    }

    private Optional<Handler> choose(final Class<?> thrown)
    {
        final Class<?> floor = securityType(thrown);
        for (final BeanHandlers bean : beans)
        {
            final Handler handler = bean.nearest(thrown, floor);
            if (handler != null)
            {
                return Optional.of(handler);
            }
        }
        return Optional.empty();
    }

    /**
     * Spring Security's refusal type that {@code thrown} is (AccessDeniedException or AuthenticationException), or
     * null. Only a handler for that type or a subtype may answer such a refusal: an application's catch-all for
     * {@code Exception} would otherwise turn "access denied" into a plain failure. By name, as Spring Security is
     * optional.
     */
    private static @Nullable Class<?> securityType(final Class<?> thrown)
    {
        for (Class<?> type = thrown; type != null; type = type.getSuperclass())
        {
            if (SECURITY_REFUSALS.contains(type.getName()))
            {
                return type;
            }
        }
        return null;
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
        /**
         * The handler for the nearest supertype of {@code thrown} (itself included) that is {@code floor} or below
         * it (null: any), or null.
         */
        @Nullable Handler nearest(final Class<?> thrown, final @Nullable Class<?> floor)
        {
            final List<Class<? extends Throwable>> matches = new ArrayList<>();
            for (final Class<? extends Throwable> type : byType.keySet())
            {
                if (type.isAssignableFrom(thrown) && (floor == null || floor.isAssignableFrom(type)))
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

        /** The handler's error, null, or the exception it threw (declined, or answered with another type). */
        @Nullable Object invoke(final Throwable failure)
        {
            try
            {
                return method.getParameterCount() == 0 ? method.invoke(bean) : method.invoke(bean, failure);
            }
            catch (final InvocationTargetException ex)
            {
                return ex.getCause();
            }
            catch (final IllegalAccessException ex)
            {
                throw new IllegalStateException(ex);
            }
        }
    }
}
