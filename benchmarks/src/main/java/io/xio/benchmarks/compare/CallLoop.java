package io.xio.benchmarks.compare;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.DoubleSupplier;

/**
 * The client side of every peer: warm up, announce the window on stdout ({@code START}), measure, and return
 * what was measured. Two shapes: a blocking call repeated by the calling thread (one outstanding), or a
 * pipeline of {@link Workload#outstanding()} slots, each issuing its next call from the completion of the last,
 * on whatever thread the peer completes it (an event loop, typically). Neither allocates per call.
 */
public final class CallLoop
{
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);

    /** One call that returns when its answer has arrived. */
    @FunctionalInterface
    public interface BlockingCall
    {
        void call() throws Exception;
    }

    /** Starts one call without blocking and completes {@code slot} exactly once when it ends. */
    @FunctionalInterface
    public interface AsyncCall
    {
        void issue(Slot slot);
    }

    private CallLoop()
    {
    }

    public static Measurement blocking(final Workload workload, final BlockingCall call, final DoubleSupplier framesPerWrite)
        throws Exception
    {
        final WarmUp warmUp = new WarmUp(workload);
        while (!warmUp.done())
        {
            call.call();
        }
        final Histogram histogram = new Histogram(HIGHEST_NANOS, 3);
        announceStart();
        final long allocated = Allocations.total();
        final long start = System.nanoTime();
        final long end = start + TimeUnit.MILLISECONDS.toNanos(workload.measureMillis());
        long now = start;
        long calls = 0;
        while (now < end)
        {
            call.call();
            final long done = System.nanoTime();
            histogram.recordValue(Math.min(done - now, HIGHEST_NANOS));
            now = done;
            calls++;
        }
        final long allocatedAfter = Allocations.total();
        return new Measurement(calls, now - start, allocatedAfter - allocated, framesPerWrite.getAsDouble(),
            warmUp.nanos(), histogram);
    }

    /**
     * Runs {@link Workload#outstanding()} calls at a time. {@code starter} issues each slot's first call (e.g.
     * on the peer's event loop); later ones leave from the previous completion.
     */
    public static Measurement pipelined(final Workload workload, final AsyncCall call, final Executor starter,
        final DoubleSupplier framesPerWrite) throws Exception
    {
        final Recorder recorder = new Recorder(HIGHEST_NANOS, 3);
        final CountDownLatch idle = new CountDownLatch(workload.outstanding());
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Slot[] slots = new Slot[workload.outstanding()];
        for (int i = 0; i < slots.length; i++)
        {
            slots[i] = new Slot(i, call, recorder, idle, failure);
        }
        for (final Slot slot : slots)
        {
            starter.execute(slot::issue);
        }
        final WarmUp warmUp = new WarmUp(workload);
        while (!warmUp.done())
        {
            Thread.sleep(50);
        }
        recorder.getIntervalHistogram();
        announceStart();
        final long allocated = Allocations.total();
        final long start = System.nanoTime();
        Thread.sleep(workload.measureMillis());
        final Histogram histogram = recorder.getIntervalHistogram();
        final long end = System.nanoTime();
        final long allocatedAfter = Allocations.total();
        for (final Slot slot : slots)
        {
            slot.stopping = true;
        }
        if (!idle.await(30, TimeUnit.SECONDS))
        {
            throw new IllegalStateException("calls still outstanding 30 s after the window closed");
        }
        if (failure.get() != null)
        {
            throw new IllegalStateException("a call failed", failure.get());
        }
        return new Measurement(histogram.getTotalCount(), end - start, allocatedAfter - allocated,
            framesPerWrite.getAsDouble(), warmUp.nanos(), histogram);
    }

    /**
     * Ends the warm-up once the shortest one is over and this JVM's JIT compiler has been quiet for a second (a
     * large client such as gRPC compiles for seconds on its one core), or at the longest warm-up.
     */
    private static final class WarmUp
    {
        private static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(1);
        private static final long QUIET_COMPILE_MILLIS = 10;

        private final CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
        private final long start;
        private final long shortest;
        private final long longest;
        private long nextCheck;
        private long quietSince;
        private long compileMillis = -1;
        private long ended;

        WarmUp(final Workload workload)
        {
            start = System.nanoTime();
            shortest = start + TimeUnit.MILLISECONDS.toNanos(workload.warmupMillis());
            longest = start + TimeUnit.MILLISECONDS.toNanos(workload.warmupMaxMillis());
            quietSince = start;
            nextCheck = start;
        }

        boolean done()
        {
            final long now = System.nanoTime();
            if (now < nextCheck)
            {
                return false;
            }
            nextCheck = now + TimeUnit.MILLISECONDS.toNanos(50);
            if (now >= longest)
            {
                ended = now;
                return true;
            }
            if (compiler != null && compiler.isCompilationTimeMonitoringSupported())
            {
                final long compiled = compiler.getTotalCompilationTime();
                if (compileMillis < 0 || compiled - compileMillis > QUIET_COMPILE_MILLIS)
                {
                    compileMillis = compiled;
                    quietSince = now;
                }
            }
            if (now >= shortest && now - quietSince >= QUIET_NANOS)
            {
                ended = now;
                return true;
            }
            return false;
        }

        long nanos()
        {
            return ended - start;
        }
    }

    private static void announceStart()
    {
        System.out.println("START");
        System.out.flush();
    }

    /** One of the pipeline's places for a call; the peer completes it once per call, from any thread. */
    public static final class Slot
    {
        private final int index;
        private final AsyncCall call;
        private final Recorder recorder;
        private final CountDownLatch idle;
        private final AtomicReference<Throwable> failure;
        private volatile boolean stopping;
        private long start;

        private Slot(final int index, final AsyncCall call, final Recorder recorder, final CountDownLatch idle,
            final AtomicReference<Throwable> failure)
        {
            this.index = index;
            this.call = call;
            this.recorder = recorder;
            this.idle = idle;
            this.failure = failure;
        }

        /** 0 to outstanding - 1: lets a peer keep one reusable callback per slot. */
        public int index()
        {
            return index;
        }

        private void issue()
        {
            start = System.nanoTime();
            call.issue(this);
        }

        /** The call ended; {@code error} is null on success. Issues the next call unless the run is over. */
        public void completed(final Throwable error)
        {
            recorder.recordValue(Math.min(System.nanoTime() - start, HIGHEST_NANOS));
            if (error != null)
            {
                failure.compareAndSet(null, error);
            }
            if (stopping || error != null)
            {
                idle.countDown();
                return;
            }
            issue();
        }
    }
}
