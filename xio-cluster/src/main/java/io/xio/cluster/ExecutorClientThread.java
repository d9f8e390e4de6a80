package io.xio.cluster;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The {@link ClientThread} of a service client (or a DNS resolver) in production: one daemon thread with the name
 * given, from a {@link ScheduledThreadPoolExecutor}. Any thread may call it.
 */
final class ExecutorClientThread implements ClientThread
{
    private final ScheduledThreadPoolExecutor executor;

    ExecutorClientThread(final String name)
    {
        executor = new ScheduledThreadPoolExecutor(1, task ->
        {
            final Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public void schedule(final long delayNanos, final Runnable task)
    {
        try
        {
            executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        }
        catch (final RejectedExecutionException ex)
        {
            // shut down: the task is dropped, as shutdown() says
        }
    }

    @Override
    public void execute(final Runnable task)
    {
        try
        {
            executor.execute(task);
        }
        catch (final RejectedExecutionException ex)
        {
            // shut down: the task is dropped, as shutdown() says
        }
    }

    @Override
    public void shutdown()
    {
        executor.shutdown();
    }
}
