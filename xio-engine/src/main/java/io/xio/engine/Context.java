package io.xio.engine;

import java.time.Duration;

/**
 * One thread, one event loop: it polls its transports, runs its timers and drains a
 * queue of tasks from other threads. Every connection, buffer pool and counter belongs to exactly one
 * context, so the data path takes no locks.
 *
 * <p>A context normally runs on a thread of its own. Built with {@link XioEngine.Builder#manualContexts},
 * it runs on the application's thread instead: call {@link #runOnce} (or {@link #doWork}) from your loop.
 * The JVM does not expose a selector's file descriptor, so instead of Accelio's ctx_get_poll_params an external
 * loop either calls {@link #doWork} each turn or hands its blocking wait to {@link #runOnce}; other threads
 * end that wait through {@link #wakeup}.
 *
 * <p>{@link #execute}, {@link #wakeup}, {@link #name} and {@link #index} may be called from any thread;
 * {@link #doWork} and {@link #runOnce} only from the one thread that runs a manual context.
 *
 * <p>An {@link Error} on a context's thread, or any {@link Throwable} escaping its loop, makes the context
 * {@link ContextState#FAILED}; the engine's {@link ContextFailurePolicy} says what follows. A
 * {@link RuntimeException} from one task, timer or handler only fails that one thing and is logged.
 */
public interface Context
{
    String name();

    int index();

    /** This context's frames, writes and bytes since it started; any thread. */
    EngineStatistics statistics();

    /** Whether the context is open and its thread (if it has one of its own) alive; any thread. */
    boolean isRunning();

    /** Where the context is in its life; any thread. */
    ContextState state();

    /** What made the context {@link ContextState#FAILED fail}, or null while it has not; any thread. */
    Throwable failure();

    /** Whether the calling thread is this context's thread. */
    boolean inContextThread();

    /** Runs the task on this context's thread, in order with other tasks. */
    void execute(Runnable task);

    /** Wakes the context if it is parked. */
    void wakeup();

    /**
     * One duty cycle without blocking; returns the amount of work done (0 when idle). Manual contexts only.
     *
     * @throws ContextFailedException when the context failed, in this cycle or before
     */
    int doWork();

    /**
     * One duty cycle; when it finds no work, waits up to {@code timeout} for some. Manual contexts only.
     *
     * @throws ContextFailedException when the context failed, in this cycle or before
     */
    int runOnce(Duration timeout);
}
