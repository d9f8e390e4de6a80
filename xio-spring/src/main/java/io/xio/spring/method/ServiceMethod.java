package io.xio.spring.method;

import io.xio.annotation.XioMethod;
import org.jspecify.annotations.Nullable;
import org.springframework.core.GenericTypeResolver;
import org.springframework.core.KotlinDetector;
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
 * <p>A method is a <em>stream</em> when it returns a {@code Flux} or a {@code Publisher} (the server streams its
 * result), or takes one {@code Flux} or {@code Publisher} parameter (the client streams it; the method then returns a
 * {@code Flux} or {@code Publisher} for a bidirectional stream, or a {@code Mono} for one answer). A {@code Mono}
 * result without a streamed parameter is an ordinary call, answered later like a {@code CompletableFuture}. These
 * types are Reactor's ({@code reactor-core}, an optional dependency) and Reactive Streams'; they are recognised by
 * name, so an application without Reactor loads none of them.
 *
 * <p>In a Kotlin interface a {@code suspend} function is an ordinary call answered later, as a {@code Mono} is: its
 * parameters are its declared ones, without the {@code Continuation} the compiler adds, and its result is its declared
 * return type ({@code Unit} is no value). A kotlinx-coroutines {@code Flow} stands where a {@code Flux} does: as the
 * result, a stream of messages from the server; as a parameter, a stream from the client, the function then being
 * {@code suspend} (one answer) or returning a {@code Flow} (a bidirectional stream). These, too, are recognised by
 * name.
 *
 * @param method the interface method
 * @param wireName name on the wire
 * @param parameterTypes generic parameter types
 * @param segments which parameters are data segments
 * @param returnKind plain, future, void, stream or mono
 * @param resultType the result's generic type (unwrapped from {@code CompletableFuture}, {@code Mono}, or a stream's
 *                   {@code Flux} or {@code Publisher}: the type of one message)
 * @param timeout the method's deadline, or null for the client's
 * @param oneWay sent as a one-way message
 * @param receipt with {@code oneWay}: wait for the server's receipt
 * @param idempotent may run twice without harm, so a call whose connection or server went away may be tried again
 * @param streamParameter the index of the parameter the client streams, or -1
 * @param exactlyOnce runs once per call through the server's execution ledger, so a call whose connection or server
 *                    went away is tried again with its idempotency key
 * @param suspending a Kotlin {@code suspend} function: its last Java parameter, the {@code Continuation}, is not in
 *                   {@code parameterTypes}, and its {@code MONO} (or stream) result is its declared return type
 * @param returnsFlow it returns a kotlinx-coroutines {@code Flow} (suspending or not), which travels as a {@code Flux}
 *                    would
 */
public record ServiceMethod(Method method, String wireName, Type[] parameterTypes, boolean[] segments,
    ReturnKind returnKind, Type resultType, @Nullable Duration timeout, boolean oneWay, boolean receipt,
    boolean idempotent, int streamParameter, boolean exactlyOnce, boolean suspending, boolean returnsFlow)
{
    private static final String FLUX = "reactor.core.publisher.Flux";
    private static final String MONO = "reactor.core.publisher.Mono";
    private static final String PUBLISHER = "org.reactivestreams.Publisher";
    /** kotlinx-coroutines' cold stream: a {@code Flux} to xio. */
    private static final String FLOW = "kotlinx.coroutines.flow.Flow";
    private static final String UNIT = "kotlin.Unit";

    /** How a result comes back to the caller. */
    public enum ReturnKind
    {
        /** The value itself, the caller waiting for it. */
        PLAIN,
        /** A {@code CompletableFuture} or {@code CompletionStage} of it. */
        FUTURE,
        /** Nothing. */
        VOID,
        /** A {@code Flux} or {@code Publisher} of messages the server streams. */
        STREAM,
        /** A {@code Mono} of it: an ordinary call, or the one answer to a stream the client sends. */
        MONO
    }

    /**
     * Describes {@code method} as a member of {@code api} (type variables of inherited generic interfaces are
     * resolved against it); a bad {@link XioMethod} setting fails with a message naming the method.
     */
    public static ServiceMethod of(final Method method, final Class<?> api)
    {
        final XioMethod settings = method.getAnnotation(XioMethod.class);
        // Safe without Kotlin: the detector answers false when Kotlin is not on the class path. Only a Kotlin type's
        // method suspends (Spring asks only for a Continuation last, which a Java method may take as an argument).
        final boolean suspending = KotlinDetector.isKotlinType(method.getDeclaringClass()) &&
            KotlinDetector.isSuspendingFunction(method);
        final Type[] parameters = new Type[method.getParameterCount() - (suspending ? 1 : 0)];
        for (int i = 0; i < parameters.length; i++)
        {
            parameters[i] = GenericTypeResolver.resolveType(method.getGenericParameterTypes()[i], api);
        }
        final Type genericReturn = suspending ? suspendedResult(method, api)
            : GenericTypeResolver.resolveType(method.getGenericReturnType(), api);
        final boolean[] segments = new boolean[parameters.length];
        final Class<?>[] raw = Arrays.copyOf(method.getParameterTypes(), parameters.length);
        int streamParameter = -1;
        for (int i = 0; i < raw.length; i++)
        {
            segments[i] = isSegment(parameters[i]);
            if (raw[i].getName().equals(MONO) || raw[i] == java.util.concurrent.Flow.Publisher.class)
            {
                throw new IllegalArgumentException(method + " takes a " + raw[i].getSimpleName() + "; a method " +
                    "streams a Flux or Publisher parameter, and takes other values as they are");
            }
            if (raw[i].getName().equals(FLUX) || raw[i].getName().equals(PUBLISHER) || raw[i].getName().equals(FLOW))
            {
                if (streamParameter >= 0)
                {
                    throw new IllegalArgumentException(method + " takes two streams; a method streams one " +
                        "parameter at most");
                }
                streamParameter = i;
                parameters[i] = elementType(parameters[i], method);
            }
        }
        final Class<?> returns = suspending ? rawClass(genericReturn) : method.getReturnType();
        final ReturnKind kind;
        final Type result;
        final boolean returnsFlow = returns.getName().equals(FLOW);
        if (returns.getName().equals(FLUX) || returns.getName().equals(PUBLISHER) || returns.getName().equals(FLOW))
        {
            kind = ReturnKind.STREAM;
            result = elementType(genericReturn, method);
        }
        else if (suspending && (returns.getName().equals(MONO) || CompletionStage.class.isAssignableFrom(returns) ||
            returns == java.util.concurrent.Flow.Publisher.class))
        {
            throw new IllegalArgumentException(method + " suspends and returns a " + returns.getSimpleName() +
                "; a suspend function returns its value itself, or a Flow of messages");
        }
        else if (suspending)
        {
            // Answered later, as a Mono is: Unit is no value, as Void is.
            kind = ReturnKind.MONO;
            result = returns.getName().equals(UNIT) ? Void.class : genericReturn;
        }
        else if (returns.getName().equals(MONO))
        {
            kind = ReturnKind.MONO;
            result = elementType(genericReturn, method);
        }
        else if (returns == java.util.concurrent.Flow.Publisher.class)
        {
            throw new IllegalArgumentException(method + " returns a Flow.Publisher; a stream method returns a Flux " +
                "or a Reactive Streams Publisher");
        }
        else if (streamParameter >= 0)
        {
            throw new IllegalArgumentException(method + " streams a parameter and returns " + returns.getName() +
                "; a method that takes a Flux, Publisher or Flow returns a Flux or Publisher (or a Flow: a " +
                "bidirectional stream), or a Mono or suspends (one answer)");
        }
        else if (returns == void.class)
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
        boolean exactlyOnce = false;
        // A Flow parameter is named as a Flux is, so a Kotlin and a Java side of the same stream call each other.
        String name = method.getName() + "(" + Arrays.stream(raw).map(type -> type.getName().equals(FLOW) ? "Flux"
            : type.getSimpleName()).collect(Collectors.joining(",")) + ")";
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
            if ((oneWay || idempotent) && (kind == ReturnKind.STREAM || streamParameter >= 0))
            {
                throw new IllegalArgumentException("@XioMethod(" + (oneWay ? "oneWay" : "idempotent") +
                    " = true) on " + method + ", a stream; a stream is never one-way, and survives a connection " +
                    "loss without being sent again");
            }
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
            exactlyOnce = settings.exactlyOnce();
            if (exactlyOnce)
            {
                checkExactlyOnce(method, kind, streamParameter, oneWay, idempotent);
            }
        }
        return new ServiceMethod(method, name, parameters, segments, kind, result, timeout, oneWay, receipt,
            idempotent, streamParameter, exactlyOnce, suspending, returnsFlow);
    }

    /**
     * What a suspend function returns, as declared: the type its {@code Continuation} parameter resumes with (the
     * compiler writes it {@code Continuation<? super T>}), resolved against {@code api}.
     */
    private static Type suspendedResult(final Method method, final Class<?> api)
    {
        final Type[] generic = method.getGenericParameterTypes();
        final Type continuation = GenericTypeResolver.resolveType(generic[generic.length - 1], api);
        if (!(continuation instanceof ParameterizedType parameterized))
        {
            return Object.class;
        }
        final Type declared = parameterized.getActualTypeArguments()[0];
        if (declared instanceof java.lang.reflect.WildcardType wildcard)
        {
            return wildcard.getLowerBounds().length > 0 ? wildcard.getLowerBounds()[0] : Object.class;
        }
        return declared;
    }

    private static Class<?> rawClass(final Type type)
    {
        return type instanceof ParameterizedType parameterized && parameterized.getRawType() instanceof Class<?> c ? c
            : type instanceof Class<?> c ? c : Object.class;
    }

    /**
     * An exactly-once method has one answer to store and is run once, not twice without harm. A client may wait for
     * it on a future or a {@code Mono}; a service method answers synchronously, which its exporter checks
     * ({@code ExactlyOnceCalls.forService}): its transaction is bound to the thread that runs it.
     */
    private static void checkExactlyOnce(final Method method, final ReturnKind kind, final int streamParameter,
        final boolean oneWay, final boolean idempotent)
    {
        final String refused;
        if (kind == ReturnKind.STREAM || streamParameter >= 0)
        {
            refused = "a stream, which has no one answer to store";
        }
        else if (oneWay)
        {
            refused = "one-way; a one-way message is never tried again, so its key would protect nothing";
        }
        else if (idempotent)
        {
            refused = "also idempotent = true; an idempotent method may run twice without harm and needs no " +
                "ledger, an exactly-once method must not run twice: choose one";
        }
        else
        {
            return;
        }
        throw new IllegalArgumentException("@XioMethod(exactlyOnce = true) on " + method + ": " + refused);
    }

    /**
     * The type of one message of a {@code Flux<T>}, {@code Publisher<T>}, {@code Flow<T>} or {@code Mono<T>}:
     * {@code T}, which must not be a stream or a future itself.
     */
    private static Type elementType(final Type reactive, final Method method)
    {
        if (!(reactive instanceof ParameterizedType parameterized))
        {
            return Object.class;
        }
        final Type declared = parameterized.getActualTypeArguments()[0];
        // Publisher<? extends Quote> carries Quotes.
        final Type element = declared instanceof java.lang.reflect.WildcardType wildcard
            ? wildcard.getUpperBounds()[0] : declared;
        final Class<?> raw = element instanceof ParameterizedType nested && nested.getRawType() instanceof Class<?> c
            ? c : element instanceof Class<?> c ? c : Object.class;
        if (raw.getName().equals(FLUX) || raw.getName().equals(MONO) || raw.getName().equals(PUBLISHER) ||
            raw.getName().equals(FLOW) || java.util.concurrent.Future.class.isAssignableFrom(raw) ||
            CompletionStage.class.isAssignableFrom(raw) || raw == java.util.concurrent.Flow.Publisher.class)
        {
            throw new IllegalArgumentException(method + " nests a " + raw.getSimpleName() + " in a " +
                parameterized.getRawType().getTypeName() + "; its messages are values");
        }
        return element;
    }

    /** Whether calls of this method go through kotlinx-coroutines: it suspends, or returns or streams a Flow. */
    public boolean coroutines()
    {
        return suspending || returnsFlow || streamsFlow();
    }

    /** Whether the parameter the client streams is a kotlinx-coroutines {@code Flow}. */
    public boolean streamsFlow()
    {
        return streamParameter >= 0 && method.getParameterTypes()[streamParameter].getName().equals(FLOW);
    }

    /** Whether calls of this method are streams: it streams its result, a parameter, or both. */
    public boolean isStream()
    {
        return returnKind == ReturnKind.STREAM || streamParameter >= 0;
    }

    /** Whether the caller gets a future of an ordinary call's answer ({@code CompletableFuture} or {@code Mono}). */
    public boolean answersLater()
    {
        return returnKind == ReturnKind.FUTURE || returnKind == ReturnKind.MONO && streamParameter < 0;
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

    /**
     * How callers see the method: {@code one-way}; for a stream, {@code server-stream}, {@code client-stream} or
     * {@code bidi-stream}; {@code suspend} for a Kotlin suspend function that is no stream; else its return kind in
     * lower case ({@code plain}, {@code future}, {@code void}, {@code mono}).
     */
    public String kind()
    {
        if (isStream())
        {
            return streamParameter < 0 ? "server-stream" : returnKind == ReturnKind.STREAM ? "bidi-stream"
                : "client-stream";
        }
        return oneWay() ? "one-way" : suspending ? "suspend" : returnKind().name().toLowerCase(java.util.Locale.ROOT);
    }
}
