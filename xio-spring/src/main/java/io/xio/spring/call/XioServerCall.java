package io.xio.spring.call;

import io.xio.engine.InboundRequest;
import io.xio.engine.Metadata;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;

/**
 * One call of a service method, as its interceptors and the method itself see it: which method, the caller's
 * metadata and deadline, and the trailers to answer with. {@link #current()} is the call the running thread serves,
 * so a service method can read its deadline and metadata, and an {@code @XioClient} call made from it inherits the
 * time left (it never waits longer than its caller does).
 *
 * <p>Made by xio for each call; used on the thread that runs the method. The arguments are the method's own
 * (data segments are views into the received message, valid while the method runs).
 */
public final class XioServerCall
{
    private static final ThreadLocal<@Nullable XioServerCall> CURRENT = new ThreadLocal<>();

    private final String service;
    private final Method method;
    private final @Nullable Object[] argumentValues;
    /** Made when first asked for: most calls never are. */
    private @Nullable List<@Nullable Object> arguments;
    private final Served request;
    private final boolean stream;
    private volatile @Nullable Metadata trailers;

    /** For xio's dispatcher, and for tests of interceptors. */
    public XioServerCall(final String service, final Method method, final @Nullable Object[] arguments,
        final InboundRequest request)
    {
        this(service, method, arguments, new Served()
        {
            @Override
            public Metadata metadata()
            {
                return request.metadata();
            }

            @Override
            public io.xio.engine.Session session()
            {
                return request.session();
            }

            @Override
            public @Nullable Duration timeRemaining()
            {
                return request.timeRemaining();
            }

            @Override
            public boolean isExpired()
            {
                return request.isExpired();
            }

            @Override
            public boolean isCancelled()
            {
                return request.isCancelled();
            }
        }, false);
    }

    /**
     * A stream's call, for xio's dispatcher and for tests of interceptors: the method runs once, as the stream opens,
     * and returns the {@code Flux} (or {@code Mono}) that answers it; {@code metadata} is the opening message's, read
     * before that message was let go.
     */
    public XioServerCall(final String service, final Method method, final @Nullable Object[] arguments,
        final io.xio.engine.InboundStream stream, final Metadata metadata)
    {
        this(service, method, arguments, new Served()
        {
            @Override
            public Metadata metadata()
            {
                return metadata;
            }

            @Override
            public io.xio.engine.Session session()
            {
                return stream.session();
            }

            @Override
            public @Nullable Duration timeRemaining()
            {
                return stream.timeRemaining();
            }

            @Override
            public boolean isExpired()
            {
                return stream.hasDeadline() && stream.timeRemaining().isZero();
            }

            @Override
            public boolean isCancelled()
            {
                return stream.isDone();
            }
        }, true);
    }

    private XioServerCall(final String service, final Method method, final @Nullable Object[] arguments,
        final Served served, final boolean stream)
    {
        this.service = service;
        this.method = method;
        this.argumentValues = arguments;
        this.request = served;
        this.stream = stream;
    }

    /** What a call reads of the request or stream it serves. */
    private interface Served
    {
        Metadata metadata();

        io.xio.engine.Session session();

        @Nullable Duration timeRemaining();

        boolean isExpired();

        boolean isCancelled();
    }

    /** Whether this call is a stream's: its method returned, or takes, a {@code Flux}. */
    public boolean isStream()
    {
        return stream;
    }

    /** The call this thread is serving now (inside a service method or its interceptors), or null. */
    public static @Nullable XioServerCall current()
    {
        return CURRENT.get();
    }

    /**
     * Makes {@code call} the current one until the returned scope closes (which restores the one before). For xio's
     * dispatcher, and for tests that call a service method directly.
     */
    public static Scope enter(final XioServerCall call)
    {
        final XioServerCall previous = CURRENT.get();
        CURRENT.set(call);
        // Set to null rather than removed: a thread that serves calls keeps its entry instead of one per call.
        return previous == null ? CLEAR : () -> CURRENT.set(previous);
    }

    private static final Scope CLEAR = () -> CURRENT.set(null);

    /** What {@link #enter} returns: closing it ends the call's time as the current one. */
    @FunctionalInterface
    public interface Scope extends AutoCloseable
    {
        @Override
        void close();
    }

    /** The exported service's name (its resource). */
    public String service()
    {
        return service;
    }

    /** The service interface's method called. */
    public Method method()
    {
        return method;
    }

    /**
     * The method's arguments, decoded; read-only. For a Kotlin {@code suspend} function these are its declared
     * arguments: {@link #method()} has one parameter more, the {@code Continuation} the compiler adds, which is no
     * argument of the call.
     */
    public List<@Nullable Object> arguments()
    {
        List<@Nullable Object> list = arguments;
        if (list == null)
        {
            list = java.util.Collections.unmodifiableList(java.util.Arrays.asList(argumentValues));
            arguments = list;
        }
        return list;
    }

    /** The metadata the caller sent (read-only; empty when none). */
    public Metadata metadata()
    {
        return request.metadata();
    }

    /**
     * The session the call arrived on: who it belongs to ({@link io.xio.engine.Session#principal()}, as the
     * portal's acceptor decided at set-up) and what the transport proved about the peer
     * ({@link io.xio.engine.Session#peer()}, such as its TLS certificate).
     */
    public io.xio.engine.Session session()
    {
        return request.session();
    }

    /** Time left until the caller gives up ({@link Duration#ZERO} once passed), or null when it sent no deadline. */
    public @Nullable Duration timeRemaining()
    {
        return request.timeRemaining();
    }

    /** Whether the caller has given up waiting: its deadline has passed. */
    public boolean isExpired()
    {
        return request.isExpired();
    }

    /** Whether the caller cancelled the call: its answer would be dropped (a stream's: the stream is over). */
    public boolean isCancelled()
    {
        return request.isCancelled();
    }

    /**
     * Trailers to send with the result, made on first use: add to it before the method returns (or, for a method
     * returning a {@code CompletionStage}, before the stage completes; for a stream, before its {@code Flux}
     * completes). Not sent with an error answer.
     */
    public Metadata trailers()
    {
        if (trailers == null)
        {
            trailers = new Metadata();
        }
        return trailers;
    }

    /** The trailers added so far, or null. For xio's dispatcher. */
    public @Nullable Metadata trailersIfAny()
    {
        return trailers;
    }

    @Override
    public String toString()
    {
        return "XioServerCall{" + service + "." + method.getName() + "}";
    }
}
