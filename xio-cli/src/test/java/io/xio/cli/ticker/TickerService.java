package io.xio.cli.ticker;

import io.xio.annotation.XioService;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** The server side of {@link Ticker}, exported as {@code ticker}: counts what its endless feeds did, for the tests. */
@XioService("ticker")
public class TickerService implements Ticker
{
    /** Ticks the endless feeds produced: as many as the callers' credit let through. */
    public final AtomicLong produced = new AtomicLong();
    /** Endless feeds that were cancelled: by their caller, or at their deadline. */
    public final AtomicInteger cancelled = new AtomicInteger();

    @Override
    public Flux<Tick> ticks(final String symbol, final int count)
    {
        return Flux.range(0, count).map(i -> new Tick(symbol, i));
    }

    @Override
    public Flux<Tick> endless(final String symbol, final long pauseMillis)
    {
        final Flux<Tick> ticks = Flux.<Tick, Long>generate(() -> 0L, (seq, sink) ->
        {
            produced.incrementAndGet();
            sink.next(new Tick(symbol, seq));
            return seq + 1;
        });
        return (pauseMillis > 0 ? ticks.delayElements(Duration.ofMillis(pauseMillis)) : ticks)
            .doOnCancel(cancelled::incrementAndGet);
    }

    @Override
    public Flux<Tick> failing(final String why, final int before)
    {
        return ticks("F", before).concatWith(Flux.error(new IllegalStateException(why)));
    }

    @Override
    public Flux<byte[]> chunks(final int count)
    {
        return Flux.range(0, count).map(i ->
        {
            final byte[] chunk = new byte[i + 1];
            Arrays.fill(chunk, (byte)i.intValue());
            return chunk;
        });
    }

    @Override
    public Mono<Long> count(final Flux<Tick> ticks)
    {
        return ticks.count();
    }

    @Override
    public Flux<Tick> echo(final Flux<Tick> ticks)
    {
        return ticks;
    }
}
