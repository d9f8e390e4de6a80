package io.xio.cluster;

/**
 * A service client's own thread: it runs the client's timers, and the work that must not run on the thread that
 * caused it (one holding the client's lock, or a context thread a woken caller must not block). Production uses
 * {@link ExecutorClientThread}; tests drive one by hand on a fake clock. Any thread may call it.
 */
interface ClientThread
{
    /** Runs {@code task} on this thread after {@code delayNanos}; drops it when this thread was shut down. */
    void schedule(long delayNanos, Runnable task);

    /** Runs {@code task} on this thread soon; drops it when this thread was shut down. */
    void execute(Runnable task);

    /**
     * Stops taking tasks: those already due still run, later ones are dropped, and nothing running is interrupted.
     * Whoever scheduled a task that may be dropped ends its work itself (a call waiting to be tried again fails).
     */
    void shutdown();
}
