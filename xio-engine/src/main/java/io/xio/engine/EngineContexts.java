package io.xio.engine;

import io.xio.engine.context.DozeAlarm;
import io.xio.engine.context.EventLoop;
import io.xio.engine.context.LoopIdleStrategy;
import io.xio.engine.session.EngineCore;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An engine's contexts and the threads that run them: each loop on an Agrona runner of its own (or, for manual
 * contexts, on whichever thread the application drives it from), a fresh loop in a failed one's place, and all of
 * them stopped when the engine closes. Made by the engine's constructor; {@link #replace} runs on a failed
 * context's thread, {@link #stop} on the closing thread; the engine serializes the two.
 */
final class EngineContexts
{
    private static final Logger LOG = LoggerFactory.getLogger(EngineContexts.class);

    /** What every loop of the engine is made with. */
    record LoopSettings(String engineName, Limits limits, Duration busyPoll, boolean adaptive, boolean manual,
        NanoClock clock, EventLoop.FailureHandler failureHandler)
    {
    }

    private final LoopSettings settings;
    private final EventLoop[] loops;
    private final DozeAlarm dozeAlarm;
    /** One per loop; null for manual contexts, which the application drives. */
    private final AgentRunner[] runners;

    EngineContexts(final LoopSettings settings, final int count)
    {
        this.settings = settings;
        this.dozeAlarm = new DozeAlarm(settings.engineName(), count);
        this.loops = new EventLoop[count];
        for (int i = 0; i < count; i++)
        {
            loops[i] = newLoop(i);
        }
        this.runners = settings.manual() ? null : new AgentRunner[count];
    }

    /** The loops, indexed by context; the array the engine's core shares. */
    EventLoop[] loops()
    {
        return loops;
    }

    /** Starts every loop on a thread of its own; nothing for manual contexts. */
    void start()
    {
        if (runners != null)
        {
            for (int i = 0; i < loops.length; i++)
            {
                runners[i] = start(loops[i]);
            }
        }
    }

    /**
     * A fresh loop for the index of {@code failed}, running on a thread of its own unless contexts are manual. The
     * caller puts it in the failed one's place in the core, whose array of loops is this one. Throws, having closed
     * the fresh loop, when no thread can be started for it (out of memory, say).
     */
    EventLoop replace(final EventLoop failed)
    {
        final int index = failed.index();
        final EventLoop fresh = newLoop(index);
        if (runners != null)
        {
            try
            {
                runners[index] = start(fresh);
            }
            catch (final RuntimeException | Error ex)
            {
                fresh.close();
                throw ex;
            }
        }
        return fresh;
    }

    private EventLoop newLoop(final int index)
    {
        return new EventLoop(settings.engineName() + "-ctx-" + index, index, settings.limits(), settings.busyPoll(),
            settings.adaptive(), settings.manual(), settings.clock(), dozeAlarm, settings.failureHandler());
    }

    private static AgentRunner start(final EventLoop loop)
    {
        final AgentRunner runner = new AgentRunner(new LoopIdleStrategy(loop), ex ->
        {
            if (!loop.isTermination(ex))
            {
                LOG.error("context {} failed", loop.name(), ex); // onStart or onClose: the loop guards the rest
            }
        }, null, loop.agent());
        AgentRunner.startOnThread(runner, r ->
        {
            final Thread thread = new Thread(r, loop.name());
            thread.setDaemon(true);
            return thread;
        });
        return runner;
    }

    /**
     * Closes every context's connections on its own thread (waiting up to five seconds for them), then stops the
     * loops and their threads. A failed context's connections were closed when it failed. Once, when the engine
     * closes.
     */
    void stop(final EngineCore core)
    {
        final CompletableFuture<?>[] closing = new CompletableFuture<?>[loops.length];
        for (int i = 0; i < loops.length; i++)
        {
            closing[i] = closeConnections(core, i);
        }
        try
        {
            CompletableFuture.allOf(closing).get(5, TimeUnit.SECONDS);
        }
        catch (final Exception ex)
        {
            LOG.warn("engine {} did not close its connections within 5s", settings.engineName(), ex);
        }
        if (runners != null)
        {
            for (final AgentRunner runner : runners)
            {
                if (runner.thread() != Thread.currentThread())
                {
                    runner.close();
                }
                // else: a failed context closes the engine; its runner ends once the failure is handled
            }
        }
        else
        {
            for (final EventLoop loop : loops)
            {
                loop.close();
            }
        }
        dozeAlarm.close();
    }

    /** Totals over the loops, with {@code backPressureRejections} counted elsewhere. Any thread. */
    EngineStatistics statistics(final long backPressureRejections)
    {
        long framesSent = 0;
        long writes = 0;
        long bytesSent = 0;
        long framesReceived = 0;
        long bytesReceived = 0;
        long retransmits = 0;
        long busyNanos = 0;
        long idleNanos = 0;
        for (final EventLoop loop : loops)
        {
            final EngineStatistics one = loop.statistics();
            framesSent += one.framesSent();
            writes += one.writes();
            bytesSent += one.bytesSent();
            framesReceived += one.framesReceived();
            bytesReceived += one.bytesReceived();
            retransmits += one.retransmits();
            busyNanos += one.busyNanos();
            idleNanos += one.idleNanos();
        }
        return new EngineStatistics(framesSent, writes, bytesSent, framesReceived, bytesReceived, retransmits,
            backPressureRejections, busyNanos, idleNanos);
    }

    private CompletableFuture<Void> closeConnections(final EngineCore core, final int index)
    {
        final EventLoop loop = loops[index];
        final CompletableFuture<Void> done = new CompletableFuture<>();
        if (loop.state() != ContextState.RUNNING)
        {
            done.complete(null); // failed: its connections were closed then
        }
        else if (runners == null)
        {
            try
            {
                loop.runOnce(Duration.ZERO); // binds the context to this thread and runs the queued closes
                core.closeAll(index);
                loop.runOnce(Duration.ZERO);
            }
            catch (final ContextFailedException ex)
            {
                // it failed just now, and its failure closed what it had
            }
            done.complete(null);
        }
        else
        {
            try
            {
                loop.execute(() ->
                {
                    core.closeAll(index);
                    done.complete(null);
                });
            }
            catch (final XioException ex)
            {
                done.complete(null); // it failed just now, and its failure closed what it had
            }
        }
        return done;
    }
}
