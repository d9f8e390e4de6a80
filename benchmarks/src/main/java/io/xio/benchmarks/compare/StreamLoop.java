package io.xio.benchmarks.compare;

import org.HdrHistogram.Histogram;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * The client's side of a server stream ({@link Workload#isStream()}): the peer opens its stream, its consumer counts
 * each message it takes on a {@link Counter} and keeps its {@link Demand} asked for; this waits out the warm-up (as
 * {@link CallLoop} does), announces the window on stdout ({@code START}) and measures the messages taken in it. No
 * latency is recorded (a stream's messages answer nothing); the histogram stays empty. Nothing here allocates per
 * message.
 */
public final class StreamLoop
{
    private StreamLoop()
    {
    }

    /** Messages taken, counted by the one thread that consumes and read by the measuring one; a failure, if any. */
    public static final class Counter
    {
        private final AtomicLong taken = new AtomicLong();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();

        /** {@code count} more messages taken. The consuming thread only (a release store, no read-modify-write). */
        public void add(final long count)
        {
            taken.lazySet(taken.get() + count);
        }

        public long taken()
        {
            return taken.get();
        }

        /** The stream failed or ended before the run did: the measurement fails. Any thread. */
        public void failed(final Throwable error)
        {
            failure.compareAndSet(null, error);
        }

        void check()
        {
            final Throwable error = failure.get();
            if (error != null)
            {
                throw new IllegalStateException("the stream failed: " + error, error);
            }
        }
    }

    /**
     * How a consumer keeps {@code demand} messages asked for: all of them at the start, then half of {@code demand}
     * each time that many were taken (one by one for a demand of 1), as Reactor's {@code limitRate} replenishes. The
     * consuming thread's.
     */
    public static final class Demand
    {
        private final int initial;
        private final int batch;
        private int sinceTopUp;

        public Demand(final int demand)
        {
            if (demand < 1)
            {
                throw new IllegalArgumentException("a consumer asks for at least 1 message, not " + demand);
            }
            this.initial = demand;
            this.batch = Math.max(1, demand / 2);
        }

        /** What to ask for when the stream opens. */
        public int initial()
        {
            return initial;
        }

        /** One message taken: how many more to ask for now, 0 for none yet. */
        public int taken()
        {
            if (++sinceTopUp < batch)
            {
                return 0;
            }
            sinceTopUp = 0;
            return batch;
        }
    }

    /**
     * Waits for the stream's first message, then out the warm-up while the stream runs, announces the window, and
     * returns the messages taken in it; {@code heldPeak} is read at the end (-1 where the producer did not watch what
     * its consumer held).
     */
    public static Measurement measure(final Workload workload, final Counter counter, final LongSupplier heldPeak)
        throws Exception
    {
        if (!workload.isStream())
        {
            throw new IllegalArgumentException("not a stream: " + workload.shape());
        }
        // the first message first (a connection made lazily, a JIT-cold start): then the warm-up's clock runs
        final long firstDeadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (counter.taken() == 0)
        {
            counter.check();
            if (System.nanoTime() > firstDeadline)
            {
                throw new IllegalStateException("no message within 30 s of opening the stream");
            }
            Thread.sleep(1);
        }
        final CallLoop.WarmUp warmUp = new CallLoop.WarmUp(workload);
        while (!warmUp.done())
        {
            counter.check();
            Thread.sleep(50);
        }
        counter.check();
        CallLoop.announceStart();
        final long allocated = Allocations.total();
        final long takenBefore = counter.taken();
        final long start = System.nanoTime();
        Thread.sleep(workload.measureMillis());
        final long takenAfter = counter.taken();
        final long end = System.nanoTime();
        final long allocatedAfter = Allocations.total();
        counter.check();
        if (takenAfter == takenBefore)
        {
            throw new IllegalStateException("no message arrived in the " + workload.measureMillis() + " ms window (" +
                takenBefore + " before it)");
        }
        return new Measurement(takenAfter - takenBefore, end - start, allocatedAfter - allocated, Double.NaN,
            warmUp.nanos(), new Histogram(3), heldPeak.getAsLong());
    }
}
