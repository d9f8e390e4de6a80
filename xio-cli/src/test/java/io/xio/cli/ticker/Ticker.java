package io.xio.cli.ticker;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The stream methods the command line is tried on: server streams it calls, client and bidi streams it refuses. */
public interface Ticker
{
    record Tick(String symbol, long seq)
    {
    }

    /** The first {@code count} ticks of {@code symbol}, in order. */
    Flux<Tick> ticks(String symbol, int count);

    /** Ticks of {@code symbol} for ever: one each {@code pauseMillis}, or as fast as asked for when 0. */
    Flux<Tick> endless(String symbol, long pauseMillis);

    /** {@code before} ticks, then a failure its caller may read, {@code why}. */
    Flux<Tick> failing(String why, int before) throws IllegalStateException;

    /** {@code count} chunks of bytes, chunk {@code i} being {@code i + 1} bytes of {@code i}: data messages. */
    Flux<byte[]> chunks(int count);

    /** How many ticks were sent (client streaming). */
    Mono<Long> count(Flux<Tick> ticks);

    /** The ticks sent, back (bidirectional). */
    Flux<Tick> echo(Flux<Tick> ticks);
}
