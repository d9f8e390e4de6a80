package io.xio.spring.autoconfigure.sample.retry.server;

import io.xio.annotation.XioService;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.sample.retry.Flaky;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts its executions. The next {@link #goAwayNext(int) n} of them close every session of the server before they
 * return, as a server that went away mid-call would: the call ran, its caller gets no answer, only a
 * {@code ConnectionException}; a later call opens a fresh session. Execution number {@link #holdExecution(int)}
 * waits until {@link #release()}.
 */
@XioService("flaky")
public class FlakyService implements Flaky
{
    private final XioEngine engine;
    private final AtomicInteger executions = new AtomicInteger();
    private final java.util.List<Integer> stamps = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final AtomicInteger goAway = new AtomicInteger();
    private final CountDownLatch release = new CountDownLatch(1);
    private volatile int held;

    public FlakyService(final XioEngine engine)
    {
        this.engine = engine;
    }

    @Override
    public String read(final String key)
    {
        return run("read " + key);
    }

    @Override
    public CompletableFuture<String> readAsync(final String key)
    {
        return CompletableFuture.completedFuture(run("read " + key));
    }

    @Override
    public String write(final String key)
    {
        return run("wrote " + key);
    }

    @Override
    public CompletableFuture<String> writeAsync(final String key)
    {
        return CompletableFuture.completedFuture(run("wrote " + key));
    }

    /** How many "stamp" metadata entries each execution's call carried, in order. */
    public java.util.List<Integer> stamps()
    {
        return stamps;
    }

    private String run(final String result)
    {
        final io.xio.spring.call.XioServerCall call = io.xio.spring.call.XioServerCall
            .current();
        int count = 0;
        for (int i = 0; call != null && i < call.metadata().size(); i++)
        {
            count += call.metadata().key(i).equals("stamp") ? 1 : 0;
        }
        stamps.add(count);
        final int execution = executions.incrementAndGet();
        if (execution == held)
        {
            try
            {
                release.await(30, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        if (goAway.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0)
        {
            engine.sessions().forEach(Session::close);
        }
        return result;
    }

    /** The next {@code count} executions close every session of the server before they return. */
    public void goAwayNext(final int count)
    {
        goAway.set(count);
    }

    /** Execution number {@code execution} (from 1) waits until {@link #release()}. */
    public void holdExecution(final int execution)
    {
        held = execution;
    }

    public void release()
    {
        release.countDown();
    }

    public int executions()
    {
        return executions.get();
    }
}
