package io.xio.benchmarks.overload.server;

import io.xio.annotation.XioService;
import io.xio.benchmarks.overload.api.Work;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A service with a bounded worker pool, as services that own a scarce resource have: one thread, each call
 * holding it about 2.5 ms (a sleep, so the figure does not depend on how busy the shared cores are). Calls
 * beyond it wait in the pool's queue, which is what grows without xio's bound.
 */
@XioService("work")
public class WorkService implements Work
{
    static final long COST_NANOS = 2_500_000;

    private final ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), runnable ->
        {
            final Thread thread = new Thread(runnable, "work-pool");
            thread.setDaemon(true);
            return thread;
        });

    @Override
    public CompletableFuture<byte[]> work(final byte[] payload)
    {
        return CompletableFuture.supplyAsync(() ->
        {
            LockSupport.parkNanos(COST_NANOS);
            return payload;
        }, pool);
    }

    /** Calls waiting in the pool's own queue now. */
    public int backlog()
    {
        return pool.getQueue().size();
    }
}
