package io.xio.benchmarks.ledger;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs a case on some threads for a fixed time, each thread calling again as soon as its call returns (a closed
 * loop), and times every call: calls per second over the window, and the latency percentiles of all its calls. The
 * threads are kept from window to window. Used by one thread; {@link #close()} stops the threads.
 */
final class CallWindow implements AutoCloseable
{
    /** Figures of a window, by index. */
    static final int CALLS_PER_SECOND = 0;
    static final int P50_MICROS = 1;
    static final int P99_MICROS = 2;
    static final int FIGURES = 3;

    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final ExecutorService threads;

    CallWindow(final int maxThreads)
    {
        this.threads = Executors.newFixedThreadPool(maxThreads, task ->
        {
            final Thread thread = new Thread(task, "ledger-cost-caller");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Calls {@code costCase} from {@code threadCount} threads for {@code nanos}; returns the figures.
     *
     * @throws Exception the first call that failed, which ends the window
     */
    double[] run(final CostCase costCase, final int threadCount, final long nanos) throws Exception
    {
        final CountDownLatch ready = new CountDownLatch(threadCount);
        final CountDownLatch go = new CountDownLatch(1);
        final long[] window = new long[2];
        final List<Future<Histogram>> results = new ArrayList<>();
        for (int i = 0; i < threadCount; i++)
        {
            results.add(threads.submit(() ->
            {
                final Histogram histogram = new Histogram(HIGHEST_NANOS, 3);
                ready.countDown();
                go.await();
                final long end = window[1];
                long now = System.nanoTime();
                while (now - end < 0)
                {
                    costCase.call();
                    final long done = System.nanoTime();
                    histogram.recordValue(Math.min(done - now, HIGHEST_NANOS));
                    now = done;
                }
                return histogram;
            }));
        }
        ready.await();
        window[0] = System.nanoTime();
        window[1] = window[0] + nanos;
        go.countDown();
        final Histogram all = new Histogram(HIGHEST_NANOS, 3);
        for (final Future<Histogram> result : results)
        {
            try
            {
                all.add(result.get());
            }
            catch (final ExecutionException ex)
            {
                throw ex.getCause() instanceof Exception cause ? cause : ex;
            }
        }
        // The window ends when the last call that started in it returns.
        final double seconds = (System.nanoTime() - window[0]) / 1e9;
        final double[] figures = new double[FIGURES];
        figures[CALLS_PER_SECOND] = all.getTotalCount() / seconds;
        figures[P50_MICROS] = all.getValueAtPercentile(50) / 1e3;
        figures[P99_MICROS] = all.getValueAtPercentile(99) / 1e3;
        return figures;
    }

    @Override
    public void close()
    {
        threads.shutdownNow();
    }
}
