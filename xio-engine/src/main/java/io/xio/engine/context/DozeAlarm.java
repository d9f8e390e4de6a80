package io.xio.engine.context;

import java.nio.channels.Selector;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Ends the sub-millisecond dozes of an engine's loops. A dozing loop blocks in its selector, so that a socket
 * becoming ready, an shm doorbell or a task wakes it at once; but a selector times its waits in whole
 * milliseconds, so this alarm's one thread sleeps until the earliest doze is due and wakes that loop's selector.
 * A doze that a parkNanos timed instead could not be cut short by the arrival it was waiting for.
 *
 * <p>One slot per context index. {@link #set} and {@link #clear} are called by the slot's loop thread; the alarm
 * thread, started with the first doze, is the only one that fires. Allocates nothing per doze.
 */
public final class DozeAlarm implements AutoCloseable
{
    private static final long NONE = 0;

    private final String name;
    private final AtomicLongArray deadlines;
    private final AtomicReferenceArray<Selector> selectors;
    /** When the alarm thread wakes next on its own; {@code Long.MAX_VALUE} while it waits for a doze. */
    private volatile long sleepingUntil = Long.MAX_VALUE;
    private volatile boolean closed;
    private volatile Thread thread;

    /**
     * @param name the engine's name; the thread is {@code <name>-doze-alarm}
     * @param slots one per context index
     */
    public DozeAlarm(final String name, final int slots)
    {
        this.name = name;
        this.deadlines = new AtomicLongArray(slots);
        this.selectors = new AtomicReferenceArray<>(slots);
    }

    /** Wakes {@code selector} at {@code deadline} ({@link System#nanoTime()}) unless cleared first. */
    void set(final int slot, final Selector selector, final long deadline)
    {
        if (thread == null)
        {
            start();
        }
        selectors.lazySet(slot, selector);
        deadlines.set(slot, deadline == NONE ? 1 : deadline);
        // Volatile write then volatile read, against the alarm's write of sleepingUntil then its rescan.
        if (deadline < sleepingUntil)
        {
            LockSupport.unpark(thread);
        }
    }

    /** The doze ended (work came, or the alarm fired): nothing to wake. */
    void clear(final int slot)
    {
        if (deadlines.get(slot) != NONE)
        {
            deadlines.set(slot, NONE);
        }
    }

    private synchronized void start()
    {
        if (thread != null || closed)
        {
            return;
        }
        final Thread alarm = new Thread(this::run, name + "-doze-alarm");
        alarm.setDaemon(true);
        alarm.start();
        thread = alarm;
    }

    private void run()
    {
        TimerSlack.shorten(TimerSlack.CONTEXT_THREAD_NANOS); // its lateness is every doze's
        while (!closed)
        {
            final long next = fireDue();
            sleepingUntil = next;
            if (fireDue() < next) // a doze set meanwhile may not have seen our new sleepingUntil
            {
                continue;
            }
            if (next == Long.MAX_VALUE)
            {
                LockSupport.park(this);
            }
            else
            {
                LockSupport.parkNanos(this, next - System.nanoTime());
            }
        }
    }

    /** Wakes every loop whose doze is due; the earliest deadline still ahead, or {@code Long.MAX_VALUE}. */
    private long fireDue()
    {
        final long now = System.nanoTime();
        long next = Long.MAX_VALUE;
        for (int i = 0; i < deadlines.length(); i++)
        {
            final long deadline = deadlines.get(i);
            if (deadline == NONE)
            {
                continue;
            }
            if (deadline - now <= 0)
            {
                if (deadlines.compareAndSet(i, deadline, NONE))
                {
                    selectors.get(i).wakeup(); // a closed selector ignores it
                }
            }
            else if (deadline < next)
            {
                next = deadline;
            }
        }
        return next;
    }

    /** Stops the alarm thread. Any thread; once the loops stopped dozing. */
    @Override
    public void close()
    {
        closed = true;
        final Thread alarm;
        synchronized (this)
        {
            alarm = thread;
        }
        if (alarm != null)
        {
            LockSupport.unpark(alarm);
            try
            {
                alarm.join(1_000);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
