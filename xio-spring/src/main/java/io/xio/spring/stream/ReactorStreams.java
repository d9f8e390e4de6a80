package io.xio.spring.stream;

import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.flow.FlowStream;
import io.xio.spring.codec.XioCodec;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.FlowAdapters;
import org.reactivestreams.Publisher;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.lang.reflect.Type;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Reactor on either end of a {@link FlowStream}: the messages the peer sends as a {@link Flux} of decoded values, and
 * a {@link Publisher} of values sent into the stream, each value one message ({@link StreamMessages}), paced by the
 * stream's credit. Only classes that met a stream method load this one, so Reactor stays optional. Stateless; any
 * thread.
 */
public final class ReactorStreams
{
    private ReactorStreams()
    {
    }

    /**
     * The peer's messages on {@code flow}, decoded as {@code type}, counted in {@code received}. Its subscriber's
     * demand is the stream's credit; its cancel cancels the stream. Decoding runs on the stream's context thread, and
     * so, unless the subscriber moves them ({@code publishOn}), do the subscriber's signals: it must not block there. A
     * message that does not decode fails the flux and cancels the stream.
     */
    public static Flux<@Nullable Object> received(final FlowStream flow, final XioCodec codec, final Type type,
        final AtomicLong received)
    {
        return JdkFlowAdapter.flowPublisherToFlux(flow.publisher()).map(message ->
        {
            received.incrementAndGet();
            return decoded(codec, message, type);
        });
    }

    /**
     * What the opener sends, as the service's streamed parameter: {@link #received}, but a message that does not
     * decode fails the flux with an {@link #isUndecodable undecodable} error <em>without</em> cancelling the stream
     * (messages still arriving are let go), so that the stream ends with that error through what the method returns,
     * as a call's bad argument does.
     */
    public static Flux<@Nullable Object> receivedByService(final FlowStream flow, final XioCodec codec,
        final Type type, final AtomicLong received)
    {
        final BadInputKeepsStream guarded = new BadInputKeepsStream(flow);
        return JdkFlowAdapter.flowPublisherToFlux(guarded).map(message ->
        {
            received.incrementAndGet();
            try
            {
                return decoded(codec, message, type);
            }
            catch (final RuntimeException ex)
            {
                guarded.undecodable = true; // before map cancels its upstream for the error
                throw new Undecodable(ex);
            }
        });
    }

    private static Object decoded(final XioCodec codec, final Message message, final Type type)
    {
        final Object value = StreamMessages.decode(codec, message, type);
        if (value == null)
        {
            throw new IllegalArgumentException("a stream message of " + type.getTypeName() + " is null");
        }
        return value;
    }

    /** Whether {@code failure} is a message of the opener's that the service could not decode; its cause says why. */
    public static boolean isUndecodable(final Throwable failure)
    {
        return failure instanceof Undecodable;
    }

    /** {@code source}, telling {@code failed} its error, or {@code completed} its end, before its subscriber hears. */
    public static Publisher<?> observed(final Publisher<?> source, final Consumer<Throwable> failed,
        final Runnable completed)
    {
        return Flux.from(source).doOnError(failed).doOnComplete(completed);
    }

    /**
     * {@code source} (a {@code Publisher}, else a failure), telling {@code ended} its end, with its error or null,
     * or {@code cancelled} its subscriber's cancel; once either way. Null values end it with an error.
     */
    public static Flux<?> ending(final @Nullable Object source, final Consumer<@Nullable Throwable> ended,
        final Runnable cancelled)
    {
        final Flux<?> flux = source instanceof Publisher<?> publisher ? Flux.from(publisher)
            : Flux.error(new IllegalStateException("a stream method returned " + source + ", not a Publisher"));
        return flux.doOnComplete(() -> ended.accept(null)).doOnError(ended).doOnCancel(cancelled);
    }

    /** A stream message that did not decode: the peer's error, not the service's. */
    private static final class Undecodable extends IllegalArgumentException
    {
        private static final long serialVersionUID = 1L;

        Undecodable(final RuntimeException cause)
        {
            super("a stream message could not be decoded: " + cause.getMessage(), cause);
        }
    }

    /**
     * The stream's messages, where a cancel that follows an undecodable message stops delivery instead of cancelling
     * the stream, so that the error can end the stream through what the method returns: messages that still arrive
     * are closed here. When the error did not end the stream by the time it was told (the method's result does not
     * carry it, or carries it on another thread), the stream is cancelled after all rather than left open. Signals pass
     * through one at a time, as they come.
     */
    private static final class BadInputKeepsStream implements Flow.Publisher<Message>
    {
        private final FlowStream flow;
        volatile boolean undecodable;

        BadInputKeepsStream(final FlowStream flow)
        {
            this.flow = flow;
        }

        @Override
        public void subscribe(final Flow.Subscriber<? super Message> downstream)
        {
            flow.publisher().subscribe(new Flow.Subscriber<Message>()
            {
                private volatile boolean stopped;
                private volatile Flow.@Nullable Subscription upstream;

                @Override
                public void onSubscribe(final Flow.Subscription upstream)
                {
                    this.upstream = upstream;
                    downstream.onSubscribe(new Flow.Subscription()
                    {
                        @Override
                        public void request(final long n)
                        {
                            if (!stopped)
                            {
                                upstream.request(n);
                            }
                        }

                        @Override
                        public void cancel()
                        {
                            if (undecodable)
                            {
                                stopped = true;
                            }
                            else
                            {
                                upstream.cancel();
                            }
                        }
                    });
                }

                @Override
                public void onNext(final Message message)
                {
                    if (stopped)
                    {
                        message.close();
                        return;
                    }
                    downstream.onNext(message);
                    if (!stopped)
                    {
                        undecodable = false; // the subscriber went on past it (onErrorContinue): a later cancel cancels
                    }
                    else if (!flow.stream().isDone())
                    {
                        upstream.cancel();
                    }
                }

                @Override
                public void onError(final Throwable error)
                {
                    if (!stopped)
                    {
                        downstream.onError(error);
                    }
                }

                @Override
                public void onComplete()
                {
                    if (!stopped)
                    {
                        downstream.onComplete();
                    }
                }
            });
        }
    }

    /**
     * Sends what {@code source} publishes into {@code flow}, each value encoded as {@code type} and counted in
     * {@code sent}; {@code source} completing ends this side's direction, failing ends the stream (as
     * {@link io.xio.engine.flow.StreamSubscriber} says). Subscribes now.
     */
    public static void send(final Publisher<?> source, final FlowStream flow, final XioCodec codec, final Type type,
        final AtomicLong sent)
    {
        Flux.from(source).map(value ->
        {
            final Outbound message = StreamMessages.encode(codec, value, type);
            sent.incrementAndGet();
            return message;
        }).subscribe(FlowAdapters.toSubscriber(flow.subscriber()));
    }

    /** Whether {@code value} is a Reactive Streams {@link Publisher} (a {@code Flux}, a {@code Mono}). */
    public static boolean isPublisher(final @Nullable Object value)
    {
        return value instanceof Publisher<?>;
    }

    /** {@code mono}'s value as a future, which cancels its subscription when cancelled. */
    public static CompletableFuture<?> toFuture(final Object mono)
    {
        return ((Mono<?>)mono).toFuture();
    }

    /**
     * An ordinary call returning a {@code Mono}: the call made when subscribed, through {@code call}, and cancelled
     * when the subscription is.
     */
    public static Mono<?> mono(final java.util.function.Supplier<CompletableFuture<?>> call)
    {
        return Mono.fromFuture(call, false);
    }
}
