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

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletionException;
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
    /** How close to its deadline an opener's cancel counts as the deadline's: more than a transit time. */
    private static final java.time.Duration DEADLINE_SLACK = java.time.Duration.ofMillis(100);

    private final String resource;
    private final ServiceMethods methods;
    private final Invoker invoker;
    private final Function<Metadata, XioCodec> codecs;
    private final XioExceptionHandlers handlers;
    private final List<XioServerInterceptor> interceptors;
    private final Executor executor;
    private final XioCallContext callContext;
    private final Recorders recorders;
    /** Streams taken and not over yet: counted apart from the service's calls, which its bounds count. */
    private final java.util.concurrent.atomic.AtomicInteger open = new java.util.concurrent.atomic.AtomicInteger();
    private volatile boolean draining;
    /** Completes once draining and no stream is open. */
    private final java.util.concurrent.CompletableFuture<Void> idle = new java.util.concurrent.CompletableFuture<>();

    /** Runs the service method itself, its exception as thrown. */
    @FunctionalInterface
    interface Invoker
    {
        @Nullable Object invoke(ServiceMethod method, @Nullable Object[] arguments) throws Throwable;
    }

    /** The recorder of calls to a method (by wire name) over a session's transport. */
    @FunctionalInterface
    interface Recorders
    {
        CallRecorder recorder(Session session, String wireName);
    }

    /**
     * @param inline whether the service runs its methods on the context thread (else on {@code worker})
     * @param codecs the codec of a call with this metadata (throws for an encoding the service does not take)
     */
    ServiceStreams(final String resource, final ServiceMethods methods, final Invoker invoker,
        final Function<Metadata, XioCodec> codecs, final XioExceptionHandlers handlers,
        final List<XioServerInterceptor> interceptors, final boolean inline, final Executor worker,
        final XioCallContext callContext, final Recorders recorders)
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
    }

    /** A stream opened on this service; on the context thread that received its opening message. */
    void onStream(final InboundStream stream)
    {
        final Served served = new Served(stream, new Metadata(stream.metadata()), System.nanoTime());
        final Message open = stream.open();
        if (!begin())
        {
            open.close();
            served.refuse(new RejectedExecutionException("service '" + resource + "' is shutting down"));
            return;
        }
        served.open(open);
    }

    /** Streams opened and not over yet. Any thread. */
    int open()
    {
        return open.get();
    }

    /**
     * Takes no more streams from now on. Any thread.
     *
     * @return completes once no stream is open any more (on the thread that ended the last one)
     */
    java.util.concurrent.CompletableFuture<Void> drain()
    {
        draining = true;
        if (open.get() == 0) // else the last stream to end completes it
        {
            idle.complete(null);
        }
        return idle;
    }

    /** Counts a stream that opens; false (counting nothing) once draining. */
    private boolean begin()
    {
        open.incrementAndGet();
        if (draining)
        {
            end();
            return false;
        }
        return true;
    }

    private void end()
    {
        if (open.decrementAndGet() == 0 && draining)
        {
            idle.complete(null);
        }
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
        /** The opening message's, copied: the message itself is let go once the arguments are decoded. */
        private final Metadata metadata;
        private final long start;
        private final AtomicLong sent = new AtomicLong();
        private final AtomicLong received = new AtomicLong();
        private final AtomicBoolean ended = new AtomicBoolean();
        private @Nullable ServiceMethod method;
        private CallRecorder recorder = CallRecorder.NONE;
        private @Nullable Object started;
        private volatile @Nullable XioServerCall call;
        /**
         * How this side ended the stream, when it did (the acceptor's outcome completes normally once its own failure
         * was written): with the failure in {@link #endedWith}. Null for an end the opener or the transport made.
         */
        private volatile @Nullable XioCallOutcome endedAs;
        private volatile @Nullable Throwable endedWith;
        /** What the method returned completed: {@link #complete} ends the stream and records how that went. */
        private volatile boolean completingHere;

        Served(final InboundStream stream, final Metadata metadata, final long start)
        {
            this.stream = stream;
            this.metadata = metadata;
            this.start = start;
        }

        /** The service stops: refused as a call is, counted as no stream. The context thread. */
        void refuse(final RejectedExecutionException refusal)
        {
            recorder = recorders.recorder(stream.session(), "unknown");
            started = recorder.start(metadata);
            recorder.stopSafely(started, start, XioCallOutcome.BACK_PRESSURE, refusal);
            ServiceStreams.fail(stream, XioExceptionHandlers.unmapped(refusal, XioErrorCode.UNAVAILABLE));
        }

        /**
         * Decodes the opening message (let go of here: segment arguments are copies), takes the stream and hands the
         * method to the worker. The context thread.
         */
        void open(final Message open)
        {
            final ServiceMethod called;
            final XioCodec codec;
            final @Nullable Object[] arguments;
            try
            {
                final int found = methods.find(open);
                final String name = found >= 0 ? methods.at(found).wireName() : Invocation.readName(open.header());
                method = found >= 0 ? methods.at(found) : methods.named(name);
                recorder = recorders.recorder(stream.session(), method != null ? name : "unknown");
                started = recorder.start(metadata);
                if (method == null || !method.isStream())
                {
                    throw new NoSuchMethodException("service '" + resource + "' has no stream method " + name +
                        (method == null ? "" : "; it is called, not streamed"));
                }
                called = method;
                codec = codecs.apply(metadata);
                arguments = Invocation.arguments(called, codec, methods.argumentsOf(open, found), segments(open));
                copySegments(called, arguments);
            }
            catch (final Throwable ex)
            {
                endEarly(ex instanceof NoSuchMethodException
                    ? XioExceptionHandlers.unmapped(ex, XioErrorCode.UNIMPLEMENTED) : handlers.undecodable(ex), ex);
                return;
            }
            finally
            {
                open.close();
            }
            final FlowStream flow = FlowStream.accept(stream, PREFETCH, this);
            flow.outcome().whenComplete((trailers, failure) ->
            {
                if (failure != null || !completingHere)
                {
                    ended(failure); // else complete() records it, once it knows whether the end could be written
                }
            });
            if (called.streamParameter() >= 0)
            {
                arguments[called.streamParameter()] = ReactorStreams.receivedByService(flow, codec,
                    called.parameterTypes()[called.streamParameter()], received);
            }
            final XioCallContext.Captured captured = callContext.capture();
            try
            {
                executor.execute(() ->
                {
                    try (XioInstrumentation.Scope restored = captured.restore())
                    {
                        run(flow, called, codec, arguments);
                    }
                });
            }
            catch (final RejectedExecutionException ex)
            {
                endedWith = ex;
                endedAs = XioCallOutcome.BACK_PRESSURE;
                ServiceStreams.fail(stream, XioExceptionHandlers.unmapped(ex, XioErrorCode.UNAVAILABLE));
            }
        }

        /** Runs the method, then sends what it returned; on the worker. */
        private void run(final FlowStream flow, final ServiceMethod called, final XioCodec codec,
            final @Nullable Object[] arguments)
        {
            if (stream.isDone())
            {
                return; // cancelled or expired as it waited for a worker: its end is recorded as such
            }
            final Object result;
            final XioServerCall served = new XioServerCall(resource, called.method(), arguments, stream, metadata);
            call = served;
            try (XioInstrumentation.Scope scope = recorder.openScope(started);
                 XioServerCall.Scope current = XioServerCall.enter(served))
            {
                result = interceptors.isEmpty() ? invoker.invoke(called, arguments)
                    : InterceptorChain.server(interceptors, served, () -> invoker.invoke(called, arguments));
                if (!ReactorStreams.isPublisher(result))
                {
                    throw new IllegalStateException(called.method() + " returned " + result + " instead of a " +
                        "Flux, Publisher or Mono");
                }
            }
            catch (final Throwable ex)
            {
                endedWith = ex;
                endedAs = XioCallOutcome.SERVICE_ERROR;
                ServiceStreams.fail(stream, handlers.answer(ex, called.method()));
                return;
            }
            // Told before the stream's outcome, which the subscriber completes before it ends the stream.
            ReactorStreams.send(ReactorStreams.observed((Publisher<?>)result, failure ->
            {
                endedWith = failure;
                endedAs = ReactorStreams.isUndecodable(failure) ? XioCallOutcome.ERROR : XioCallOutcome.SERVICE_ERROR;
            }, () -> completingHere = true), flow, codec, called.resultType(), sent);
        }

        @Override
        public void complete(final InboundStream ending)
        {
            final XioServerCall served = call;
            final Metadata trailers = served == null ? null : served.trailersIfAny();
            try
            {
                ending.complete(trailers == null ? Metadata.EMPTY : trailers);
            }
            catch (final RuntimeException ex)
            {
                // Trailers larger than the opener takes, say: the engine failed the stream instead.
                endedWith = ex;
                endedAs = XioCallOutcome.ERROR;
            }
            finally
            {
                ended(null);
            }
        }

        @Override
        public void fail(final InboundStream ending, final Throwable error)
        {
            ServiceStreams.fail(ending, ReactorStreams.isUndecodable(error) ? handlers.undecodable(error.getCause())
                : handlers.answer(error, method == null ? null : method.method()));
        }

        /** The stream failed before the method could run: answered with {@code answer}. The context thread. */
        private void endEarly(final XioExceptionHandlers.Answer answer, final Throwable why)
        {
            endedWith = why;
            endedAs = XioCallOutcome.ERROR;
            try
            {
                ServiceStreams.fail(stream, answer);
            }
            finally
            {
                ended(null);
            }
        }

        /** The stream is over, {@code failure} null when it completed (or this side ended it). */
        private void ended(final @Nullable Throwable failure)
        {
            if (!ended.compareAndSet(false, true))
            {
                return;
            }
            end();
            final XioCallOutcome ourEnd = endedAs;
            // The outcome's stage wraps what failed it.
            final Throwable why = ourEnd != null ? endedWith
                : failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            recorder.stopStreamSafely(started, start, sent.get(), received.get(),
                ourEnd != null ? ourEnd : outcomeOf(why), why);
        }

        /**
         * How the peer or the transport ended the stream. The opener cancels at its deadline, which this side sees
         * a transit time later than its own: a cancel that close to the deadline is the deadline's.
         */
        private XioCallOutcome outcomeOf(final @Nullable Throwable why)
        {
            final XioCallOutcome outcome = XioCallOutcome.of(why);
            return outcome == XioCallOutcome.CANCELLED && stream.hasDeadline() &&
                stream.timeRemaining().compareTo(DEADLINE_SLACK) <= 0 ? XioCallOutcome.TIMEOUT : outcome;
        }
    }

    /** A stream's arguments outlive its opening message: a data segment is copied, not a view into it. */
    private static void copySegments(final ServiceMethod method, final @Nullable Object[] arguments)
    {
        for (int i = 0; i < arguments.length; i++)
        {
            if (method.segments()[i] && arguments[i] instanceof ByteBuffer view)
            {
                final ByteBuffer copy = ByteBuffer.allocate(view.remaining()).put(view.duplicate()).flip();
                arguments[i] = copy.asReadOnlyBuffer();
            }
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
