package io.xio.spring.autoconfigure.sample.streams.api;

import io.xio.annotation.XioMethod;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** A quotes service with a method of every stream shape. */
public interface Quotes
{
    /** The first {@code count} quotes of {@code symbol}, in order (server streaming). */
    Flux<Quote> feed(String symbol, int count);

    /** Quotes of {@code symbol} for ever, as fast as they are asked for. */
    Flux<Quote> endless(String symbol);

    /** As {@link #endless}, with a deadline of 300 ms. */
    @XioMethod(timeout = "300ms")
    Flux<Quote> endlessWithDeadline(String symbol);

    /** The sum of the prices sent (client streaming). */
    Mono<Double> total(Flux<Quote> quotes);

    /** Each quote sent back with its price doubled (bidirectional). */
    Flux<Quote> doubled(Flux<Quote> quotes);

    /** The last quote of {@code symbol}: an ordinary call answered with a {@code Mono}. */
    Mono<Quote> last(String symbol);

    /** {@code count} chunks of {@code size} bytes, chunk {@code i} filled with {@code i}: data messages. */
    Flux<byte[]> chunks(int count, int size);

    /** {@code blob} in {@code parts} equal parts, each a slice of the argument the service was given. */
    Flux<java.nio.ByteBuffer> split(java.nio.ByteBuffer blob, int parts);

    /** {@code before} quotes, then a failure the service's handler maps: {@code "overdrawn"} or any other text. */
    Flux<Quote> failing(String kind, int before);

    /** Quotes it reads on the side, answering never: what it was sent does not reach its answer. */
    Mono<Long> ignoring(Flux<Quote> quotes);

    /** One quote, then trailers larger than any opener takes. */
    Flux<Quote> hugeTrailers();

    /**
     * The first {@code count} quotes of {@code symbol}, or endless ones when {@code count} is negative, as a Reactive
     * Streams {@code Publisher} that is no {@code Flux} (server streaming).
     */
    Publisher<Quote> published(String symbol, int count);

    /** The sum of the prices a {@code Publisher} sent (client streaming). */
    Mono<Double> totalPublished(Publisher<Quote> quotes);

    /** Each quote a {@code Publisher} sent back with its price doubled, in a {@code Publisher} (bidirectional). */
    Publisher<Quote> doubledPublished(Publisher<Quote> quotes);

    /** The caller's tenant (the metadata a client interceptor adds) and who the caller is, as the service sees it. */
    Flux<String> whoAmI();
}
