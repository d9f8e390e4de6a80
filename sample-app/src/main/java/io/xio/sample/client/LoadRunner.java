package io.xio.sample.client;

import io.xio.annotation.XioClient;
import io.xio.sample.SampleProperties;
import io.xio.sample.api.BlobStore;
import io.xio.sample.api.Checksums;
import org.HdrHistogram.Histogram;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Profile;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client side of the sample: for each client {@code sample.clients} names, stores values (one-way with a
 * delivery receipt), reads each back and verifies it, keeps many reads in flight for a while, then compares the
 * server's summary. Prints a progress line while it runs, a latency table, then (in the demo that runs both sides)
 * the quotes feed's table ({@link FeedRunner}) and the exactly-once payments' counts ({@link PaymentsRunner}), and
 * where to look next (the actuator endpoints). A value read back
 * wrongly fails the load (the process exits non-zero); a failed round is retried {@code sample.retries} times. The
 * cluster profile runs {@link ClusterLoad} instead. The clients are the {@code @XioClient} beans it is given, each
 * known by its {@code @XioClient} name.
 */
@Component
@Profile("!server")
@ConditionalOnProperty(prefix = "sample.cluster", name = "enabled", havingValue = "false", matchIfMissing = true)
public class LoadRunner implements ApplicationListener<ApplicationReadyEvent>
{
    private static final long PROGRESS_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final SampleProperties properties;
    private final Environment environment;
    private final Map<String, BlobStore> clients = new LinkedHashMap<>();
    private final ObjectProvider<FeedRunner> feed;
    private final ObjectProvider<PaymentsRunner> payments;
    private final List<Report> reports = new ArrayList<>();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final PrintStream out = System.out;
    /** Progress redraws one line, which only makes sense on a terminal (not in a log file or a container's log). */
    private final boolean terminal = System.console() != null;

    /**
     * @param blobs the store over {@code xio.clients.blobs}
     * @param shm the store over shared memory, where a profile has it ({@code xio.clients.blobs-shm})
     * @param feed the quotes feed's two subscribers, where a profile has them
     * @param payments the exactly-once payments, where a profile has them
     */
    public LoadRunner(final SampleProperties properties, final Environment environment, final BlobsClient blobs,
        final ObjectProvider<ShmBlobsClient> shm, final ObjectProvider<FeedRunner> feed,
        final ObjectProvider<PaymentsRunner> payments)
    {
        this.properties = properties;
        this.environment = environment;
        this.feed = feed;
        this.payments = payments;
        clients.put(name(BlobsClient.class), blobs);
        shm.ifAvailable(store -> clients.put(name(ShmBlobsClient.class), store));
    }

    /** What one client's load measured. */
    public record Report(String client, String uri, Histogram puts, Histogram gets, double readsPerSecond,
        long verified, long mismatches, BlobStore.Summary summary)
    {
    }

    /** The reports of the runs so far. */
    public synchronized List<Report> reports()
    {
        return List.copyOf(reports);
    }

    /** Completes when the load (and the linger after it) is over. */
    public CompletableFuture<Void> done()
    {
        return done;
    }

    /** Starts the load once the application is ready, on a thread of its own, so health shows it as ready. */
    @Override
    public void onApplicationEvent(final ApplicationReadyEvent event)
    {
        final Thread thread = new Thread(() ->
        {
            try
            {
                run();
                done.complete(null);
            }
            catch (final Throwable ex)
            {
                out.println("load failed: " + ex.getMessage());
                for (Throwable cause = ex.getCause(); cause != null; cause = cause.getCause())
                {
                    out.println("  because: " + cause);
                }
                done.completeExceptionally(ex);
            }
        }, "xio-sample-load");
        thread.start();
    }

    private void run() throws Exception
    {
        final List<BlobStore> stores = new ArrayList<>();
        for (final String client : properties.getClients())
        {
            final BlobStore store = clients.get(client);
            if (store == null)
            {
                throw new IllegalStateException("sample.clients names " + client + ", which is none of the " +
                    "clients here: " + clients.keySet());
            }
            stores.add(store);
        }
        for (int round = 1; properties.getRounds() == 0 || round <= properties.getRounds(); round++)
        {
            for (int i = 0; i < stores.size(); i++)
            {
                final String client = properties.getClients().get(i);
                final String uri = environment.getProperty("xio.clients." + client + ".uri", "?");
                for (int retry = 0; !loadOnce(round, client, uri, stores.get(i)); retry++)
                {
                    if (properties.getRetries() >= 0 && retry >= properties.getRetries())
                    {
                        throw new IllegalStateException("round " + round + ": " + client + " -> " + uri +
                            " failed " + (retry + 1) + " times (sample.retries=" + properties.getRetries() + ")");
                    }
                    Thread.sleep(properties.getRoundPause().toMillis());
                }
            }
            if (properties.getRounds() != 1)
            {
                Thread.sleep(properties.getRoundPause().toMillis());
            }
        }
        final FeedRunner quotes = feed.getIfAvailable();
        if (quotes != null && !properties.getFeed().getTime().isZero())
        {
            quotes.run();
        }
        final PaymentsRunner paid = payments.getIfAvailable();
        if (paid != null && properties.getPayments().getOrders() > 0)
        {
            paid.run();
        }
        final String port = environment.getProperty("local.server.port");
        if (port != null)
        {
            final String base = "http://localhost:" + port + "/actuator";
            out.printf("%nActuator: %s/health  %s/xio  %s/metrics/xio.client.requests  %s/prometheus%n",
                base, base, base, base);
        }
        if (properties.getLinger().isNegative())
        {
            out.println("Running until stopped (Ctrl-C).");
        }
        else if (!properties.getLinger().isZero())
        {
            out.printf("Staying up for %d s so you can read them (Ctrl-C to stop now).%n",
                properties.getLinger().toSeconds());
            Thread.sleep(properties.getLinger().toMillis());
        }
    }

    /** One round for one client; false if it failed (the server down, say): that was reported, try again. */
    private boolean loadOnce(final int round, final String client, final String uri, final BlobStore store)
        throws InterruptedException
    {
        try
        {
            final Report report = load(client, uri, store);
            synchronized (this)
            {
                if (reports.size() == 100)
                {
                    reports.remove(0);
                }
                reports.add(report);
            }
            out.printf("round %d: ", round);
            print(report);
            if (report.mismatches() > 0)
            {
                // Not retried: the store answered, wrongly; the process exits non-zero (BlobStoreApplication).
                throw new MismatchException("round " + round + ": " + client + " -> " + uri + ": " +
                    report.mismatches() + " of " + properties.getValues() + " values read back mismatched");
            }
            return true;
        }
        catch (final InterruptedException | MismatchException ex)
        {
            throw ex;
        }
        catch (final Exception ex)
        {
            out.printf("round %d: %s -> %s failed: %s; retrying%n", round, client, uri, ex);
            return false;
        }
    }

    private Report load(final String client, final String uri, final BlobStore store) throws Exception
    {
        final int count = properties.getValues();
        final ByteBuffer value = ByteBuffer.allocateDirect(properties.getValueSize());
        final Histogram puts = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        final Histogram gets = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        final long[] expected = new long[count];
        long lastProgress = 0;
        for (int i = 0; i < count; i++)
        {
            fill(value, i);
            expected[i] = Checksums.crc(value);
            final long start = System.nanoTime();
            store.put(key(client, i), value);
            final long end = System.nanoTime();
            puts.recordValue(end - start);
            lastProgress = progress(client, "put", i + 1, count, end, lastProgress);
        }
        long verified = 0;
        long mismatches = 0;
        for (int i = 0; i < count; i++)
        {
            final long start = System.nanoTime();
            final ByteBuffer read = store.get(key(client, i));
            final long end = System.nanoTime();
            gets.recordValue(end - start);
            if (read != null && Checksums.crc(read) == expected[i])
            {
                verified++;
            }
            else
            {
                mismatches++;
            }
            lastProgress = progress(client, "get", i + 1, count, end, lastProgress);
        }
        final double rate = throughput(client, store, count);
        final BlobStore.Summary summary = store.summary();
        if (terminal)
        {
            out.print("\r" + " ".repeat(60) + "\r");
        }
        return new Report(client, uri, puts, gets, rate, verified, mismatches, summary);
    }

    /** Reads with many in flight: each completion starts the next read until the time is up. */
    private double throughput(final String client, final BlobStore store, final int count) throws Exception
    {
        final long end = System.nanoTime() + properties.getThroughputTime().toNanos();
        final AtomicLong done = new AtomicLong();
        final List<CompletableFuture<Void>> chains = new ArrayList<>();
        final long start = System.nanoTime();
        for (int lane = 0; lane < properties.getOutstanding(); lane++)
        {
            final CompletableFuture<Void> chain = new CompletableFuture<>();
            next(store, client, lane, count, end, done, chain);
            chains.add(chain);
        }
        long lastProgress = 0;
        while (!CompletableFuture.allOf(chains.toArray(CompletableFuture[]::new)).isDone())
        {
            Thread.sleep(50);
            final long now = System.nanoTime();
            if (terminal && now - lastProgress > PROGRESS_NANOS)
            {
                out.printf(Locale.ROOT, "\r%s: %,d reads with %d in flight...   ", client, done.get(),
                    properties.getOutstanding());
                lastProgress = now;
            }
        }
        CompletableFuture.allOf(chains.toArray(CompletableFuture[]::new)).get();
        return done.get() / ((System.nanoTime() - start) / 1e9);
    }

    private static void next(final BlobStore store, final String client, final int i, final int count, final long end,
        final AtomicLong done, final CompletableFuture<Void> chain)
    {
        if (System.nanoTime() >= end)
        {
            chain.complete(null);
            return;
        }
        store.getAsync(key(client, i % count)).whenComplete((value, failure) ->
        {
            if (failure != null)
            {
                chain.completeExceptionally(failure);
                return;
            }
            done.incrementAndGet();
            next(store, client, i + 1, count, end, done, chain);
        });
    }

    private long progress(final String client, final String phase, final int done, final int count, final long now,
        final long last)
    {
        if (!terminal || now - last < PROGRESS_NANOS && done < count)
        {
            return last;
        }
        out.printf(Locale.ROOT, "\r%s: %s %,d/%,d   ", client, phase, done, count);
        return now;
    }

    private void print(final Report report)
    {
        out.printf("%s -> %s: %d values of %d B stored and read back, %d verified, %d mismatched%n",
            report.client(), report.uri(), report.puts().getTotalCount(), properties.getValueSize(),
            report.verified(), report.mismatches());
        out.printf("%-14s %9s %9s %9s %9s %9s%n", "", "p50 us", "p90 us", "p99 us", "p99.9 us", "max us");
        row("put (receipt)", report.puts());
        row("get", report.gets());
        out.printf(Locale.ROOT, "reads with %d in flight: %,.0f/s; server %s holds %,d values, %,d bytes%n%n",
            properties.getOutstanding(), report.readsPerSecond(), report.summary().server(),
            report.summary().values(), report.summary().bytes());
    }

    private void row(final String name, final Histogram histogram)
    {
        out.printf(Locale.ROOT, "%-14s %9.1f %9.1f %9.1f %9.1f %9.1f%n", name, us(histogram.getValueAtPercentile(50)),
            us(histogram.getValueAtPercentile(90)), us(histogram.getValueAtPercentile(99)),
            us(histogram.getValueAtPercentile(99.9)), us(histogram.getMaxValue()));
    }

    private static double us(final long nanos)
    {
        return nanos / 1000.0;
    }

    /** Values read back that differ from those stored: the load fails, without a retry. */
    static final class MismatchException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        MismatchException(final String message)
        {
            super(message);
        }
    }

    /** The name an {@code @XioClient} interface's settings are under. */
    private static String name(final Class<?> client)
    {
        return client.getAnnotation(XioClient.class).value();
    }

    private static String key(final String client, final int i)
    {
        return client + "-" + i;
    }

    /** Deterministic bytes per index, so a read can be checked without keeping the values. */
    private static void fill(final ByteBuffer value, final int index)
    {
        long x = 0x9E3779B97F4A7C15L * (index + 1);
        value.clear();
        while (value.remaining() >= 8)
        {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            value.putLong(x);
        }
        while (value.hasRemaining())
        {
            value.put((byte)x);
        }
        value.flip();
    }
}
