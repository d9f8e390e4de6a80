package io.xio.engine;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A handler for work too slow for a context thread: runs each request's {@link Work} on an executor, at most
 * {@code workers} at once, with at most {@code maxQueued} more requests waiting for a worker. A request that
 * finds every worker busy and the queue full is turned away at once with back-pressure
 * ({@link InboundRequest#refuse}) instead of waiting past its caller's deadline, and a request its sender
 * cancelled while it waited is turned away instead of run. Register it in place of the handler:
 * {@code engine.register("kv", new QueueingHandler(executor, 8, QueueingHandler.defaultMaxQueued(8), work))}.
 *
 * <p>Thread-safe: {@link #onRequest} runs on context threads, the work on the executor's threads; the figures
 * may be read from any thread. Nothing is allocated per request here (the executor may allocate).
 */
public final class QueueingHandler implements RequestHandler
{
    private static final Logger LOG = LoggerFactory.getLogger(QueueingHandler.class);

    /** Why a request was turned away unrun. */
    public enum Refusal
    {
        /** Every worker was busy and the queue was full. */
        FULL,
        /** Its sender cancelled it while it waited (in protocol v1 also how a passed deadline shows). */
        CANCELLED
    }

    /** A service's work on one request, run on a worker thread. */
    @FunctionalInterface
    public interface Work
    {
        /**
         * Runs one request: answers it, now or later and from any thread, and closes its message, as a
         * {@link RequestHandler} does; a throw becomes an error answer. The worker is free once this returns.
         *
         * @param arrivedNanos {@link System#nanoTime()} when the request reached the handler, before it waited
         */
        void run(InboundRequest request, long arrivedNanos) throws Exception;

        /**
         * A request this work will not see: closes its message and answers it. By default closes it and
         * {@link InboundRequest#refuse refuses}, which sends nothing for a cancelled request. Called on the
         * context thread for {@link Refusal#FULL}, on a worker thread for {@link Refusal#CANCELLED}.
         */
        default void refused(final InboundRequest request, final Refusal why, final long arrivedNanos)
        {
            request.message().close();
            request.refuse();
        }
    }

    private final Executor executor;
    private final Work work;
    private final int workers;
    private final int maxQueued;
    private final Object lock = new Object();
    // A ring of waiting requests and their arrival times, and the workers not running; guarded by lock.
    private final InboundRequest[] queue;
    private final long[] arrivals;
    private final Worker[] idle;
    private int idleCount;
    private int head;
    private int size;
    private final AtomicLong refusedFull = new AtomicLong();
    private final AtomicLong refusedCancelled = new AtomicLong();

    /**
     * @param executor runs the workers; it should start each at once (a thread per task, or at least
     *                 {@code workers} threads), else requests also wait in it
     * @param workers  requests run at once, at least 1
     * @param maxQueued requests waiting for a worker, at least 0; {@link #defaultMaxQueued} suits most services
     * @param work     what each request runs
     */
    public QueueingHandler(final Executor executor, final int workers, final int maxQueued, final Work work)
    {
        if (workers < 1 || maxQueued < 0)
        {
            throw new IllegalArgumentException("workers must be at least 1 and maxQueued at least 0, were " +
                workers + " and " + maxQueued);
        }
        this.executor = java.util.Objects.requireNonNull(executor, "executor");
        this.work = java.util.Objects.requireNonNull(work, "work");
        this.workers = workers;
        this.maxQueued = maxQueued;
        this.queue = new InboundRequest[Math.max(1, maxQueued)];
        this.arrivals = new long[queue.length];
        this.idle = new Worker[workers];
        for (int i = 0; i < workers; i++)
        {
            idle[i] = new Worker();
        }
        this.idleCount = workers;
    }

    /**
     * Twice the workers. A request that finds {@code q} others queued waits about {@code q / workers} service
     * times, so this bounds an accepted request's wait to about two service times however slow the service.
     * Under overload a queue of one per worker already hands each worker its next request the moment it frees;
     * the second absorbs a burst arriving while all are busy. Every further place only adds a service time per
     * {@code workers} to the wait of each request behind it, and under sustained overload buys nothing.
     */
    public static int defaultMaxQueued(final int workers)
    {
        return (int)Math.min(Integer.MAX_VALUE, 2L * workers);
    }

    @Override
    public void onRequest(final InboundRequest request)
    {
        final long arrived = System.nanoTime();
        final Worker worker;
        synchronized (lock)
        {
            if (idleCount > 0)
            {
                worker = idle[--idleCount];
                idle[idleCount] = null;
                worker.first = request;
                worker.firstArrived = arrived;
            }
            else if (size < maxQueued)
            {
                int tail = head + size;
                tail = tail >= queue.length ? tail - queue.length : tail;
                queue[tail] = request;
                arrivals[tail] = arrived;
                size++;
                return;
            }
            else
            {
                worker = null;
            }
        }
        if (worker != null && start(worker))
        {
            return;
        }
        refusedFull.incrementAndGet();
        turnAway(request, Refusal.FULL, arrived);
    }

    private boolean start(final Worker worker)
    {
        try
        {
            executor.execute(worker);
            return true;
        }
        catch (final RejectedExecutionException ex)
        {
            synchronized (lock)
            {
                worker.first = null;
                idle[idleCount++] = worker;
            }
            return false;
        }
    }

    /** Requests waiting for a worker now: never more than {@link #maxQueued()}. */
    public int queued()
    {
        synchronized (lock)
        {
            return size;
        }
    }

    /** Requests being run now (their work has not returned): never more than {@link #workers()}. */
    public int running()
    {
        synchronized (lock)
        {
            return workers - idleCount;
        }
    }

    public int workers()
    {
        return workers;
    }

    public int maxQueued()
    {
        return maxQueued;
    }

    /** Requests turned away since start because every worker was busy and the queue full. */
    public long refusedFull()
    {
        return refusedFull.get();
    }

    /** Requests turned away since start because their sender had cancelled them while they waited. */
    public long refusedCancelled()
    {
        return refusedCancelled.get();
    }

    /**
     * Whether a request that waited is still worth running. Protocol v1 carries no deadline: a sender whose
     * deadline passes cancels the request (protocol section 5.6), and that is how a request that waited too
     * long shows here. Protocol v2 carries the deadline; its check against the time waited belongs here.
     */
    private static boolean worthStarting(final InboundRequest request)
    {
        return !request.isCancelled();
    }

    private void runOne(final InboundRequest request, final long arrived)
    {
        if (!worthStarting(request))
        {
            refusedCancelled.incrementAndGet();
            turnAway(request, Refusal.CANCELLED, arrived);
            return;
        }
        try
        {
            work.run(request, arrived);
        }
        catch (final Throwable ex)
        {
            request.message().close(); // work that threw is not going to release it
            if (request.isOneWay())
            {
                LOG.warn("work on one-way message {} of {} failed", request.requestId(), request.session(), ex);
                return;
            }
            try
            {
                request.fail(ex);
            }
            catch (final IllegalStateException answeredAlready)
            {
                // it threw after answering: the answer stands
            }
        }
    }

    private void turnAway(final InboundRequest request, final Refusal why, final long arrived)
    {
        try
        {
            work.refused(request, why, arrived);
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("turning away request {} of {} ({}) failed", request.requestId(), request.session(), why, ex);
        }
    }

    /** Runs the request it was started with, then queued ones until none is left, then goes idle. */
    private final class Worker implements Runnable
    {
        // Written under the lock before the executor runs this worker, which publishes it to the worker's thread.
        private InboundRequest first;
        private long firstArrived;

        @Override
        public void run()
        {
            InboundRequest request = first;
            long arrived = firstArrived;
            first = null;
            while (request != null)
            {
                runOne(request, arrived);
                synchronized (lock)
                {
                    if (size == 0)
                    {
                        idle[idleCount++] = this;
                        request = null;
                    }
                    else
                    {
                        request = queue[head];
                        arrived = arrivals[head];
                        queue[head] = null;
                        head = head + 1 == queue.length ? 0 : head + 1;
                        size--;
                    }
                }
            }
        }
    }
}
