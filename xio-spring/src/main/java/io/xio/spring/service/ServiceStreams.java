package io.xio.spring.service;

import io.xio.engine.InboundStream;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Session;
import io.xio.engine.flow.FlowStream;
import io.xio.spring.call.InterceptorChain;
import io.xio.spring.call.XioServerCall;
import io.xio.spring.call.XioServerInterceptor;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.error.XioErrorBody;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.method.Invocation;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioCallOutcome;
import io.xio.spring.observation.XioInstrumentation;
import io.xio.spring.observation.XioInstrumentation.CallRecorder;
import io.xio.spring.stream.ReactorStreams;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Serves the streams of one exported bean: a stream's opening message names a stream method (one that returns a
 * {@code Flux} or {@code Publisher}, or takes one) and carries its other arguments; the method runs once, on the worker
 * (or inline), through the service's interceptors and in the context the stream arrived with; its streamed parameter
 * is a {@code Flux} of the opener's messages, and what it returns is sent back as the stream, paced by the opener's
 * credit. The stream ends when that completes (with the call's trailers) or fails (the failure mapped by the service's
 * {@link XioExceptionHandlers}, as a call's is); a cancel or the deadline from the opener cancels what the method
 * returned. The service's bounds on calls do not apply: the engine's stream limits bound streams. Each stream is
 * recorded as one call, with the messages it sent and received. Made only for a service that has stream methods,
 * since it needs Reactor; thread-safe.
 */
final class ServiceStreams
{
    /** How many messages a stream asks what the method returned for, ahead of the opener's credit. */
    private static final int PREFETCH = 32;

    private final String resource;
    private final ServiceMethods methods;
    private final Invoker invoker;
    private final Function<Metadata, XioCodec> codecs;
    private final XioExceptionHandlers handlers;
    private final List<XioServerInterceptor> interceptors;
    private final Executor executor;
    private final XioCallContext callContext;
    private final Recorders recorders;
    private final Calls calls;

    /** Runs the service method itself, its exception as thrown. */
    @FunctionalInterface
    interface Invoker
    {
        @Nullable Object invoke(Method method, @Nullable Object[] arguments) throws Throwable;
    }

    /** The recorder of calls to a method (by wire name) over a session's transport. */
    @FunctionalInterface
    interface Recorders
    {
        CallRecorder recorder(Session session, String wireName);
    }

    /** The service's count of calls in progress, which a stream is one of until it ends. */
    interface Calls
    {
        /** Counts one more; false (counting nothing) when the service stops and takes no more. */
        boolean begin();

        void end();
    }

    /**
     * @param inline whether the service runs its methods on the context thread (else on {@code worker})
     * @param codecs the codec of a call with this metadata (throws for an encoding the service does not take)
     */
    ServiceStreams(final String resource, final ServiceMethods methods, final Invoker invoker,
        final Function<Metadata, XioCodec> codecs, final XioExceptionHandlers handlers,
        final List<XioServerInterceptor> interceptors, final boolean inline, final Executor worker,
        final XioCallContext callContext, final Recorders recorders, final Calls calls)
    {
        this.resource = resource;
        this.methods = methods;
        this.invoker = invoker;
        this.codecs = codecs;
        this.handlers = handlers;
        this.interceptors = interceptors;
        this.executor = inline ? Runnable::run : worker;
        this.callContext = inline ? XioCallContext.NONE : callContext;
        this.recorders = recorders;
        this.calls = calls;
    }

    /** A stream opened on this service; on the context thread that received its opening message. */
    void onStream(final InboundStream stream)
    {
        final long start = System.nanoTime();
        final Message open = stream.open();
        final Metadata metadata = new Metadata(stream.metadata()); // outlives the opening message, which may be reused
        if (!calls.begin())
        {
            open.close();
            final RejectedExecutionException refusal = new RejectedExecutionException("service '" + resource +
                "' is shutting down");
            recordRefusal(stream, metadata, start, refusal);
            fail(stream, XioExceptionHandlers.unmapped(refusal, XioErrorCode.UNAVAILABLE));
            return;
        }
        final int found;
        final String name;
        try
        {
            found = methods.find(open);
            name = found >= 0 ? methods.at(found).wireName() : Invocation.readName(open.header());
        }
        catch (final RuntimeException unreadable)
        {
            calls.end();
            open.close();
            fail(stream, handlers.undecodable(unreadable));
            return;
        }
        final ServiceMethod method = found >= 0 ? methods.at(found) : methods.named(name);
        final Served served = new Served(stream, open, metadata, method, found,
            recorders.recorder(stream.session(), method != null ? name : "unknown"), start);
        served.open();
    }

    private void recordRefusal(final InboundStream stream, final Metadata metadata, final long start,
        final Throwable why)
    {
        final CallRecorder recorder = recorders.recorder(stream.session(), "unknown");
        recorder.stopSafely(recorder.start(metadata), start, XioCallOutcome.BACK_PRESSURE, why);
    }

    /** Ends {@code stream} with {@code answer}, bounded as a call's failure is. */
    private static void fail(final InboundStream stream, final XioExceptionHandlers.Answer answer)
    {
        stream.fail(XioErrorBody.bounded(answer.type(), XioErrorBody.MAX_TYPE_BYTES),
            XioErrorBody.encode(answer.error()));
    }

    /** One stream this service serves, from its opening to its end. */
    private final class Served implements FlowStream.AcceptorEnd
    {
        private final InboundStream stream;
        private final Message open;
        private final Metadata metadata;
        private final @Nullable ServiceMethod method;
        /** Where the method is in {@link ServiceMethods}, or -1 when found by its name. */
        private final int found;
        private final CallRecorder recorder;
        private final long start;
        private final AtomicLong sent = new AtomicLong();
        private final AtomicLong received = new AtomicLong();
        private final AtomicBoolean ended = new AtomicBoolean();
        private @Nullable Object started;
        private volatile @Nullable XioServerCall call;
        /** Set when this side failed the stream: the service's failure, not the opener's or the transport's. */
        private volatile @Nullable Throwable serviceFailure;

        Served(final InboundStream stream, final Message open, final Metadata metadata,
            final @Nullable ServiceMethod method, final int found, final CallRecorder recorder, final long start)
        {
            this.stream = stream;
            this.open = open;
            this.metadata = metadata;
            this.method = method;
            this.found = found;
            this.recorder = recorder;
            this.start = start;
        }

        /** Checks the opening message, takes the stream and hands the method to the worker; on the context thread. */
        void open()
        {
            started = recorder.start(metadata);
            final FlowStream flow;
            final @Nullable Object[] arguments;
            final XioCodec codec;
            try
            {
                if (method == null || !method.isStream())
                {
                    throw new NoSuchMethodException("service '" + resource + "' has no stream method " +
                        Invocation.readName(open.header()) + (method == null ? "" : "; it is called, not streamed"));
                }
                codec = codecs.apply(metadata);
                arguments = Invocation.arguments(method, codec, methods.argumentsOf(open, found), segments(open));
            }
            catch (final Exception | LinkageError ex)
            {
                end(ex instanceof NoSuchMethodException ? XioExceptionHandlers.unmapped(ex, XioErrorCode.UNIMPLEMENTED)
                    : handlers.undecodable(ex), XioCallOutcome.ERROR, ex);
                return;
            }
            flow = FlowStream.accept(stream, PREFETCH, this);
            flow.outcome().whenComplete((trailers, failure) -> ended(failure));
            if (method.streamParameter() >= 0)
            {
                arguments[method.streamParameter()] = ReactorStreams.received(flow, codec,
                    method.parameterTypes()[method.streamParameter()], received);
            }
            final XioCallContext.Captured captured = callContext.capture();
            try
            {
                executor.execute(() ->
                {
                    try (XioInstrumentation.Scope restored = captured.restore())
                    {
                        run(flow, codec, arguments);
                    }
                });
            }
            catch (final RejectedExecutionException ex)
            {
                serviceFailure = ex;
                ServiceStreams.fail(stream, XioExceptionHandlers.unmapped(ex, XioErrorCode.UNAVAILABLE));
            }
        }

        /** Runs the method, then sends what it returned; on the worker. */
        private void run(final FlowStream flow, final XioCodec codec, final @Nullable Object[] arguments)
        {
            final ServiceMethod called = method;
            final Object result;
            final XioServerCall served = new XioServerCall(resource, called.method(), arguments, stream, metadata);
            call = served;
            try (XioInstrumentation.Scope scope = recorder.openScope(started);
                 XioServerCall.Scope current = XioServerCall.enter(served))
            {
                result = interceptors.isEmpty() ? invoker.invoke(called.method(), arguments)
                    : InterceptorChain.server(interceptors, served, () -> invoker.invoke(called.method(), arguments));
                if (!ReactorStreams.isPublisher(result))
                {
                    throw new IllegalStateException(called.method() + " returned " + result + " instead of a " +
                        "Flux, Publisher or Mono");
                }
            }
            catch (final Throwable ex)
            {
                serviceFailure = ex;
                if (!stream.isDone())
                {
                    ServiceStreams.fail(stream, handlers.answer(ex, called.method()));
                }
                return;
            }
            ReactorStreams.send((Publisher<?>)result, flow, codec, called.resultType(), sent);
        }

        @Override
        public void complete(final InboundStream ending)
        {
            final XioServerCall served = call;
            final Metadata trailers = served == null ? null : served.trailersIfAny();
            ending.complete(trailers == null ? Metadata.EMPTY : trailers);
        }

        @Override
        public void fail(final InboundStream ending, final Throwable error)
        {
            serviceFailure = error;
            ServiceStreams.fail(ending, handlers.answer(error, method == null ? null : method.method()));
        }

        /** The stream failed before the method could run: answered with {@code answer}. */
        private void end(final XioExceptionHandlers.Answer answer, final XioCallOutcome outcome, final Throwable why)
        {
            ServiceStreams.fail(stream, answer);
            if (ended.compareAndSet(false, true))
            {
                calls.end();
                open.close();
                recorder.stopSafely(started, start, outcome, why);
            }
        }

        /** The stream is over, {@code failure} null when it completed. */
        private void ended(final @Nullable Throwable failure)
        {
            if (!ended.compareAndSet(false, true))
            {
                return;
            }
            calls.end();
            open.close();
            recorder.streamed(started, sent.get(), received.get());
            // An acceptor's stream it failed itself completes its outcome all the same (the end was written).
            final Throwable serviceFailed = serviceFailure;
            if (serviceFailed != null)
            {
                recorder.stopSafely(started, start, XioCallOutcome.SERVICE_ERROR, serviceFailed);
                return;
            }
            recorder.stopSafely(started, start, XioCallOutcome.of(failure), failure);
        }
    }

    private static ByteBuffer[] segments(final Message message)
    {
        final ByteBuffer[] segments = new ByteBuffer[message.segmentCount()];
        for (int i = 0; i < segments.length; i++)
        {
            segments[i] = message.segment(i);
        }
        return segments;
    }
}
