package io.xio.cluster;

import org.agrona.concurrent.CachedNanoClock;

import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ClientThread} run by hand on a fake clock: {@link #advance} moves the clock and runs what falls due, in
 * the order it falls due, on the test's thread; nothing runs in real time. Shutting down drops the tasks not yet
 * due, as the production thread does. For one test thread.
 */
final class ManualClientThread implements ClientThread
{
    final CachedNanoClock clock = new CachedNanoClock();
    private final PriorityQueue<Task> tasks = new PriorityQueue<>();
    private long scheduled;
    private boolean shutdown;

    ManualClientThread()
    {
        clock.update(TimeUnit.DAYS.toNanos(1)); // far from zero, as System.nanoTime's readings usually are
    }

    private record Task(long due, long order, Runnable body) implements Comparable<Task>
    {
        @Override
        public int compareTo(final Task other)
        {
            return due != other.due ? Long.compare(due, other.due) : Long.compare(order, other.order);
        }
    }

    @Override
    public void schedule(final long delayNanos, final Runnable task)
    {
        if (!shutdown)
        {
            tasks.add(new Task(clock.nanoTime() + Math.max(0, delayNanos), scheduled++, task));
        }
    }

    @Override
    public void execute(final Runnable task)
    {
        schedule(0, task);
    }

    @Override
    public void shutdown()
    {
        shutdown = true;
        tasks.removeIf(task -> task.due > clock.nanoTime());
    }

    /** Moves the clock on by {@code nanos}, running each task as its time comes; returns how many ran. */
    int advance(final long nanos)
    {
        final long until = clock.nanoTime() + nanos;
        int ran = 0;
        while (!tasks.isEmpty() && tasks.peek().due <= until)
        {
            final Task next = tasks.poll();
            clock.update(Math.max(clock.nanoTime(), next.due));
            next.body.run();
            ran++;
        }
        clock.update(until);
        return ran;
    }

    /** Runs what is due now (tasks handed over with {@link #execute}, among them); returns how many ran. */
    int runDue()
    {
        return advance(0);
    }

    /** Tasks waiting to run. */
    int pending()
    {
        return tasks.size();
    }
}
