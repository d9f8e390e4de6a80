package io.xio.spring.autoconfigure.sample.streams.server;

import io.xio.annotation.XioExceptionHandler;
import io.xio.annotation.XioService;
import io.xio.spring.autoconfigure.sample.streams.api.Quote;
import io.xio.spring.autoconfigure.sample.streams.api.Quotes;
import io.xio.spring.call.XioServerCall;
import io.xio.spring.error.XioError;
import io.xio.spring.error.XioErrorCode;
import org.reactivestreams.Publisher;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** The quotes service: counts what its feeds produced and how many were cancelled, for the tests to see. */
@XioService("quotes")
public class QuotesService implements Quotes
{
    /** Quotes the endless feeds produced: what credit let through. */
    public final AtomicLong produced = new AtomicLong();
    /** Feeds whose subscriber cancelled them: the client cancelled, or the deadline passed. */
    public final AtomicInteger cancelled = new AtomicInteger();

    /** What a failing stream throws after its quotes. */
    public static final class OverdrawnException extends RuntimeException
    {
        public OverdrawnException(final String message)
        {
            super(message);
        }
    }

    @Override
    public Flux<Quote> feed(final String symbol, final int count)
    {
        return Flux.range(0, count).map(i -> new Quote(symbol, i, 100 + i));
    }

    @Override
    public Flux<Quote> endless(final String symbol)
    {
        return Flux.<Quote, Long>generate(() -> 0L, (seq, sink) ->
        {
            produced.incrementAndGet();
            sink.next(new Quote(symbol, seq, 1));
            return seq + 1;
        }).doOnCancel(cancelled::incrementAndGet);
    }

    @Override
    public Flux<Quote> endlessWithDeadline(final String symbol)
    {
        return endless(symbol).delayElements(java.time.Duration.ofMillis(10));
    }

    @Override
    public Mono<Double> total(final Flux<Quote> quotes)
    {
        return quotes.map(Quote::price).reduce(0.0, Double::sum);
    }

    @Override
    public Flux<Quote> doubled(final Flux<Quote> quotes)
    {
        return quotes.map(q -> new Quote(q.symbol(), q.seq(), q.price() * 2));
    }

    @Override
    public Mono<Quote> last(final String symbol)
    {
        return Mono.just(new Quote(symbol, 41, 42));
    }

    @Override
    public Flux<byte[]> chunks(final int count, final int size)
    {
        return Flux.range(0, count).map(i ->
        {
            final byte[] chunk = new byte[size];
            Arrays.fill(chunk, (byte)i.intValue());
            return chunk;
        });
    }

    @Override
    public Flux<java.nio.ByteBuffer> split(final java.nio.ByteBuffer blob, final int parts)
    {
        final int part = blob.remaining() / parts;
        return Flux.range(0, parts).map(i -> blob.slice(blob.position() + i * part, part));
    }

    @Override
    public Flux<Quote> failing(final String kind, final int before)
    {
        return feed("F", before).concatWith(Flux.error(
            "overdrawn".equals(kind) ? new OverdrawnException("overdrawn by 5") : new IllegalStateException(kind)));
    }

    @Override
    public Mono<Long> ignoring(final Flux<Quote> quotes)
    {
        quotes.subscribe(quote -> { }, failure -> { });
        return Mono.never();
    }

    @Override
    public Flux<Quote> hugeTrailers()
    {
        XioServerCall.current().trailers().put("huge", "x".repeat(60_000)); // over the peer's 8 KB
        return feed("H", 1);
    }

    @Override
    public Publisher<Quote> published(final String symbol, final int count)
    {
        return plain(count < 0 ? endless(symbol) : feed(symbol, count));
    }

    @Override
    public Mono<Double> totalPublished(final Publisher<Quote> quotes)
    {
        return total(Flux.from(quotes));
    }

    @Override
    public Publisher<Quote> doubledPublished(final Publisher<Quote> quotes)
    {
        return plain(doubled(Flux.from(quotes)).doOnCancel(cancelled::incrementAndGet));
    }

    /** {@code flux} as a Reactive Streams {@code Publisher} that is not one of Reactor's. */
    public static <T> Publisher<T> plain(final Flux<T> flux)
    {
        return subscriber -> flux.subscribe(subscriber);
    }

    @Override
    public Flux<String> whoAmI()
    {
        final String tenant = XioServerCall.current().metadata().get("tenant");
        return Flux.just("tenant " + tenant).concatWith(ReactiveSecurityContextHolder.getContext()
            .map(context -> "user " + context.getAuthentication().getName()));
    }

    @XioExceptionHandler(OverdrawnException.class)
    XioError overdrawn(final OverdrawnException ex)
    {
        return XioError.of(XioErrorCode.RESOURCE_EXHAUSTED, ex.getMessage());
    }
}
