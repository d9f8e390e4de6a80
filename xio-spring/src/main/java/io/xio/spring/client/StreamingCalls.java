package io.xio.spring.client;

import io.xio.engine.CallOptions;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.StreamCall;
import io.xio.engine.flow.FlowStream;
import io.xio.spring.call.XioCallChain;
import io.xio.spring.call.XioClientCall;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioCallOutcome;
import io.xio.spring.stream.ReactorStreams;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The calls of a client proxy's stream methods: each subscription to the {@code Flux} (or {@code Mono}) a stream method
 * returned opens one stream, with the method's other arguments in its opening message, and sends the streamed
 * parameter's messages as the server grants credit; the server's messages reach the subscriber as it requests them.
 * Cancelling the subscription cancels the stream (the server's {@code Flux} is cancelled, the streamed parameter's
 * subscription too). The stream's deadline is its method's {@code @XioMethod(timeout)}, or what an interceptor sets;
 * the client's call timeout bounds only the wait for a session, since a stream may rightly last as long as it is read.
 * A stream is never tried again: the engine carries it across a lost connection, exactly once. Interceptors run at each
 * subscription, before the stream opens, and their {@code proceed()} returns the stream's {@code Flux}; the stream is
 * recorded as one call, with the messages it sent and received; a failure reaches the subscriber as {@link
 * CallFailures} translates it. Made only for a client with stream methods, since it needs Reactor; thread-safe.
 */
final class StreamingCalls
{
    /** How many messages the streamed parameter is asked for ahead of the server's credit. */
    private static final int PREFETCH = 32;
    /** What a subscription that left before its stream opened leaves behind. */
    private static final Object CANCELLED = new Object();

    private final ClientInterceptors interceptors;
    private final AttemptSessions sessions;
    private final RequestEncoder encoder;
    private final XioCodec codec;
    private final CallFailures failures;

    StreamingCalls(final ClientInterceptors interceptors, final AttemptSessions sessions, final RequestEncoder encoder,
        final XioCodec codec, final CallFailures failures)
    {
        this.interceptors = interceptors;
        this.sessions = sessions;
        this.encoder = encoder;
        this.codec = codec;
        this.failures = failures;
    }

    /** What the stream method returns: a {@code Flux} of the server's messages, or a {@code Mono} of its one answer. */
    Publisher<?> call(final ClientMethodState state, final Method method, final @Nullable Object[] arguments)
    {
        final ServiceMethod call = state.call;
        if (call.streamParameter() >= 0 && arguments[call.streamParameter()] == null)
        {
            throw new NullPointerException(method.getName() + "'s streamed parameter is null; pass Flux.empty() to " +
                "send nothing");
        }
        final Flux<@Nullable Object> stream = Flux.defer(() -> subscribed(state, method, arguments));
        return call.returnKind() == ServiceMethod.ReturnKind.MONO ? stream.singleOrEmpty() : stream;
    }

    /** One subscription: recorded, through the interceptors, then the stream opened. */
    private Flux<@Nullable Object> subscribed(final ClientMethodState state, final Method method,
        final @Nullable Object[] arguments)
    {
        final long start = System.nanoTime();
        final Metadata outgoing = state.recorder.propagates() ? new Metadata() : null;
        final Object started = state.recorder.start(outgoing);
        final AtomicLong sent = new AtomicLong();
        final AtomicLong received = new AtomicLong();
        final Flux<@Nullable Object> messages;
        try
        {
            if (interceptors.isEmpty())
            {
                messages = open(state, arguments, outgoing, null, sent, received);
            }
            else
            {
                final XioClientCall intercepted = interceptors.call(method, arguments, state.timeout, outgoing);
                final boolean[] proceeded = new boolean[1];
                final XioCallChain last = () ->
                {
                    interceptors.once(proceeded[0], method);
                    proceeded[0] = true;
                    // A timeout an interceptor set (a new Duration, even of the same length) is the stream's deadline.
                    return open(state, arguments, intercepted.metadataIfAny(),
                        intercepted.timeout() == state.timeout ? null : intercepted.timeout(), sent, received);
                };
                final Object result = interceptors.run(intercepted, last);
                if (!(result instanceof Flux<?> flux))
                {
                    throw new IllegalStateException("an interceptor of " + method + " returned " + result +
                        " instead of the stream that proceed() returned");
                }
                @SuppressWarnings("unchecked") final Flux<@Nullable Object> passed = (Flux<@Nullable Object>)flux;
                messages = passed;
            }
        }
        catch (final Throwable ex)
        {
            state.recorder.stopSafely(started, start, XioCallOutcome.of(ex), ex);
            return Flux.error(failures.translate(ex, method));
        }
        final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
        return messages
            .doOnError(failure::set)
            .onErrorMap(ex -> failures.translate(ex, method))
            .doFinally(signal ->
            {
                final Throwable failed = failure.get();
                state.recorder.stopStreamSafely(started, start, sent.get(), received.get(),
                    signal == SignalType.CANCEL ? XioCallOutcome.CANCELLED : XioCallOutcome.of(failed), failed);
            });
    }

    /**
     * Opens the stream once its session is open: the opening message carries the other arguments and
     * {@code metadata}; {@code deadline} (else the method's timeout, if it has one) bounds the stream.
     */
    private Flux<@Nullable Object> open(final ClientMethodState state, final @Nullable Object[] arguments,
        final @Nullable Metadata metadata, final @Nullable Duration deadline, final AtomicLong sent,
        final AtomicLong received)
    {
        final ServiceMethod call = state.call;
        final int streamed = call.streamParameter();
        final @Nullable Object[] others = arguments.clone();
        final Publisher<?> upstream = streamed >= 0 ? (Publisher<?>)arguments[streamed] : null;
        if (streamed >= 0)
        {
            others[streamed] = null;
        }
        final Outbound message = RequestEncoder.withMetadata(
            encoder.encode(state, others, CallerWaiter.current(), true), metadata);
        final Duration limit = deadline != null ? deadline : call.timeout();
        final CallOptions budget = CallOptions.timeout(limit != null ? limit : state.timeout);
        return Mono.<FlowStream>create(sink ->
        {
            // Cancelled (CANCELLED) while the session opened, or the stream opened (a FlowStream) when cancelled.
            final AtomicReference<@Nullable Object> opened = new AtomicReference<>();
            sink.onCancel(() ->
            {
                if (opened.getAndSet(CANCELLED) instanceof FlowStream flow)
                {
                    flow.cancel();
                }
            });
            sessions.whenOpen(message, budget, new AttemptSessions.AsyncSend()
            {
                @Override
                public void send(final Session session, final Outbound opening, final CallOptions options)
                {
                    if (opened.get() == CANCELLED)
                    {
                        return; // the subscriber left while the session opened: no stream for nobody
                    }
                    final FlowStream flow;
                    try
                    {
                        // The stream's deadline is its own, if it has one; else none, however long the session took.
                        flow = FlowStream.open(session, opening, limit != null ? options : CallOptions.DEFAULT,
                            PREFETCH);
                    }
                    catch (final RuntimeException ex)
                    {
                        sink.error(ex);
                        return;
                    }
                    if (!opened.compareAndSet(null, flow))
                    {
                        flow.cancel(); // cancelled just now: the sink would drop it
                        return;
                    }
                    sink.success(flow);
                }

                @Override
                public void notSent(final Throwable failure)
                {
                    if (opened.get() != CANCELLED)
                    {
                        sink.error(failure);
                    }
                }
            });
        }).flatMapMany(flow ->

        {
            if (upstream != null)
            {
                ReactorStreams.send(upstream, flow, codec, call.parameterTypes()[streamed], sent);
            }
            else
            {
                ((StreamCall)flow.stream()).halfClose(); // nothing to send: the server knows at once
            }
            return ReactorStreams.received(flow, codec, call.resultType(), received);
        });
    }
}
