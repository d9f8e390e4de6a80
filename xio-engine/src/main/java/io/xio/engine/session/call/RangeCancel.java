package io.xio.engine.session.call;

import io.xio.engine.XioFuture;
import io.xio.engine.session.Futures;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One application cancel of an id range ({@link io.xio.engine.Session#cancel(long, long)}) across the session's lanes:
 * it adds up what each part reports and completes the application's future with the number of requests aborted once
 * every part has. A part is each lane's pass over its requests, each CANCEL a lane sent for it (done when its
 * CANCEL_RESULT arrives or the connection ends), and each request handed to another lane while the cancel was on its
 * way to the lane it left (done when the new lane has cancelled it). Parts report from their lanes' context threads;
 * {@link #result} completes on the thread of the last one.
 *
 * <p>A cancel of one future (a cancel of its request id) is one of a single id that completes no count: it settles the
 * future's cancel outcome instead. It is listed in the session's range cancels only until every lane has made its pass,
 * as no hand-off can need it after that; the CANCELs it sent are not listed anywhere.
 */
final class RangeCancel
{
    static final RangeCancel[] NONE = new RangeCancel[0];

    final long first;
    final long last;
    /** The count of requests aborted; null for a cancel of one future, which nobody asks the count of. */
    final CompletableFuture<Integer> result;
    private final RangeCancels registry;
    /** The future cancelled, for a cancel of one future; null for a range. */
    private final XioFuture<?> future;
    private final Lane[] lanes;
    /** Entry i: whether lanes[i] has made its pass; written and read on that lane's context thread only. */
    private final boolean[] passed;
    private final AtomicInteger parts;
    /** Lanes still to make their pass (or to be found stopped). */
    private final AtomicInteger passesDue;
    private final AtomicInteger aborted = new AtomicInteger();

    /** A cancel of the ids {@code first..last}, reporting the count. */
    RangeCancel(final RangeCancels registry, final long first, final long last, final Lane[] lanes)
    {
        this(registry, first, last, lanes, null);
    }

    /** A cancel of the one id of {@code future}, settling its cancel outcome when over. */
    RangeCancel(final RangeCancels registry, final long id, final Lane[] lanes, final XioFuture<?> future)
    {
        this(registry, id, id, lanes, future);
    }

    private RangeCancel(final RangeCancels registry, final long first, final long last, final Lane[] lanes,
        final XioFuture<?> future)
    {
        this.registry = registry;
        this.first = first;
        this.last = last;
        this.lanes = lanes;
        this.future = future;
        this.result = future == null ? new CompletableFuture<>() : null;
        this.passed = new boolean[lanes.length];
        this.parts = new AtomicInteger(lanes.length);
        this.passesDue = new AtomicInteger(lanes.length);
    }

    /** The lanes asked to make a pass. */
    Lane[] lanes()
    {
        return lanes;
    }

    /** Whether it names one id only: a lane looks that up rather than walking its requests. */
    boolean single()
    {
        return first == last;
    }

    boolean covers(final long id)
    {
        return id >= first && id <= last;
    }

    /**
     * Whether {@code lane} has still to make its pass: a request it hands to another lane now could reach that
     * lane after the other's pass, so it must take this cancel along. On {@code lane}'s context thread.
     */
    boolean awaitsPassOf(final Lane lane)
    {
        for (int i = 0; i < lanes.length; i++)
        {
            if (lanes[i] == lane)
            {
                return !passed[i];
            }
        }
        return false; // a lane that joined later: whatever it holds came from a lane that was asked, or is newer
    }

    /** {@code lane} makes its pass now. On {@code lane}'s context thread. */
    void passing(final Lane lane)
    {
        for (int i = 0; i < lanes.length; i++)
        {
            if (lanes[i] == lane)
            {
                passed[i] = true;
            }
        }
        passed();
    }

    /**
     * One lane made its pass, or will make none (its context stopped). After the last one no lane awaits a pass, so
     * no hand-off looks for this cancel any more: it leaves the session's list, while its CANCELs may still be out.
     */
    void passed()
    {
        if (passesDue.decrementAndGet() == 0)
        {
            registry.done(this);
        }
    }

    /** One more part to wait for. */
    void partStarted()
    {
        parts.incrementAndGet();
    }

    /** A part is done, having aborted {@code count} requests; the last one completes {@link #result}. */
    void partDone(final int count)
    {
        aborted.addAndGet(count);
        if (parts.decrementAndGet() == 0)
        {
            over(aborted.get()); // every part added its count before it counted itself done
        }
    }

    /** Completes at once when there is no lane to ask. */
    void noParts()
    {
        if (lanes.length == 0)
        {
            registry.done(this);
            over(0);
        }
    }

    private void over(final int count)
    {
        if (future != null)
        {
            Futures.cancelUnanswered(future); // a part that knew the outcome set it already
        }
        else
        {
            result.complete(count);
        }
    }
}
