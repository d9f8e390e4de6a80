package io.xio.spring.stream;

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
import java.util.concurrent.atomic.AtomicLong;

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
            final Object value = StreamMessages.decode(codec, message, type);
            if (value == null)
            {
                throw new IllegalArgumentException("a stream message of " + type.getTypeName() + " is null");
            }
            return value;
        });
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
