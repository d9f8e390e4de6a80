package io.xio.sample.client;

import io.xio.engine.XioEngine;
import io.xio.sample.SampleProperties;
import io.xio.sample.api.Quotes;
import org.springframework.context.annotation.Profile;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The demo's quotes feed: two subscribers read it at once, each on a stream of its own, for {@code sample.feed.time}:
 * a slow one that takes a quote a millisecond and a fast one that takes everything it gets. Then it asks the server
 * what each stream's producer made, cancels both and waits until the producers saw the cancel. A subscriber's demand
 * is its stream's credit, so the slow one's producer stays at most the stream's window (and the prefetch on either
 * side) ahead of it, while the fast one's runs as fast as the connection carries quotes. {@link LoadRunner} runs it
 * after its rounds; only in the demo that runs both sides in one JVM. Thread-safe.
 */
@Component
@Profile("!cluster & !server & !client")
public class FeedRunner
{
    /** How long a producer may take to see its subscriber's cancel before the demo gives up waiting. */
    private static final Duration CANCEL_WAIT = Duration.ofSeconds(5);
    private static final String SYMBOL = "XIO";

    private final SampleProperties properties;
    private final Quotes quotes;
    private final String uri;
    private final int window;
    private final AtomicInteger runs = new AtomicInteger();
    private final List<Report> reports = new ArrayList<>();
    private final PrintStream out = System.out;

    /** @param engine the engine whose stream window (a receiver's) bounds what a producer makes ahead */
    public FeedRunner(final SampleProperties properties, final Environment environment, final QuotesClient quotes,
        final XioEngine engine)
    {
        this.properties = properties;
        this.quotes = quotes;
        this.uri = environment.getProperty("xio.clients.quotes.uri", "?");
        this.window = engine.limits().streams().windowMessages();
    }

    /**
     * One subscriber's stream: what the subscriber received and what its producer had made, both counted while the
     * stream ran, and the producer as the server told it once it saw the cancel.
     */
    public record Subscriber(String name, long received, double receivedPerSecond, long produced,
        Quotes.Producer afterCancel)
    {
        /** Quotes the producer had made that the subscriber had not taken, as counted. */
        public long ahead()
        {
            return produced - received;
        }
    }

    /** What one reading of the feed measured; {@code window} is a stream's receive window in messages. */
    public record Report(String uri, Duration time, int window, Subscriber slow, Subscriber fast)
    {
    }

    /** The reports of the readings so far. */
    public synchronized List<Report> reports()
    {
        return List.copyOf(reports);
    }

    /**
     * Reads the feed with both subscribers, counts, cancels both, waits until the producers saw it, prints the table.
     * Blocks for {@code sample.feed.time} and a little more: not on a context thread.
     */
    public Report run() throws InterruptedException
    {
        final int run = runs.incrementAndGet();
        final Reading slow = new Reading("slow-" + run);
        final Reading fast = new Reading("fast-" + run);
        final Duration time = properties.getFeed().getTime();
        final long start = System.nanoTime();
        // A quote a millisecond at most: delayElements waits on Reactor's timer, so the slow one blocks no thread.
        slow.subscribe(quotes.quotes(SYMBOL, slow.feed).delayElements(Duration.ofMillis(1)));
        fast.subscribe(quotes.quotes(SYMBOL, fast.feed));
        final double seconds;
        final long slowProduced;
        final long slowReceived;
        final long fastReceived;
        final long fastProduced;
        try
        {
            Thread.sleep(time.toMillis());
            seconds = (System.nanoTime() - start) / 1e9;
            // Counted while both streams run, each pair in the order that keeps it sound: the slow producer's count
            // before its subscriber's, so that credit bounds it by what the subscriber had taken by then; the fast
            // subscriber's before its producer's, which it then cannot have passed.
            slowProduced = slow.produced();
            slowReceived = slow.received.get();
            fastReceived = fast.received.get();
            fastProduced = fast.produced();
        }
        finally
        {
            slow.cancel();
            fast.cancel();
        }
        final Report report = new Report(uri, time, window,
            new Subscriber("slow, 1/ms", slowReceived, slowReceived / seconds, slowProduced, slow.afterCancel()),
            new Subscriber("fast", fastReceived, fastReceived / seconds, fastProduced, fast.afterCancel()));
        synchronized (this)
        {
            reports.add(report);
        }
        print(report);
        return report;
    }

    private void print(final Report report)
    {
        out.printf(Locale.ROOT, "quotes -> %s: a slow and a fast subscriber at once for %.1f s, a stream each%n",
            report.uri(), report.time().toMillis() / 1000.0);
        out.printf("%-12s %12s %12s %12s  %s%n", "subscriber", "received", "quotes/s", "produced",
            "producer saw cancel");
        row(report.slow());
        row(report.fast());
        out.printf(Locale.ROOT, "credit held the slow one's producer to %,d quotes ahead of it (a stream's window is " +
            "%,d, plus prefetch)%n", report.slow().ahead(), report.window());
    }

    private void row(final Subscriber subscriber)
    {
        out.printf(Locale.ROOT, "%-12s %,12d %,12.0f %,12d  %s%n", subscriber.name(), subscriber.received(),
            subscriber.receivedPerSecond(), subscriber.produced(), subscriber.afterCancel().cancelled() ? "yes" : "no");
    }

    /** One subscriber of the feed, named {@code feed} on the server. */
    private final class Reading
    {
        private final String feed;
        private final AtomicLong received = new AtomicLong();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private Disposable subscription;

        Reading(final String feed)
        {
            this.feed = feed;
        }

        void subscribe(final Flux<Quotes.Quote> flux)
        {
            subscription = flux.subscribe(quote -> received.incrementAndGet(), failure::set);
        }

        void cancel()
        {
            subscription.dispose();
        }

        /** What its producer has made so far; throws if the stream failed. */
        long produced()
        {
            final Throwable failed = failure.get();
            if (failed != null)
            {
                throw new IllegalStateException("the quotes feed " + feed + " failed", failed);
            }
            final Quotes.Producer producer = quotes.producer(feed);
            if (producer == null)
            {
                throw new IllegalStateException("the server knows no quotes feed " + feed);
            }
            return producer.produced();
        }

        /** The producer once it saw the cancel, or as it is when it has not after {@link #CANCEL_WAIT}. */
        Quotes.Producer afterCancel() throws InterruptedException
        {
            final long deadline = System.nanoTime() + CANCEL_WAIT.toNanos();
            Quotes.Producer producer = quotes.producer(feed);
            while (!producer.cancelled() && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
                producer = quotes.producer(feed);
            }
            return producer;
        }
    }
}
