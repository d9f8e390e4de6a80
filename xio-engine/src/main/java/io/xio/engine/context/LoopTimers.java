package io.xio.engine.context;

import org.agrona.DeadlineTimerWheel;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * An event loop's timers: a deadline wheel and the task behind each timer id. Expiring runs each due task through
 * the loop's runner (which decides what a failing task costs). The loop's thread only; allocates nothing per timer
 * beyond the wheel's and the map's growth.
 */
final class LoopTimers
{
    /** At most this many timers expire in one turn: the rest wait for the next, so a burst cannot starve I/O. */
    private static final int EXPIRIES_PER_TURN = 256;

    private final DeadlineTimerWheel wheel;
    private final Long2ObjectHashMap<Runnable> tasks = new Long2ObjectHashMap<>();
    private final Consumer<Runnable> runner;
    private final DeadlineTimerWheel.TimerHandler onExpiry = this::onExpiry;
    private final DeadlineTimerWheel.TimerConsumer earliest = (deadline, id) -> this.nextDeadline =
        Math.min(this.nextDeadline, deadline);
    private long nextDeadline;

    /**
     * @param startNanos the loop clock's reading at start
     * @param runner runs an expired timer's task
     */
    LoopTimers(final long startNanos, final Consumer<Runnable> runner)
    {
        this.wheel = new DeadlineTimerWheel(TimeUnit.NANOSECONDS, startNanos, 1 << 20, 1024);
        this.runner = runner;
    }

    /** Schedules {@code task} at {@code deadlineNanos} (the loop's clock); returns the id that cancels it. */
    long schedule(final long deadlineNanos, final Runnable task)
    {
        final long id = wheel.scheduleTimer(deadlineNanos);
        tasks.put(id, task);
        return id;
    }

    /** Cancels a timer not yet expired; a stale id does nothing. */
    void cancel(final long timerId)
    {
        if (tasks.remove(timerId) != null)
        {
            wheel.cancelTimer(timerId);
        }
    }

    /** Timers scheduled and not yet expired or cancelled. */
    long count()
    {
        return wheel.timerCount();
    }

    /** Runs the tasks due at {@code now}; returns how many ran. */
    int expire(final long now)
    {
        if (wheel.timerCount() == 0)
        {
            wheel.currentTickTime(now);
            return 0;
        }
        // The wheel moves one tick per poll: catch up after a park instead of spinning through the ticks.
        int expired = 0;
        do
        {
            expired += wheel.poll(now, onExpiry, EXPIRIES_PER_TURN - expired);
        }
        while (expired < EXPIRIES_PER_TURN && wheel.timerCount() > 0 && wheel.currentTickTime() <= now);
        return expired;
    }

    /** {@code maxNanos}, or less when a timer is due sooner than that after {@code now}. */
    long untilNext(final long maxNanos, final long now)
    {
        if (wheel.timerCount() == 0)
        {
            return maxNanos;
        }
        nextDeadline = Long.MAX_VALUE;
        wheel.forEach(earliest);
        return Math.min(maxNanos, nextDeadline - now);
    }

    private boolean onExpiry(final TimeUnit unit, final long now, final long timerId)
    {
        final Runnable task = tasks.remove(timerId);
        if (task != null)
        {
            runner.accept(task);
        }
        return true;
    }
}
