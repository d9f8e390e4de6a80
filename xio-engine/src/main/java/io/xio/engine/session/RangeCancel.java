package io.xio.engine.session;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One application cancel of an id range ({@link SessionImpl#cancel(long, long)}) across the session's lanes: it
 * adds up what each part reports and completes the application's future with the number of requests aborted once
 * every part has. A part is each lane's pass over its requests, each CANCEL a lane sent for it (done when its
 * CANCEL_RESULT arrives or the connection ends), and each request handed to another lane while the cancel was on
 * its way to the lane it left (done when the new lane has cancelled it). Parts report from their lanes' context
 * threads; {@link #result} completes on the thread of the last one.
 */
final class RangeCancel
{
    static final RangeCancel[] NONE = new RangeCancel[0];

    final long first;
    final long last;
    final CompletableFuture<Integer> result = new CompletableFuture<>();
    private final SessionImpl session;
    private final Lane[] lanes;
    /** Entry i: whether lanes[i] has made its pass; written and read on that lane's context thread only. */
    private final boolean[] passed;
    private final AtomicInteger parts;
    private final AtomicInteger aborted = new AtomicInteger();

    RangeCancel(final SessionImpl session, final long first, final long last, final Lane[] lanes)
    {
        this.session = session;
        this.first = first;
        this.last = last;
        this.lanes = lanes;
        this.passed = new boolean[lanes.length];
        this.parts = new AtomicInteger(lanes.length);
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
            session.rangeCancelDone(this);
            result.complete(aborted.get()); // every part added its count before it counted itself done
        }
    }

    /** Completes at once when there is no lane to ask. */
    void noParts()
    {
        if (lanes.length == 0)
        {
            session.rangeCancelDone(this);
            result.complete(0);
        }
    }
}
