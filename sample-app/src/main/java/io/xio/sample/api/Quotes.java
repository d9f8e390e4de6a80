package io.xio.sample.api;

import reactor.core.publisher.Flux;

/**
 * A quotes feed: each subscription to {@link #quotes} is a stream of its own, and its subscriber's demand is the
 * stream's credit, so the server makes quotes only as fast as that subscriber takes them.
 */
public interface Quotes
{
    /**
     * Quotes of {@code symbol} for ever, made as the subscriber asks for them; cancelling the subscription ends the
     * stream. {@code feed} names this subscription for {@link #producer}.
     */
    Flux<Quote> quotes(String symbol, String feed);

    /** What the server's producer of {@code feed} has done so far, or null when the server knows no such feed. */
    Producer producer(String feed);

    /** One price of one symbol, the {@code seq}-th of its feed. */
    record Quote(String symbol, long seq, double price)
    {
    }

    /** How many quotes the producer of a feed made, and whether it saw its subscriber cancel. */
    record Producer(String feed, long produced, boolean cancelled)
    {
    }
}
