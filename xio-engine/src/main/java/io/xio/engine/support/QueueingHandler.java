package io.xio.engine.support;

import io.xio.engine.InboundRequest;
import io.xio.engine.RequestHandler;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A handler for work too slow for a context thread: runs each request's {@link Work} on an executor, at most
 * {@code workers} requests in progress at once, with at most {@code maxQueued} more waiting to start. A request
 * that finds every place taken and the queue full is turned away at once with back-pressure
 * ({@link InboundRequest#refuse}) instead of waiting past its caller's deadline, and a request its sender
 * cancelled while it waited is turned away instead of run. Register it in place of the handler:
 * {@code engine.register("kv", new QueueingHandler(executor, 8, QueueingHandler.defaultMaxQueued(8), work))}.
 *
 * <p>Thread-safe: {@link #onRequest} runs on context threads, the work on the executor's threads,
 * {@link #finished} on any; the figures may be read from any thread. Nothing is allocated per request here (the
 * executor may allocate).
 */
public final class QueueingHandler implements RequestHandler
{
    private static final Logger LOG = LoggerFactory.getLogger(QueueingHandler.class);

    /** Why a request was turned away unrun. */
    public enum Refusal
    {
        /** Every place was taken and the queue was full. */
        FULL,
        /** Its sender cancelled it while it waited. */
        CANCELLED,
        /** Its caller's deadline passed while it waited. */
        EXPIRED
    }

    /** A service's work on one request, run on a worker thread. */
    @FunctionalInterface
    public interface Work
    {
        /**
         * Runs one request: answers it, now or later and from any thread, and closes its message, as a
         * {@link RequestHandler} does; a throw becomes an error answer.
         *
         * @param arrivedNanos {@link System#nanoTime()} when the request reached the handler, before it waited
         * @return true when the request is finished with, so its place goes to the next one; false when it goes
         *         on elsewhere (answered later, from another thread) and keeps its place until that code calls
         *         {@link QueueingHandler#finished()}, once
         */
        boolean run(InboundRequest request, long arrivedNanos) throws Exception;

        /**
         * A request this work will not see: closes its message and answers it. By default closes it and
         * {@link InboundRequest#refuse refuses} it (which sends nothing for a cancelled request), or for
         * {@link Refusal#EXPIRED} answers DEADLINE_EXCEEDED ({@link InboundRequest#refuseIfExpired}). Called on
         * the context thread for {@link Refusal#FULL}, on a worker thread for the others.
         */
        default void refused(final InboundRequest request, final Refusal why, final long arrivedNanos)
        {
            request.message().close();
            if (why != Refusal.EXPIRED || !request.refuseIfExpired())
            {
                request.refuse();
            }
        }
    }

    private final Executor executor;
    private final Work work;
    private final int workers;
    private final int maxQueued;
    private final Runnable drain = this::drain;
    private final Object lock = new Object();
    // Guarded by lock: a ring of requests not started yet and their arrival times; of them, `promised` are
    // promised to drains handed to the executor and not begun yet; the places not taken.
    private final InboundRequest[] ring;
    private final long[] arrivals;
    private int head;
    private int size;
    private int promised;
    private int free;
    private final AtomicLong refusedFull = new AtomicLong();
    private final AtomicLong refusedCancelled = new AtomicLong();
    private final AtomicLong refusedExpired = new AtomicLong();

    /**
     * @param executor  runs the work; it should start each task at once (a thread per task, or at least
     *                  {@code workers} threads), else requests also wait in it
     * @param workers   requests in progress at once, at least 1
     * @param maxQueued requests waiting to start, at least 0; {@link #defaultMaxQueued} suits most services
     * @param work      what each request runs
     */
    public QueueingHandler(final Executor executor, final int workers, final int maxQueued, final Work work)
    {
        if (workers < 1 || maxQueued < 0 || (long)workers + maxQueued > Integer.MAX_VALUE - 8)
        {
            throw new IllegalArgumentException("workers must be at least 1 and maxQueued at least 0, were " +
                workers + " and " + maxQueued);
        }
        this.executor = java.util.Objects.requireNonNull(executor, "executor");
        this.work = java.util.Objects.requireNonNull(work, "work");
        this.workers = workers;
        this.maxQueued = maxQueued;
        this.ring = new InboundRequest[workers + maxQueued];
        this.arrivals = new long[ring.length];
        this.free = workers;
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
        return (int)Math.min(Integer.MAX_VALUE - 8L - workers, 2L * workers);
    }

    @Override
    public void onRequest(final InboundRequest request)
    {
        final long arrived = System.nanoTime();
        final boolean start;
        final boolean full;
        synchronized (lock)
        {
            start = free > 0;
            full = !start && size - promised >= maxQueued;
            if (!full)
            {
                push(request, arrived);
            }
            if (start)
            {
                free--;
                promised++;
            }
        }
        if (start)
        {
            startDrain(request, arrived);
        }
        else if (full)
        {
            refusedFull.incrementAndGet();
            turnAway(request, Refusal.FULL, arrived);
        }
    }

    /**
     * A request whose {@link Work#run} returned false is finished with: its place goes to the next request
     * waiting, if any. Any thread, once per such request.
     */
    public void finished()
    {
        final boolean next;
        synchronized (lock)
        {
            next = size > promised;
            if (next)
            {
                promised++;
            }
            else
            {
                free++;
            }
        }
        if (next)
        {
            startDrain(null, 0);
        }
    }

    /** Requests waiting to start now: never more than {@link #maxQueued()}. */
    public int queued()
    {
        synchronized (lock)
        {
            return size - promised;
        }
    }

    /** Requests in progress now (started or about to, and not finished with): at most {@link #workers()}. */
    public int inProgress()
    {
        synchronized (lock)
        {
            return workers - free;
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

    /** Requests turned away since start because every place was taken and the queue full. */
    public long refusedFull()
    {
        return refusedFull.get();
    }

    /** Requests turned away since start because their sender had cancelled them while they waited. */
    public long refusedCancelled()
    {
        return refusedCancelled.get();
    }

    /** Requests turned away because their caller's deadline passed while they waited. */
    public long refusedExpired()
    {
        return refusedExpired.get();
    }

    private void push(final InboundRequest request, final long arrived)
    {
        final int tail = index(head + size);
        ring[tail] = request;
        arrivals[tail] = arrived;
        size++;
    }

    private int index(final int at)
    {
        return at >= ring.length ? at - ring.length : at;
    }

    /** Hands a drain to the executor; if it refuses, the place is given back and {@code request} turned away. */
    private void startDrain(final InboundRequest request, final long arrived)
    {
        try
        {
            executor.execute(drain);
        }
        catch (final RejectedExecutionException ex)
        {
            final boolean removed;
            synchronized (lock)
            {
                promised--;
                free++;
                removed = request != null && remove(request);
            }
            if (removed)
            {
                refusedFull.incrementAndGet();
                turnAway(request, Refusal.FULL, arrived);
            }
        }
    }

    /** Takes {@code request} out of the ring, if it is still there (a rare path: the executor refused). */
    private boolean remove(final InboundRequest request)
    {
        for (int i = size - 1; i >= 0; i--)
        {
            if (ring[index(head + i)] == request)
            {
                for (int j = i; j < size - 1; j++)
                {
                    ring[index(head + j)] = ring[index(head + j + 1)];
                    arrivals[index(head + j)] = arrivals[index(head + j + 1)];
                }
                ring[index(head + size - 1)] = null;
                size--;
                return true;
            }
        }
        return false;
    }

    /** On a worker thread: runs the oldest request, and then the next ones while its place is not passed on. */
    private void drain()
    {
        InboundRequest request;
        long arrived;
        synchronized (lock)
        {
            promised--;
            request = ring[head];
            arrived = arrivals[head];
            ring[head] = null;
            head = index(head + 1);
            size--;
        }
        while (runOne(request, arrived))
        {
            synchronized (lock)
            {
                if (size == promised)
                {
                    free++;
                    return;
                }
                request = ring[head];
                arrived = arrivals[head];
                ring[head] = null;
                head = index(head + 1);
                size--;
            }
        }
    }

    /**
     * Why a request that waited is no longer worth running (its sender cancelled it, or its caller's deadline
     * passed: nobody waits for the answer), or null when it is.
     */
    private static Refusal notWorthStarting(final InboundRequest request)
    {
        if (request.isCancelled())
        {
            return Refusal.CANCELLED;
        }
        return request.isExpired() ? Refusal.EXPIRED : null;
    }

    /** Runs or turns away one request; true when its place is free for the next. */
    private boolean runOne(final InboundRequest request, final long arrived)
    {
        final Refusal stale = notWorthStarting(request);
        if (stale != null)
        {
            (stale == Refusal.CANCELLED ? refusedCancelled : refusedExpired).incrementAndGet();
            turnAway(request, stale, arrived);
            return true;
        }
        try
        {
            return work.run(request, arrived);
        }
        catch (final Throwable ex)
        {
            request.message().close(); // work that threw is not going to release it
            if (request.isOneWay())
            {
                LOG.warn("work on one-way message {} of {} failed", request.requestId(), request.session(), ex);
                return true;
            }
            try
            {
                request.fail(ex);
            }
            catch (final IllegalStateException answeredAlready)
            {
                // it threw after answering: the answer stands
            }
            return true;
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
}
