package io.xio.benchmarks.compare;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.DoubleSupplier;

/**
 * The client side of every peer: warm up, announce the window on stdout ({@code START}), measure, and return
 * what was measured. Two shapes: a blocking call repeated by the calling thread (one outstanding), or a
 * pipeline of {@link Workload#outstanding()} slots, each issuing its next call from the completion of the last,
 * on whatever thread the peer completes it (an event loop, typically). Neither allocates per call.
 *
 * <p>A {@link Workload#isPaced() paced} workload warms up unpaced (the JIT compiler needs the calls), then sends at
 * the workload's rate for a settling second (an adaptive idle strategy learns the gaps), then measures at that
 * rate. The calling thread parks between sends, so a paced client costs no CPU while it waits; each call's latency
 * runs from its send, the moment the calling thread issues it.
 */
public final class CallLoop
{
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(1);

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
        if (workload.isPaced())
        {
            return blockingPaced(workload, call, framesPerWrite, warmUp, histogram);
        }
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

    private static Measurement blockingPaced(final Workload workload, final BlockingCall call,
        final DoubleSupplier framesPerWrite, final WarmUp warmUp, final Histogram histogram) throws Exception
    {
        final Pacer pacer = new Pacer(workload.callsPerSecond());
        final long settled = System.nanoTime() + SETTLE_NANOS;
        while (System.nanoTime() < settled)
        {
            pacer.awaitNext();
            call.call();
        }
        announceStart();
        final long allocated = Allocations.total();
        final long start = System.nanoTime();
        final long end = start + TimeUnit.MILLISECONDS.toNanos(workload.measureMillis());
        long calls = 0;
        long now = start;
        while (now < end)
        {
            final long sent = pacer.awaitNext();
            call.call();
            now = System.nanoTime();
            histogram.recordValue(Math.min(now - sent, HIGHEST_NANOS));
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
        if (workload.isPaced())
        {
            return pipelinedPaced(workload, slots[0], starter, recorder, failure, framesPerWrite, warmUp);
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
     * After the unpaced warm-up: the slot's calls now leave from this thread at the workload's rate, through
     * {@code starter}, and complete on the peer's thread as before; this thread parks between sends.
     */
    private static Measurement pipelinedPaced(final Workload workload, final Slot slot, final Executor starter,
        final Recorder recorder, final AtomicReference<Throwable> failure, final DoubleSupplier framesPerWrite,
        final WarmUp warmUp) throws Exception
    {
        slot.paced = true;
        awaitIdle(slot, failure);
        final Pacer pacer = new Pacer(workload.callsPerSecond());
        final long settled = System.nanoTime() + SETTLE_NANOS;
        while (System.nanoTime() < settled)
        {
            sendPaced(slot, starter, pacer, failure);
        }
        awaitIdle(slot, failure); // the last settling call is not one of the measured ones
        recorder.getIntervalHistogram();
        announceStart();
        final long allocated = Allocations.total();
        final long start = System.nanoTime();
        final long end = start + TimeUnit.MILLISECONDS.toNanos(workload.measureMillis());
        while (System.nanoTime() < end)
        {
            sendPaced(slot, starter, pacer, failure);
        }
        awaitIdle(slot, failure);
        final Histogram histogram = recorder.getIntervalHistogram();
        final long stop = System.nanoTime();
        final long allocatedAfter = Allocations.total();
        return new Measurement(histogram.getTotalCount(), stop - start, allocatedAfter - allocated,
            framesPerWrite.getAsDouble(), warmUp.nanos(), histogram);
    }

    private static void sendPaced(final Slot slot, final Executor starter, final Pacer pacer,
        final AtomicReference<Throwable> failure) throws InterruptedException
    {
        final long sent = pacer.awaitNext();
        awaitIdle(slot, failure); // a call slower than the period delays the next one: still 1 outstanding
        slot.busy = true;
        slot.start = sent;
        starter.execute(slot.issueStamped);
    }

    /** Parks (no spinning: the client's CPU is measured) until the slot's call has completed. */
    private static void awaitIdle(final Slot slot, final AtomicReference<Throwable> failure)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (slot.busy)
        {
            if (failure.get() != null)
            {
                throw new IllegalStateException("a call failed", failure.get());
            }
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("a paced call still outstanding after 30 s");
            }
            LockSupport.parkNanos(20_000);
            if (Thread.interrupted())
            {
                throw new InterruptedException();
            }
        }
        if (failure.get() != null)
        {
            throw new IllegalStateException("a call failed", failure.get());
        }
    }

    /**
     * Send times on a fixed grid, one slot a period. A send that comes late (a slow call, a late wake-up) takes
     * the slot it was late for and skips the slots it missed rather than bursting to catch up, so no two sends
     * share a slot: a window of {@code d} holds at most {@code ceil(d / period) + 1} sends, and the schedule does
     * not drift by the wake-up latency.
     */
    static final class Pacer
    {
        private final long period;
        private long next;

        Pacer(final int callsPerSecond)
        {
            period = Math.max(1, TimeUnit.SECONDS.toNanos(1) / callsPerSecond);
            next = System.nanoTime();
        }

        /** Parks until the next send time; the time it woke, i.e. the send. */
        long awaitNext()
        {
            long now = System.nanoTime();
            while (now < next)
            {
                LockSupport.parkNanos(next - now);
                now = System.nanoTime();
            }
            next = slotAfter(next, now, period);
            return now;
        }

        /** The first slot of the grid through {@code slot} that is later than {@code now} (at least {@code slot}). */
        static long slotAfter(final long slot, final long now, final long period)
        {
            return now < slot ? slot : slot + period * ((now - slot) / period + 1);
        }
    }

    /**
     * Ends the warm-up once the shortest one is over and this JVM's JIT compiler has been quiet for a second (a
     * large client such as gRPC compiles for seconds on its one core), or at the longest warm-up.
     */
    static final class WarmUp
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

    static void announceStart()
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
        /** Set by the pacing thread: completions no longer issue the next call but free the slot. */
        private volatile boolean paced;
        /** In flight: true from the first call (unpaced calls follow each other) until a paced one completes. */
        private volatile boolean busy = true;
        private long start;
        /** One task for every paced send, so pacing allocates nothing per call. */
        private final Runnable issueStamped = this::issueAsStamped;

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

        /** A paced send: {@link #start} was set by the pacing thread, which handed this over via the starter. */
        private void issueAsStamped()
        {
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
            if (paced)
            {
                busy = false;
                return;
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
