package io.xio.engine.session.call;

import io.xio.engine.XioException;

/**
 * One session's range cancels whose lanes have not all made their pass ({@link RangeCancel}); usually none. A lane
 * that hands a request to another looks here first, so that no request slips past a cancel on its way. Any thread:
 * the list is copied on write, under this object's lock.
 */
public final class RangeCancels
{
    private volatile RangeCancel[] inProgress = RangeCancel.NONE;

    /**
     * Cancels this side's requests {@code firstId..lastId} on {@code lanes}; completes with how many were aborted.
     * Any thread.
     *
     * @throws IllegalArgumentException when the ids are not a range
     */
    public java.util.concurrent.CompletableFuture<Integer> cancel(final long firstId, final long lastId,
        final Lane[] lanes)
    {
        if (firstId < 1 || lastId < firstId)
        {
            throw new IllegalArgumentException("request ids " + firstId + ".." + lastId + " are not a range: " +
                "ids start at 1 and the last may not come before the first");
        }
        final RangeCancel range = new RangeCancel(this, firstId, lastId, lanes);
        start(range);
        return range.result;
    }

    /** Lists {@code range} and asks every lane it names to make its pass. Any thread. */
    void start(final RangeCancel range)
    {
        synchronized (this)
        {
            final RangeCancel[] now = inProgress;
            final RangeCancel[] more = java.util.Arrays.copyOf(now, now.length + 1);
            more[now.length] = range;
            inProgress = more; // before any lane hears of it: a lane hands nothing over past it unseen
        }
        range.noParts();
        for (final Lane lane : range.lanes())
        {
            try
            {
                lane.loop.execute(() -> lane.cancelRange(range));
            }
            catch (final XioException closed)
            {
                range.passed(); // that context stopped: its requests failed with it
                range.partDone(0);
            }
        }
    }

    /** The range cancels whose lanes have not all reported. Any thread. */
    RangeCancel[] inProgress()
    {
        return inProgress;
    }

    /** Every lane made its pass of {@code range}: requests handed between lanes need not look out for it any more. */
    synchronized void done(final RangeCancel range)
    {
        final RangeCancel[] now = inProgress;
        int at = -1;
        for (int i = 0; i < now.length; i++)
        {
            if (now[i] == range)
            {
                at = i;
            }
        }
        if (at < 0)
        {
            return;
        }
        final RangeCancel[] fewer = new RangeCancel[now.length - 1];
        System.arraycopy(now, 0, fewer, 0, at);
        System.arraycopy(now, at + 1, fewer, at, now.length - at - 1);
        inProgress = fewer;
    }
}
