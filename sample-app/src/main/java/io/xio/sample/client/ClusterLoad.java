package io.xio.sample.client;

import io.xio.sample.SampleProperties;
import io.xio.sample.api.BlobStore;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The client side of the cluster profile: continuous load on every server of the service until stopped. Writer
 * threads call {@link BlobStore#write} (not idempotent) with ids of this client's name and a sequence, one call at a
 * time each; reader threads call {@link BlobStore#get} (idempotent, so xio retries it on another server when its own
 * goes away). Counts sent, succeeded and failed calls of each kind, keeps the sequences of failed writes (the first
 * {@link #FAILED_KEPT}) and the failure messages, prints them as a {@code cluster load:} line every
 * {@code sample.cluster.report-every}, and shows them on {@code /actuator/load}, where a POST of
 * {@code {"running": false}} pauses the load (returning once no call is in flight) and {@code true} resumes it.
 * Thread-safe.
 */
@Component
@Profile("!server")
@ConditionalOnProperty(prefix = "sample.cluster", name = "enabled", havingValue = "true")
public class ClusterLoad implements ApplicationListener<ApplicationReadyEvent>, SmartLifecycle
{
    /** Sequences of failed writes kept for the report. */
    public static final int FAILED_KEPT = 1000;
    private static final int REASONS_KEPT = 20;
    private static final int READ_KEYS = 1000;

    private final SampleProperties properties;
    private final BlobStore store;
    private final String name;
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicLong writesSent = new AtomicLong();
    private final AtomicLong writesOk = new AtomicLong();
    private final AtomicLong writesFailed = new AtomicLong();
    private final AtomicLong readsSent = new AtomicLong();
    private final AtomicLong readsOk = new AtomicLong();
    private final AtomicLong readsFailed = new AtomicLong();
    private final List<Long> failedWrites = new ArrayList<>();
    private final Map<String, Long> failures = new LinkedHashMap<>();
    private final List<Thread> lanes = new ArrayList<>();
    private volatile boolean running;
    private volatile boolean started;
    private Thread reporter;

    /** @param store the store, a service in this profile ({@code xio.clients.blobs.service-id}) */
    public ClusterLoad(final SampleProperties properties, final BlobsClient store)
    {
        this.properties = properties;
        this.store = store;
        this.name = properties.getName();
    }

    /**
     * The counts so far. Sent calls are the succeeded, the failed and those in flight.
     *
     * @param failedWriteSequences the sequences of the first {@link #FAILED_KEPT} failed writes
     * @param failures each failure message with its count (the first few messages)
     */
    public record Stats(String client, boolean running, long writesSent, long writesOk, long writesFailed,
        long readsSent, long readsOk, long readsFailed, List<Long> failedWriteSequences, Map<String, Long> failures)
    {
        /** The parsable line printed every report interval. */
        public String line()
        {
            return "cluster load: client=" + client + " running=" + running + " writes sent=" + writesSent + " ok=" +
                writesOk + " failed=" + writesFailed + " reads sent=" + readsSent + " ok=" + readsOk + " failed=" +
                readsFailed;
        }
    }

    /** Starts the load when the application is ready, so health and the actuator are up first. */
    @Override
    public void onApplicationEvent(final ApplicationReadyEvent event)
    {
        synchronized (this)
        {
            reporter = new Thread(this::report, "xio-sample-cluster-report");
            reporter.setDaemon(true);
            reporter.start();
        }
        resume();
    }

    /** The counts so far; any thread. */
    public Stats stats()
    {
        synchronized (failedWrites)
        {
            return new Stats(name, running, writesSent.get(), writesOk.get(), writesFailed.get(), readsSent.get(),
                readsOk.get(), readsFailed.get(), List.copyOf(failedWrites), Map.copyOf(failures));
        }
    }

    /** Starts the writer and reader threads unless they run. */
    public synchronized void resume()
    {
        if (running || reporter == null) // not before the application is ready
        {
            return;
        }
        running = true;
        final SampleProperties.Cluster cluster = properties.getCluster();
        for (int i = 0; i < cluster.getWriters(); i++)
        {
            lane("xio-sample-writer-" + i, this::writeOnce);
        }
        for (int i = 0; i < cluster.getReaders(); i++)
        {
            lane("xio-sample-reader-" + i, this::readOnce);
        }
    }

    /** Stops the threads and returns once each has finished its call in flight. */
    public synchronized void pause() throws InterruptedException
    {
        running = false;
        for (final Thread lane : lanes)
        {
            lane.join();
        }
        lanes.clear();
        System.out.println(stats().line());
    }

    @Override
    public void start()
    {
        started = true;
    }

    /** Stops the load before the xio clients close, so shutting down fails no call. */
    @Override
    public void stop()
    {
        started = false;
        try
        {
            pause();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean isRunning()
    {
        return started;
    }

    /** Stopped before anything else: the phase of everything the load calls is lower. */
    @Override
    public int getPhase()
    {
        return Integer.MAX_VALUE;
    }

    private void lane(final String threadName, final Runnable call)
    {
        final long pause = properties.getCluster().getPause().toNanos();
        final Thread lane = new Thread(() ->
        {
            while (running)
            {
                call.run();
                if (pause > 0)
                {
                    LockSupport.parkNanos(pause);
                }
            }
        }, threadName);
        lanes.add(lane);
        lane.start();
    }

    private void writeOnce()
    {
        final long id = sequence.getAndIncrement();
        writesSent.incrementAndGet();
        try
        {
            store.write(name, id);
            writesOk.incrementAndGet();
        }
        catch (final RuntimeException ex)
        {
            writesFailed.incrementAndGet();
            failed(id, ex);
        }
    }

    private void readOnce()
    {
        readsSent.incrementAndGet();
        try
        {
            store.get(name + "-" + ThreadLocalRandom.current().nextInt(READ_KEYS));
            readsOk.incrementAndGet();
        }
        catch (final RuntimeException ex)
        {
            readsFailed.incrementAndGet();
            failed(-1, ex);
        }
    }

    private void failed(final long writeSequence, final RuntimeException ex)
    {
        final String reason = (writeSequence < 0 ? "read: " : "write: ") + ex;
        synchronized (failedWrites)
        {
            if (writeSequence >= 0 && failedWrites.size() < FAILED_KEPT)
            {
                failedWrites.add(writeSequence);
            }
            if (failures.containsKey(reason) || failures.size() < REASONS_KEPT)
            {
                failures.merge(reason, 1L, Long::sum);
            }
        }
    }

    private void report()
    {
        final long every = properties.getCluster().getReportEvery().toNanos();
        while (!Thread.currentThread().isInterrupted())
        {
            LockSupport.parkNanos(every);
            System.out.println(stats().line());
        }
    }
}
