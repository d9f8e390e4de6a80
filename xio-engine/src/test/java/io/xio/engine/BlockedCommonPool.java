package io.xio.engine;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

/**
 * Keeps every worker of the common pool busy until closed, as an application does that blocks pool tasks (a
 * context closed from {@code CompletableFuture.runAsync}, say). From Java 25 on, CompletableFuture's default async
 * executor is that pool even with a single worker (Java 17 started a thread per task there), so whatever xio chains
 * on it waits for the application. The tasks wait on a latch, which the pool does not compensate for with spare
 * workers. Made and closed by one test thread.
 */
public final class BlockedCommonPool implements AutoCloseable
{
    private final CountDownLatch release = new CountDownLatch(1);

    /** Returns once each of the pool's workers runs one of the blocking tasks. */
    public BlockedCommonPool() throws InterruptedException
    {
        final int workers = Math.max(1, ForkJoinPool.getCommonPoolParallelism());
        final CountDownLatch running = new CountDownLatch(workers);
        for (int i = 0; i < workers; i++)
        {
            ForkJoinPool.commonPool().execute(() ->
            {
                running.countDown();
                try
                {
                    release.await();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            });
        }
        try
        {
            if (!running.await(10, TimeUnit.SECONDS))
            {
                throw new IllegalStateException("the common pool did not start " + workers + " blocking task(s)");
            }
        }
        catch (final InterruptedException | RuntimeException ex)
        {
            release.countDown(); // no caller can close what was never made: the tasks started must not stay blocked
            throw ex;
        }
    }

    @Override
    public void close()
    {
        release.countDown();
    }
}
