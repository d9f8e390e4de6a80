package io.xio.sample;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Settings of the sample application's load generator. */
@ConfigurationProperties("sample")
public class SampleProperties
{
    /** Name this server reports in summaries. */
    private String name = "blobs-1";

    /**
     * The clients the load runs against, one after the other, by their {@code @XioClient} names: {@code blobs}
     * ({@code xio.clients.blobs}), {@code blobs-shm} ({@code xio.clients.blobs-shm}).
     */
    private List<String> clients = List.of("blobs");

    /** Values stored, then read back and verified, per client. */
    private int values = 20_000;

    /** Size of each value in bytes. */
    private int valueSize = 4096;

    /** Reads kept in flight in the throughput phase. */
    private int outstanding = 64;

    /** Length of the throughput phase. */
    private Duration throughputTime = Duration.ofSeconds(3);

    /** Rounds of load per client; 0 repeats until stopped (a failed round is reported and retried). */
    private int rounds = 1;

    /**
     * How often a failed round (the server unreachable, say) is tried again before the load fails; negative: until
     * it succeeds. A round that read back a value other than the one stored fails the load at once.
     */
    private int retries = -1;

    /** Pause between rounds, and before retrying a failed one. */
    private Duration roundPause = Duration.ofSeconds(1);

    /** How long the application stays up after the load so its actuator endpoints can be read; negative: forever. */
    private Duration linger = Duration.ofSeconds(60);

    /** The continuous load of the cluster profile, and the servers' ledger of the writes they executed. */
    private final Cluster cluster = new Cluster();

    /** The quotes feed the demo reads after its load. */
    private final Feed feed = new Feed();

    /** The exactly-once payments the demo makes after the feed. */
    private final Payments payments = new Payments();

    public Cluster getCluster()
    {
        return cluster;
    }

    public Feed getFeed()
    {
        return feed;
    }

    public Payments getPayments()
    {
        return payments;
    }

    public String getName()
    {
        return name;
    }

    public void setName(final String name)
    {
        this.name = name;
    }

    public List<String> getClients()
    {
        return clients;
    }

    public void setClients(final List<String> clients)
    {
        this.clients = clients;
    }

    public int getValues()
    {
        return values;
    }

    public void setValues(final int values)
    {
        if (values < 1)
        {
            throw new IllegalArgumentException("sample.values must be at least 1, not " + values);
        }
        this.values = values;
    }

    public int getValueSize()
    {
        return valueSize;
    }

    public void setValueSize(final int valueSize)
    {
        if (valueSize < 1)
        {
            throw new IllegalArgumentException("sample.value-size must be at least 1 byte, not " + valueSize);
        }
        this.valueSize = valueSize;
    }

    public int getOutstanding()
    {
        return outstanding;
    }

    public void setOutstanding(final int outstanding)
    {
        if (outstanding < 1)
        {
            throw new IllegalArgumentException("sample.outstanding must be at least 1, not " + outstanding);
        }
        this.outstanding = outstanding;
    }

    public Duration getThroughputTime()
    {
        return throughputTime;
    }

    public void setThroughputTime(final Duration throughputTime)
    {
        this.throughputTime = throughputTime;
    }

    public int getRounds()
    {
        return rounds;
    }

    public void setRounds(final int rounds)
    {
        if (rounds < 0)
        {
            throw new IllegalArgumentException("sample.rounds must be 0 (until stopped) or more, not " + rounds);
        }
        this.rounds = rounds;
    }

    public int getRetries()
    {
        return retries;
    }

    public void setRetries(final int retries)
    {
        this.retries = retries;
    }

    public Duration getRoundPause()
    {
        return roundPause;
    }

    public void setRoundPause(final Duration roundPause)
    {
        this.roundPause = roundPause;
    }

    public Duration getLinger()
    {
        return linger;
    }

    public void setLinger(final Duration linger)
    {
        this.linger = linger;
    }

    /** Settings of the quotes feed: a slow and a fast subscriber at once, each on a stream of its own. */
    public static class Feed
    {
        /** How long both subscribers read before they cancel; 0 skips the feed. */
        private Duration time = Duration.ofSeconds(2);

        public Duration getTime()
        {
            return time;
        }

        public void setTime(final Duration time)
        {
            if (time.isNegative())
            {
                throw new IllegalArgumentException("sample.feed.time must not be negative, not " + time);
            }
            this.time = time;
        }
    }

    /** Settings of the exactly-once payments: orders paid once each, then again with the same keys. */
    public static class Payments
    {
        /** Orders paid (each then paid again with its key); 0 skips the payments. */
        private int orders = 100;

        public int getOrders()
        {
            return orders;
        }

        public void setOrders(final int orders)
        {
            if (orders < 0)
            {
                throw new IllegalArgumentException("sample.payments.orders must be 0 (none) or more, not " + orders);
            }
            this.orders = orders;
        }
    }

    /** Settings of the cluster load (client side) and of the write ledger (server side). */
    public static class Cluster
    {
        /** Runs the continuous cluster load instead of the rounds of values (the cluster profile turns it on). */
        private boolean enabled;

        /** Threads that write, one call at a time each: so at most this many writes are in flight. */
        private int writers = 2;

        /** Threads that read, one call at a time each. */
        private int readers = 2;

        /** Pause of each thread between its calls, which bounds the load. */
        private Duration pause = Duration.ofMillis(2);

        /** How often the client prints its counts as a "cluster load:" line. */
        private Duration reportEvery = Duration.ofSeconds(5);

        /**
         * A file the server appends each executed write's id to and reads back when it starts, so its counts
         * survive a restart; none: counts in memory only.
         */
        private Path journal;

        public boolean isEnabled()
        {
            return enabled;
        }

        public void setEnabled(final boolean enabled)
        {
            this.enabled = enabled;
        }

        public int getWriters()
        {
            return writers;
        }

        public void setWriters(final int writers)
        {
            if (writers < 0)
            {
                throw new IllegalArgumentException("sample.cluster.writers must be 0 or more, not " + writers);
            }
            this.writers = writers;
        }

        public int getReaders()
        {
            return readers;
        }

        public void setReaders(final int readers)
        {
            if (readers < 0)
            {
                throw new IllegalArgumentException("sample.cluster.readers must be 0 or more, not " + readers);
            }
            this.readers = readers;
        }

        public Duration getPause()
        {
            return pause;
        }

        public void setPause(final Duration pause)
        {
            if (pause.isNegative())
            {
                throw new IllegalArgumentException("sample.cluster.pause must not be negative, not " + pause);
            }
            this.pause = pause;
        }

        public Duration getReportEvery()
        {
            return reportEvery;
        }

        public void setReportEvery(final Duration reportEvery)
        {
            if (reportEvery.isNegative() || reportEvery.isZero())
            {
                throw new IllegalArgumentException("sample.cluster.report-every must be positive, not " +
                    reportEvery);
            }
            this.reportEvery = reportEvery;
        }

        public Path getJournal()
        {
            return journal;
        }

        public void setJournal(final Path journal)
        {
            this.journal = journal;
        }
    }
}
