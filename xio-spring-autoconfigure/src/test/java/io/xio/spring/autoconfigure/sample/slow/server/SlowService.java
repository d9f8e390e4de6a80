package io.xio.spring.autoconfigure.sample.slow.server;

import io.xio.annotation.XioService;
import io.xio.spring.autoconfigure.sample.slow.Slow;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Holds every call on its worker until {@link #release()}; counts the calls that ran and how many at once. */
@XioService("slow")
public class SlowService implements Slow
{
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger mostRunning = new AtomicInteger();
    private final List<String> ran = new CopyOnWriteArrayList<>();

    @Override
    public String work(final String label)
    {
        mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
        try
        {
            ran.add(label);
            if (!release.await(30, TimeUnit.SECONDS))
            {
                throw new IllegalStateException("never released");
            }
            return "done " + label;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        finally
        {
            running.decrementAndGet();
        }
    }

    @Override
    public CompletableFuture<String> workAsync(final String label)
    {
        return CompletableFuture.completedFuture(work(label));
    }

    public void release()
    {
        release.countDown();
    }

    public List<String> ran()
    {
        return ran;
    }

    public int mostRunning()
    {
        return mostRunning.get();
    }
}
