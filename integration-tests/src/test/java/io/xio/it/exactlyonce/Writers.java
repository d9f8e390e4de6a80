package io.xio.it.exactlyonce;

import io.xio.cluster.ServiceClient;
import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.XioTimeoutException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Writer threads that keep a continuous load of non-idempotent writes on a {@link ServiceClient}, one call at a time
 * each, every write with an id of its own in its body, and remember what each write's caller saw: the server that
 * answered, or the failure (whatever it is: a writer goes on after any). {@link #stop} fails if a writer had died
 * all the same. Started and stopped by the test's thread; the counts from any thread.
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

        /**
         * Whether the failure says the write may have run: a {@link ConnectionException} written to a connection, or
         * a timeout of a write its server may have held past the deadline.
         */
        boolean mayHaveRun()
        {
            return failure instanceof ConnectionException lost && lost.mayHaveRun() ||
                failure instanceof XioTimeoutException late && late.mayHaveRun();
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
    private final AtomicLongArray completed;
    private final Map<String, Throwable> deaths = new ConcurrentHashMap<>();
    private volatile boolean running = true;

    /**
     * @param prefix starts every write id of this load, so that ids are unique across loads
     */
    Writers(final ServiceClient client, final CallOptions options, final String prefix, final int count)
    {
        this.client = client;
        this.options = options;
        this.prefix = prefix;
        this.completed = new AtomicLongArray(count);
        for (int i = 0; i < count; i++)
        {
            final List<Outcome> mine = new ArrayList<>();
            outcomes.add(mine);
            final int writer = i;
            final Thread thread = new Thread(() -> write(writer, mine), "writer-" + prefix + "-" + i);
            thread.setDaemon(true);
            thread.setUncaughtExceptionHandler((dead, ex) -> deaths.put(dead.getName(), ex));
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
            catch (final Throwable ex)
            {
                outcome = new Outcome(writeId, null, ex); // a call that threw: a failure of it, counted as any
                failed.incrementAndGet();
            }
            synchronized (mine)
            {
                mine.add(outcome);
            }
            completed.incrementAndGet(writer);
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

    /** How many calls each writer has completed (answered or failed) so far, by writer. */
    long[] completions()
    {
        final long[] now = new long[completed.length()];
        for (int i = 0; i < now.length; i++)
        {
            now[i] = completed.get(i);
        }
        return now;
    }

    /** Whether every writer has completed a call since {@code before} ({@link #completions()}). */
    boolean eachCompletedSince(final long[] before)
    {
        for (int i = 0; i < before.length; i++)
        {
            if (completed.get(i) <= before[i])
            {
                return false;
            }
        }
        return true;
    }

    /** Writes {@code server} answered so far. */
    long answeredBy(final String server)
    {
        final AtomicLong count = answersByServer.get(server);
        return count == null ? 0 : count.get();
    }

    /**
     * Stops the load: each writer ends its call in flight (within its deadline) and stops; returns every write's
     * outcome, each writer's in order. Fails if a writer was no longer running when asked to stop.
     */
    List<Outcome> stop(final Duration wait) throws InterruptedException
    {
        final List<String> dead = threads.stream().filter(thread -> !thread.isAlive())
            .map(thread -> thread.getName() + " (" + deaths.get(thread.getName()) + ")").toList();
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
        if (!dead.isEmpty())
        {
            final IllegalStateException died = new IllegalStateException("writers had died before the stop: " + dead);
            deaths.values().forEach(died::addSuppressed);
            throw died;
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
