package io.xio.spring.call;

import io.xio.engine.Metadata;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One call of an {@code @XioClient} proxy, as its interceptors see it before it is sent: which client, service and
 * method, the arguments, the metadata to send and the timeout to send with. Made by xio for each call; used on the
 * caller's thread until the chain proceeds.
 */
public final class XioClientCall
{
    private final String client;
    private final String service;
    private final Method method;
    private final List<@Nullable Object> arguments;
    private @Nullable Metadata metadata;
    private Duration timeout;

    /** For xio's client proxies, and for tests of interceptors. */
    public XioClientCall(final String client, final String service, final Method method,
        final @Nullable Object[] arguments, final Duration timeout)
    {
        this(client, service, method, arguments, timeout, null);
    }

    /** With the metadata made for the call already (a tracer's context in it), or null. */
    public XioClientCall(final String client, final String service, final Method method,
        final @Nullable Object[] arguments, final Duration timeout, final @Nullable Metadata metadata)
    {
        this.metadata = metadata;
        this.client = client;
        this.service = service;
        this.method = method;
        this.arguments = java.util.Collections.unmodifiableList(java.util.Arrays.asList(arguments));
        this.timeout = timeout;
    }

    /** The client's name ({@code @XioClient} name), or its address when it has none. */
    public String client()
    {
        return client;
    }

    /** The service (resource) called. */
    public String service()
    {
        return service;
    }

    /** The interface method called. */
    public Method method()
    {
        return method;
    }

    /**
     * The call's arguments; read-only. For a Kotlin {@code suspend} function these are its declared arguments:
     * {@link #method()} has one parameter more, the caller's {@code Continuation}, which is no argument of the call.
     */
    public List<@Nullable Object> arguments()
    {
        return arguments;
    }

    /** Metadata sent with the call, made on first use. */
    public Metadata metadata()
    {
        if (metadata == null)
        {
            metadata = new Metadata();
        }
        return metadata;
    }

    /** The metadata added so far, or null. For xio's client proxies. */
    public @Nullable Metadata metadataIfAny()
    {
        return metadata;
    }

    /**
     * Gives an exactly-once call ({@code @XioMethod(exactlyOnce = true)}) the application's own idempotency key in
     * place of one xio makes per call, as payment APIs let callers set theirs: every call with this key runs once,
     * whatever servers its attempts reach, for as long as the server's ledger keeps the key (and a later call with the
     * same key gets the first one's answer, whatever its arguments). Take it from what identifies the operation,
     * such as an order's id among the arguments. It goes in the metadata under
     * {@link io.xio.engine.IdempotencyKeys#METADATA_KEY}; a call of a method that is not exactly-once sends it as any
     * other entry.
     *
     * @param key 1 to 128 characters of {@code A-Z a-z 0-9 - _ . :}
     * @throws IllegalArgumentException when it is not a valid key
     */
    public void idempotencyKey(final String key)
    {
        metadata().put(io.xio.engine.IdempotencyKeys.METADATA_KEY, io.xio.engine.IdempotencyKeys.check(key));
    }

    /**
     * How long the call may take: the method's or client's timeout, shortened to the time left of the call this
     * thread serves, if any ({@link XioServerCall#current()}).
     */
    public Duration timeout()
    {
        return timeout;
    }

    /** Sets how long the call may take. */
    public void timeout(final Duration value)
    {
        Objects.requireNonNull(value, "timeout");
        if (value.isNegative() || value.isZero())
        {
            throw new IllegalArgumentException("a call's timeout must be positive, was " + value);
        }
        this.timeout = value;
    }

    @Override
    public String toString()
    {
        return "XioClientCall{" + client + " -> " + service + "." + method.getName() + "}";
    }
}
