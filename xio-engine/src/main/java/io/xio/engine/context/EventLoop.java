package io.xio.engine.context;

import io.xio.engine.Context;
import io.xio.engine.ContextFailedException;
import io.xio.engine.ContextState;
import io.xio.engine.Limits;
import io.xio.engine.XioException;
import io.xio.engine.memory.BufferPool;
import io.xio.engine.transport.LoopCounters;
import io.xio.engine.transport.Poller;
import io.xio.engine.transport.SocketReader;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.TransportLink;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.channels.Selector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The implementation of a {@link Context}: an Agrona {@link Agent} whose duty cycle drains the command queue,
 * polls the selector and transport pollers, reads its few sockets directly, expires timers and flushes the links
 * written this turn. When
 * idle it waits as its {@link AdaptiveIdle} says: spins, dozes until shortly before work is expected, or blocks
 * in {@code select} until a timer is due or another thread calls {@link #wakeup()}. Everything except
 * {@link #execute}, {@link #wakeup} and the getters is for the loop's own thread.
 *
 * <p>A {@link RuntimeException} from a task, timer or selection handler is logged and the loop goes on. An
 * {@link Error} there, or anything escaping the duty cycle or the idle wait, fails the loop
 * ({@link ContextState#FAILED}): it stops running, and its {@link FailureHandler} is told on the loop's own
 * thread, which still owns everything the loop ran and so is the one to clean it up.
 */
public final class EventLoop implements Context, TransportContext
{
    /** Hears that a loop failed, on that loop's thread, once; must not throw (whatever it throws is dropped). */
    @FunctionalInterface
    public interface FailureHandler
    {
        void onFailure(EventLoop loop, Throwable cause);
    }

    private static final Logger LOG = LoggerFactory.getLogger(EventLoop.class);
    private static final int COMMANDS_PER_TURN = 1024;
    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** A doze's selector timeout beyond its end, should its alarm be late: at most this much longer asleep. */
    private static final long DOZE_BACKSTOP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final String name;
    private final int index;
    private final Limits limits;
    private final BufferPool pool;
    private final SocketPolling sockets;
    private final ManyToOneConcurrentArrayQueue<Runnable> commands = new ManyToOneConcurrentArrayQueue<>(1 << 16);
    private final ArrayList<Poller> pollers = new ArrayList<>();
    private final ArrayList<TransportLink> flushes = new ArrayList<>();
    private final LoopTimers timers;
    private final LoopCounters counters = new LoopCounters();
    private final NanoClock clock;
    private final AdaptiveIdle idleStrategy;
    /** Ends this loop's dozes on time; one per engine, shared by its loops. */
    private final DozeAlarm alarm;
    private final boolean manual;
    private final FailureHandler failureHandler;
    private volatile RefusalSink refusals;
    private final AtomicReference<ContextState> state = new AtomicReference<>(ContextState.RUNNING);
    /** Ends an agent's runner after a failure; made up front, since a failure may leave no memory to make it. */
    private final AgentTerminationException terminated;
    private volatile Throwable failure;
    private volatile boolean parked;
    private volatile boolean closed;
    private volatile Thread thread;
    private long nanoTime;
    private long idleSince;
    /** The turn's clock is real time: idle accounting reuses its reading (a spinning turn then reads it once). */
    private final boolean realClock;
    private long dozes;

    /**
     * @param busyPoll the longest spin after work; zero parks at once
     * @param adaptive whether the idle wait learns from the gaps between work ({@link AdaptiveIdle})
     * @param clock the time of loop turns and timers; spinning and idle accounting measure real time
     * @param alarm ends the loop's dozes (the engine's one); used only when {@code adaptive}
     * @param failureHandler told when the loop fails, on its thread
     */
    public EventLoop(final String name, final int index, final Limits limits, final Duration busyPoll,
        final boolean adaptive, final boolean manual, final NanoClock clock, final DozeAlarm alarm,
        final FailureHandler failureHandler)
    {
        this.clock = clock;
        this.failureHandler = failureHandler;
        this.terminated = new AgentTerminationException("context " + name + " failed", null, false, false);
        this.name = name;
        this.index = index;
        this.limits = limits;
        this.idleStrategy = new AdaptiveIdle(System::nanoTime, busyPoll.toNanos(), adaptive);
        this.realClock = clock == SystemNanoClock.INSTANCE;
        this.alarm = alarm;
        this.manual = manual;
        this.pool = new BufferPool(name);
        this.sockets = new SocketPolling(name, this::beforeSelectionHandler);
        nanoTime = clock.nanoTime();
        timers = new LoopTimers(nanoTime, this::run);
    }

    /** The agent an {@link org.agrona.concurrent.AgentRunner} runs this loop with, on a thread of its own. */
    public Agent agent()
    {
        return new Agent()
        {
            @Override
            public String roleName()
            {
                return name;
            }

            @Override
            public void onStart()
            {
                bindThread();
                if (idleStrategy.isAdaptive())
                {
                    // Its dozes end shortly before expected work: a late timer is latency or spinning.
                    TimerSlack.shorten(TimerSlack.CONTEXT_THREAD_NANOS);
                }
            }

            @Override
            public int doWork()
            {
                if (state.get() == ContextState.RUNNING)
                {
                    try
                    {
                        return dutyCycle();
                    }
                    catch (final Throwable ex)
                    {
                        fail(ex);
                    }
                }
                throw terminated; // the runner stops; its onClose closes whatever the failure left open
            }

            @Override
            public void onClose()
            {
                try
                {
                    EventLoop.this.close();
                }
                catch (final Throwable ex)
                {
                    // Thrown out of here, an Error would end the runner's thread with nothing but a stack trace.
                    logQuietly("closing context {} failed", ex);
                }
            }
        };
    }

    /** Whether {@code ex} is how this loop's agent ends its runner after a failure (not itself worth a log line). */
    public boolean isTermination(final Throwable ex)
    {
        return ex == terminated;
    }

    /**
     * Marks the loop failed and tells the failure handler; afterwards closes the loop. Runs once, on the loop's
     * thread. Allocates nothing itself: the handler is the one to free memory before it needs any.
     */
    private void fail(final Throwable cause)
    {
        if (!state.get().canMoveTo(ContextState.FAILED))
        {
            return;
        }
        failure = cause; // before the state: whoever sees FAILED sees why
        if (!moveTo(ContextState.FAILED))
        {
            return;
        }
        try
        {
            failureHandler.onFailure(this, cause);
        }
        catch (final Throwable ex)
        {
            logQuietly("the failure handler of context {} failed", ex);
        }
        try
        {
            close();
        }
        catch (final Throwable ex)
        {
            logQuietly("closing failed context {} failed", ex);
        }
    }

    /** Moves the state on, if {@link ContextState#canMoveTo} allows it from where it is; false otherwise. */
    private boolean moveTo(final ContextState next)
    {
        final ContextState current = state.get();
        return current.canMoveTo(next) && state.compareAndSet(current, next);
    }

    /** Logs, unless logging itself fails (out of memory, say): nothing on a failure path may throw. */
    private void logQuietly(final String message, final Throwable ex)
    {
        try
        {
            LOG.error(message, name, ex);
        }
        catch (final Throwable ignored)
        {
            // nowhere left to report it
        }
    }

    private ContextFailedException failedException()
    {
        return new ContextFailedException("context " + name + " failed: " + failure, failure);
    }

    private void bindThread()
    {
        final Thread current = Thread.currentThread();
        if (thread != current)
        {
            thread = current;
            pool.owner(current);
        }
    }

    @Override
    public int doWork()
    {
        requireManual();
        bindThread();
        requireNotFailed();
        try
        {
            return dutyCycle();
        }
        catch (final Throwable ex)
        {
            fail(ex);
            throw failedException();
        }
    }

    private void requireNotFailed()
    {
        if (state.get() == ContextState.FAILED)
        {
            throw failedException();
        }
    }

    private int dutyCycle()
    {
        nanoTime = clock.nanoTime();
        int work = drainCommands();
        work += pool.drainReturns();
        work += sockets.selectNow(nanoTime);
        for (int i = 0, n = pollers.size(); i < n && i < pollers.size(); i++)
        {
            work += pollers.get(i).poll();
        }
        work += sockets.readDirectly();
        work += timers.expire(nanoTime);
        work += flushAll();
        return work;
    }

    private int drainCommands()
    {
        int count = 0;
        Runnable task;
        while (count < COMMANDS_PER_TURN && (task = commands.poll()) != null)
        {
            count++;
            run(task);
        }
        return count;
    }

    /** Runs one task: a RuntimeException fails only the task; an Error goes on up and fails the loop. */
    private void run(final Runnable task)
    {
        try
        {
            task.run();
        }
        catch (final RuntimeException ex)
        {
            LOG.error("task failed on context {}", name, ex);
        }
    }

    /** Before a selection handler: a blocking select's handlers run after the wait the turn's reading predates. */
    private void beforeSelectionHandler()
    {
        if (parked)
        {
            nanoTime = clock.nanoTime();
        }
    }

    private int flushAll()
    {
        if (flushes.isEmpty())
        {
            return 0;
        }
        int work = 0;
        // A flush may complete callbacks that write more frames; those land in the list and go too.
        for (int i = 0; i < flushes.size(); i++)
        {
            work += flushes.get(i).flush();
        }
        flushes.clear();
        return work;
    }

    /** Called by the idle strategy after a turn with no work. */
    void idle()
    {
        if (state.get() != ContextState.RUNNING)
        {
            return; // failed in the last turn: the next one ends the runner
        }
        final long now = realNow();
        if (idleSince == 0)
        {
            idleSince = now;
        }
        final int action = idleStrategy.idle(now);
        if (action == AdaptiveIdle.SPIN)
        {
            Thread.onSpinWait();
            return;
        }
        try
        {
            if (action == AdaptiveIdle.DOZE)
            {
                doze(idleStrategy.dozeNanos());
            }
            else
            {
                park(MAX_PARK_NANOS); // selection handlers run in a blocking select too
            }
        }
        catch (final Throwable ex)
        {
            fail(ex);
        }
    }

    /**
     * Real time: the turn's reading when its clock is real, else a reading now. After a working turn that is the
     * turn's start, when the work was found, which is where an idle period ends.
     */
    private long realNow()
    {
        return realClock ? nanoTime : System.nanoTime();
    }

    void resetIdle()
    {
        if (idleSince != 0)
        {
            final long now = realNow();
            counters.idled(now - idleSince);
            idleStrategy.workArrived(now);
        }
        idleSince = 0;
    }

    /** Times the loop slept until shortly before expected work ({@link AdaptiveIdle#DOZE}). The loop's thread. */
    public long dozes()
    {
        return dozes;
    }

    /**
     * Sleeps about {@code nanos} before work is expected. It waits in the selector, as a park does, so that a
     * ready socket, an shm doorbell or a task ends it at once (a timed park could not be cut short by the arrival
     * it waits for); the alarm ends it on time, since a selector's timeout is in whole milliseconds.
     */
    private void doze(final long nanos)
    {
        dozes++;
        final long timeout = untilNextTimer(nanos);
        if (timeout <= 0)
        {
            return;
        }
        alarm.set(index, sockets.selector(), System.nanoTime() + timeout);
        try
        {
            blockInSelector(timeout + DOZE_BACKSTOP_NANOS); // the alarm comes first
        }
        finally
        {
            alarm.clear(index);
        }
    }

    /** {@code maxNanos}, or less when a timer is due sooner. */
    private long untilNextTimer(final long maxNanos)
    {
        return timers.untilNext(maxNanos, clock.nanoTime());
    }

    private void park(final long maxNanos)
    {
        final long timeout = untilNextTimer(maxNanos);
        if (timeout > 0)
        {
            blockInSelector(timeout);
        }
    }

    /** Waits for work in the selector, where {@link #wakeup()} reaches it, unless work came meanwhile. */
    private void blockInSelector(final long timeoutNanos)
    {
        parked = true;
        try
        {
            final long framesBefore = counters.framesReceived();
            if (commands.isEmpty() && !pollersHaveWork() && sockets.block(timeoutNanos) > 0 &&
                counters.framesReceived() != framesBefore)
            {
                // Its handlers took frames in (a socket's bytes, a ring the doorbell announced): work arriving, as
                // in a turn, or the idle strategy would never see the gaps of a parked loop. A ready key that
                // brought nothing (a stale doorbell byte) is no arrival.
                resetIdle();
            }
        }
        finally
        {
            parked = false;
        }
    }

    private boolean pollersHaveWork()
    {
        for (int i = 0; i < pollers.size(); i++)
        {
            if (pollers.get(i).hasWork())
            {
                return true;
            }
        }
        return false;
    }

    @Override
    public int runOnce(final Duration timeout)
    {
        requireManual();
        bindThread();
        requireNotFailed();
        try
        {
            final int work = dutyCycle();
            if (work == 0 && !timeout.isZero())
            {
                park(timeout.toNanos());
                return dutyCycle();
            }
            return work;
        }
        catch (final Throwable ex)
        {
            fail(ex);
            throw failedException();
        }
    }

    private void requireManual()
    {
        if (!manual)
        {
            throw new IllegalStateException("context " + name + " runs on its own thread; only manual " +
                "contexts (XioEngine.Builder.manualContexts) are driven by the application");
        }
    }

    /**
     * Stops the loop: runs the tasks still queued, flushes, closes the selector. The loop's thread only. A failed
     * loop stays {@link ContextState#FAILED}.
     */
    public void close()
    {
        moveTo(ContextState.CLOSED); // a failed loop stays FAILED
        closed = true;
        drainClosed();
        flushAll();
        sockets.close();
    }

    @Override
    public void execute(final Runnable task)
    {
        if (closed)
        {
            throw closedException();
        }
        while (!commands.offer(task))
        {
            if (closed)
            {
                throw closedException();
            }
            if (inContextThread())
            {
                run(task); // our own queue is full: waiting for ourselves would never end
                return;
            }
            Thread.yield(); // the queue holds 65536 tasks: this only happens under extreme overload
        }
        if (closed)
        {
            drainClosed(); // the loop stopped meanwhile: run what it will not
        }
        else
        {
            wakeup();
        }
    }

    private XioException closedException()
    {
        return failure != null ? failedException() : new XioException("context " + name + " is closed");
    }

    /**
     * Runs queued tasks after the loop stopped; serialized, since late callers may race here. Each runs whatever
     * the one before threw, an Error included: a task never run may be a caller never answered.
     */
    private void drainClosed()
    {
        synchronized (commands)
        {
            Runnable task;
            while ((task = commands.poll()) != null)
            {
                try
                {
                    task.run();
                }
                catch (final Throwable ex)
                {
                    logQuietly("task failed on closed context {}", ex);
                }
            }
        }
    }

    @Override
    public void wakeup()
    {
        if (parked)
        {
            sockets.wakeup();
        }
    }

    @Override
    public long schedule(final long deadlineNanos, final Runnable task)
    {
        return timers.schedule(deadlineNanos, task);
    }

    /** Timers scheduled and not yet expired or cancelled. The loop's thread. */
    public long timerCount()
    {
        return timers.count();
    }

    @Override
    public void cancelTimer(final long timerId)
    {
        timers.cancel(timerId);
    }

    @Override
    public void selectorLinks(final int delta)
    {
        sockets.selectorLinks(delta);
    }

    @Override
    public void flushLater(final TransportLink link)
    {
        flushes.add(link);
    }

    @Override
    public void addPoller(final Poller poller)
    {
        pollers.add(poller);
    }

    @Override
    public void removePoller(final Poller poller)
    {
        pollers.remove(poller);
    }

    @Override
    public void addSocketReader(final SocketReader reader)
    {
        sockets.addReader(reader);
    }

    @Override
    public void removeSocketReader(final SocketReader reader)
    {
        sockets.removeReader(reader);
    }

    @Override
    public long nanoTime()
    {
        return nanoTime;
    }

    @Override
    public LoopCounters counters()
    {
        return counters;
    }

    /** Where this context's transports report the peers they refused; set by the engine before it runs them. */
    public void refusalsTo(final RefusalSink sink)
    {
        refusals = sink;
    }

    @Override
    public void refused(final io.xio.engine.PeerRefusal kind, final String remoteAddress, final String detail)
    {
        final RefusalSink sink = refusals;
        if (sink != null)
        {
            sink.refused(kind, remoteAddress, detail);
        }
        else
        {
            TransportContext.super.refused(kind, remoteAddress, detail);
        }
    }

    @Override
    public io.xio.engine.EngineStatistics statistics()
    {
        return new io.xio.engine.EngineStatistics(counters.framesSent(), counters.writes(), counters.bytesSent(),
            counters.framesReceived(), counters.bytesReceived(), counters.retransmits(), 0, counters.busyNanos(),
            counters.idleNanos());
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public int index()
    {
        return index;
    }

    @Override
    public boolean inContextThread()
    {
        return Thread.currentThread() == thread;
    }

    public boolean isClosed()
    {
        return closed;
    }

    @Override
    public boolean isRunning()
    {
        final Thread owner = thread;
        return state.get() == ContextState.RUNNING && !closed && (owner == null || owner.isAlive());
    }

    @Override
    public ContextState state()
    {
        return state.get();
    }

    @Override
    public Throwable failure()
    {
        return failure;
    }

    @Override
    public BufferPool pool()
    {
        return pool;
    }

    @Override
    public Limits limits()
    {
        return limits;
    }

    @Override
    public Selector selector()
    {
        return sockets.selector();
    }
}
