package io.xio.spring.reflection;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.jspecify.annotations.Nullable;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * The reflection service every server exports as {@value #RESOURCE} (unless
 * {@code xio.server.reflection.enabled=false}): what the server exports and how to call it, for a client without
 * the services' classes. Read-only. A generic client calls it with the {@code xio-codec: json} metadata entry and
 * reads JSON; an {@code @XioClient} of this interface reads {@link #list()} with the configured codec. The
 * descriptions are JSON documents in a data segment (not in the answer's header, whose size the peer limits), at
 * most {@value #MAX_DESCRIPTION_BYTES} bytes: a larger one is refused with {@code RESOURCE_EXHAUSTED}, and
 * {@link #describe(String, String)} describes one method at a time.
 */
public interface XioReflection
{
    /** The resource the reflection service is exported as. */
    String RESOURCE = "xio.reflection";

    /** The exported services, by name; the reflection service itself is not among them. */
    List<ServiceSummary> list();

    /** The most bytes of one description: far below any message limit, and more than any real service needs. */
    int MAX_DESCRIPTION_BYTES = 4 << 20;

    /**
     * The exported service named {@code service}, with all its methods: a {@link ServiceDescription} as UTF-8
     * JSON; null (no segment) when the server exports no service so named.
     */
    @Nullable ByteBuffer describe(String service);

    /**
     * As {@link #describe(String)} with only the methods named {@code method}: the one of that wire name, else
     * those of that Java name (overloads), with only the definitions they refer to; no methods when none is so
     * named.
     */
    @Nullable ByteBuffer describe(String service, String method);

    /**
     * One exported service.
     *
     * @param name the resource it is exported as, the path of the URI a client opens
     * @param type the exported interface's class name
     * @param methods how many methods it has
     */
    record ServiceSummary(String name, String type, int methods)
    {
    }

    /**
     * One exported service and its methods.
     *
     * @param name the resource it is exported as
     * @param type the exported interface's class name
     * @param methods its methods, by wire name
     * @param definitions the JSON Schemas the methods' schemas refer to ({@code {"$ref": "#/$defs/Order"}}),
     *     written as {@code $defs} so that the references resolve
     */
    record ServiceDescription(String name, String type, List<MethodDescription> methods,
        @JsonProperty("$defs") Map<String, Object> definitions)
    {
    }

    /**
     * One method of a service.
     *
     * @param name the Java method's name
     * @param wireName the name a call gives, unique in the service (overloads differ by their parameter types)
     * @param parameters the parameters, in order: a call's JSON arguments are an array of their values
     * @param returns the JSON Schema of the result; {@code null} for a void method (or a {@code Mono<Void>}, a
     *     Kotlin {@code Unit})
     * @param kind {@code plain}, {@code future} (asynchronous on the server), {@code mono}, {@code suspend} (a Kotlin
     *     suspend function), {@code void}, {@code one-way}, or a stream's: {@code server-stream},
     *     {@code client-stream} or {@code bidi-stream}
     *     ({@link io.xio.spring.method.ServiceMethod#kind()}); of a stream, {@code returns} is one message's schema
     * @param idempotent whether a call may be tried again on another connection or server
     * @param exactlyOnce whether a call runs once per idempotency key, whatever servers its attempts reach
     *     ({@code @XioMethod(exactlyOnce)}: the server keeps an execution ledger, and a call sent again with a
     *     call's key gets that call's answer)
     * @param timeout the method's deadline ({@code @XioMethod(timeout)}), or null for the caller's
     */
    record MethodDescription(String name, String wireName, List<ParameterDescription> parameters,
        @Nullable Map<String, Object> returns, String kind, boolean idempotent, boolean exactlyOnce,
        @Nullable String timeout)
    {
    }

    /**
     * One parameter.
     *
     * @param name its name (as compiled; {@code arg0} when the class was compiled without {@code -parameters})
     * @param schema the JSON Schema of its value
     * @param segment whether it travels as a data segment ({@code byte[]}, {@code ByteBuffer}) instead of in the
     *     arguments: such methods cannot be called with JSON arguments
     * @param required whether a call must give it a value: a primitive's, which cannot be null (another parameter
     *     left out of a call's JSON arguments is null)
     */
    record ParameterDescription(String name, Map<String, Object> schema, boolean segment, boolean required)
    {
    }
}
