package io.xio.it.exactlyonce;

import io.xio.cluster.ServiceClient;
import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.Message;
import io.xio.engine.Outbound;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writer threads that keep a continuous load of non-idempotent writes on a {@link ServiceClient}, one call at a time
 * each, every write with an id of its own in its body, and remember what each write's caller saw: the server that
 * answered, or the failure. Started and stopped by the test's thread; the counts from any thread.
 */
final class Writers
{
    /** What one write's caller saw. */
    record Outcome(String writeId, String answeredBy, Throwable failure)
    {
        boolean succeeded()
        {
            return failure == null;
        }

        /** Whether the failure says the write may have run: a {@link ConnectionException} written to a connection. */
        boolean mayHaveRun()
        {
            return failure instanceof ConnectionException lost && lost.mayHaveRun();
        }
    }

    private final ServiceClient client;
    private final CallOptions options;
    private final String prefix;
    private final List<Thread> threads = new ArrayList<>();
    private final List<List<Outcome>> outcomes = new ArrayList<>();
    private final Map<String, AtomicLong> answersByServer = new ConcurrentHashMap<>();
    private final AtomicLong succeeded = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile boolean running = true;

    /**
     * @param prefix starts every write id of this load, so that ids are unique across loads
     */
    Writers(final ServiceClient client, final CallOptions options, final String prefix, final int count)
    {
        this.client = client;
        this.options = options;
        this.prefix = prefix;
        for (int i = 0; i < count; i++)
        {
            final List<Outcome> mine = new ArrayList<>();
            outcomes.add(mine);
            final int writer = i;
            final Thread thread = new Thread(() -> write(writer, mine), "writer-" + prefix + "-" + i);
            thread.setDaemon(true);
            threads.add(thread);
        }
    }

    void start()
    {
        threads.forEach(Thread::start);
    }

    private void write(final int writer, final List<Outcome> mine)
    {
        for (long sequence = 0; running; sequence++)
        {
            final String writeId = prefix + "-" + writer + "-" + sequence;
            final byte[] body = writeId.getBytes(StandardCharsets.UTF_8);
            Outcome outcome;
            try (Message response = client.request(Outbound.of(body), options).get())
            {
                final String server = new String(response.headerBytes(), StandardCharsets.UTF_8);
                outcome = new Outcome(writeId, server, null);
                answersByServer.computeIfAbsent(server, s -> new AtomicLong()).incrementAndGet();
                succeeded.incrementAndGet();
            }
            catch (final ExecutionException ex)
            {
                outcome = new Outcome(writeId, null, ex.getCause());
                failed.incrementAndGet();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                outcome = new Outcome(writeId, null, ex);
                failed.incrementAndGet();
                running = false;
            }
            synchronized (mine)
            {
                mine.add(outcome);
            }
        }
    }

    long succeeded()
    {
        return succeeded.get();
    }

    long failed()
    {
        return failed.get();
    }

    /** Writes {@code server} answered so far. */
    long answeredBy(final String server)
    {
        final AtomicLong count = answersByServer.get(server);
        return count == null ? 0 : count.get();
    }

    /**
     * Stops the load: each writer ends its call in flight (within its deadline) and stops; returns every write's
     * outcome, each writer's in order.
     */
    List<Outcome> stop(final Duration wait) throws InterruptedException
    {
        running = false;
        final long end = System.nanoTime() + wait.toNanos();
        for (final Thread thread : threads)
        {
            thread.join(Math.max(1, (end - System.nanoTime()) / 1_000_000));
            if (thread.isAlive())
            {
                thread.interrupt();
                thread.join(5_000);
                throw new IllegalStateException(thread.getName() + " still waited for its call after " + wait);
            }
        }
        final List<Outcome> all = new ArrayList<>();
        for (final List<Outcome> mine : outcomes)
        {
            synchronized (mine)
            {
                all.addAll(mine);
            }
        }
        return all;
    }
}
