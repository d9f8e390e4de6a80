package io.xio.sample.server;

import io.xio.annotation.XioService;
import io.xio.sample.api.Quotes;
import org.springframework.context.annotation.Profile;
import reactor.core.publisher.Flux;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server side of the quotes feed: each feed makes a quote only when its stream asks for one, which is when its
 * subscriber's demand, through the stream's credit, reaches here. Counts what each feed produced and whether it saw a
 * cancel, for the last {@link #FEEDS_KEPT} feeds. Runs inline on the context thread: nothing here blocks.
 */
@XioService(value = "quotes", dispatch = XioService.Dispatch.INLINE)
@Profile("!client")
public class QuotesService implements Quotes
{
    /** Feeds whose counts are kept; the oldest is forgotten when one more opens. */
    static final int FEEDS_KEPT = 64;

    private final Map<String, Counts> feeds = new LinkedHashMap<>()
    {
        @Override
        protected boolean removeEldestEntry(final Map.Entry<String, Counts> eldest)
        {
            return size() > FEEDS_KEPT;
        }
    };

    @Override
    public Flux<Quote> quotes(final String symbol, final String feed)
    {
        final Counts counts = new Counts();
        synchronized (feeds)
        {
            feeds.put(feed, counts);
        }
        // The state is the next quote: generate makes one per quote requested, never ahead of demand.
        return Flux.<Quote, Quote>generate(() -> new Quote(symbol, 0, 100.0), (quote, sink) ->
        {
            sink.next(quote);
            counts.produced.incrementAndGet();
            return new Quote(symbol, quote.seq() + 1, step(quote.price()));
        }).doOnCancel(() -> counts.cancelled = true);
    }

    @Override
    public Producer producer(final String feed)
    {
        final Counts counts;
        synchronized (feeds)
        {
            counts = feeds.get(feed);
        }
        return counts == null ? null : new Producer(feed, counts.produced.get(), counts.cancelled);
    }

    /** A random walk of a cent at a time, never below a cent. */
    private static double step(final double price)
    {
        final double next = price + (ThreadLocalRandom.current().nextBoolean() ? 0.01 : -0.01);
        return Math.max(0.01, Math.round(next * 100) / 100.0);
    }

    /** What one feed's producer did. */
    private static final class Counts
    {
        private final AtomicLong produced = new AtomicLong();
        private volatile boolean cancelled;
    }
}
