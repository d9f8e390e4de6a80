package io.xio.spring.method;

import io.xio.annotation.XioMethod;
import org.jspecify.annotations.Nullable;
import org.springframework.core.GenericTypeResolver;
import org.springframework.format.datetime.standard.DurationFormatterUtils;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;

/**
 * One method of a service interface as both sides see it: its wire name (from {@link XioMethod#name()} or the
 * method's name and parameter types, so overloads differ), which parameters travel as data segments
 * ({@code byte[]}, {@code ByteBuffer}), how the result returns, and its call settings. Immutable.
 *
 * @param method the interface method
 * @param wireName name on the wire
 * @param parameterTypes generic parameter types
 * @param segments which parameters are data segments
 * @param returnKind plain, future or void
 * @param resultType the result's generic type (unwrapped from {@code CompletableFuture})
 * @param timeout the method's deadline, or null for the client's
 * @param oneWay sent as a one-way message
 * @param receipt with {@code oneWay}: wait for the server's receipt
 * @param idempotent may run twice without harm, so a call whose connection or server went away may be tried again
 */
public record ServiceMethod(Method method, String wireName, Type[] parameterTypes, boolean[] segments,
    ReturnKind returnKind, Type resultType, @Nullable Duration timeout, boolean oneWay, boolean receipt,
    boolean idempotent)
{
    /** How a result comes back to the caller. */
    public enum ReturnKind
    {
        PLAIN, FUTURE, VOID
    }

    /**
     * Describes {@code method} as a member of {@code api} (type variables of inherited generic interfaces are
     * resolved against it); a bad {@link XioMethod} setting fails with a message naming the method.
     */
    public static ServiceMethod of(final Method method, final Class<?> api)
    {
        final XioMethod settings = method.getAnnotation(XioMethod.class);
        final Type[] parameters = new Type[method.getParameterCount()];
        for (int i = 0; i < parameters.length; i++)
        {
            parameters[i] = GenericTypeResolver.resolveType(method.getGenericParameterTypes()[i], api);
        }
        final Type genericReturn = GenericTypeResolver.resolveType(method.getGenericReturnType(), api);
        final boolean[] segments = new boolean[parameters.length];
        final Class<?>[] raw = method.getParameterTypes();
        for (int i = 0; i < raw.length; i++)
        {
            segments[i] = isSegment(parameters[i]);
        }
        final Class<?> returns = method.getReturnType();
        final ReturnKind kind;
        final Type result;
        if (returns == void.class)
        {
            kind = ReturnKind.VOID;
            result = void.class;
        }
        else if (CompletionStage.class.isAssignableFrom(returns))
        {
            if (!returns.isAssignableFrom(CompletableFuture.class))
            {
                throw new IllegalArgumentException(method + " returns " + returns.getName() +
                    "; asynchronous methods return CompletableFuture or CompletionStage");
            }
            kind = ReturnKind.FUTURE;
            result = genericReturn instanceof ParameterizedType parameterized
                ? parameterized.getActualTypeArguments()[0] : Object.class;
        }
        else
        {
            kind = ReturnKind.PLAIN;
            result = genericReturn;
        }
        Duration timeout = null;
        boolean oneWay = false;
        boolean receipt = false;
        boolean idempotent = false;
        String name = method.getName() + "(" + Arrays.stream(raw).map(Class::getSimpleName)
            .collect(Collectors.joining(",")) + ")";
        if (settings != null)
        {
            if (!settings.timeout().isEmpty())
            {
                try
                {
                    // Spring's own duration styles: 250ms, 2s (a bare number is milliseconds) or ISO-8601 (PT2S).
                    timeout = DurationFormatterUtils.detectAndParse(settings.timeout());
                }
                catch (final IllegalArgumentException ex)
                {
                    throw new IllegalArgumentException("@XioMethod(timeout = \"" + settings.timeout() + "\") on " +
                        method + " is not a duration such as 250ms or 2s", ex);
                }
            }
            oneWay = settings.oneWay();
            receipt = settings.receipt();
            idempotent = settings.idempotent();
            if (oneWay && kind != ReturnKind.VOID)
            {
                throw new IllegalArgumentException("@XioMethod(oneWay = true) on " + method + " needs a void method");
            }
            if (receipt && !oneWay)
            {
                throw new IllegalArgumentException("@XioMethod(receipt = true) on " + method + " needs oneWay = true");
            }
            if (!settings.name().isEmpty())
            {
                name = settings.name();
            }
        }
        return new ServiceMethod(method, name, parameters, segments, kind, result, timeout, oneWay, receipt,
            idempotent);
    }

    /** Whether values of this type travel as a data segment, untouched by the codec. */
    public static boolean isSegment(final Type type)
    {
        return type == byte[].class || type instanceof Class<?> c && ByteBuffer.class.isAssignableFrom(c);
    }

    public boolean resultIsSegment()
    {
        return isSegment(resultType);
    }

    /** How callers see the method: {@code one-way}, or its return kind in lower case ({@code blocking}, ...). */
    public String kind()
    {
        return oneWay() ? "one-way" : returnKind().name().toLowerCase(java.util.Locale.ROOT);
    }
}
