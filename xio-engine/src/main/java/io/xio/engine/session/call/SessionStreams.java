package io.xio.engine.session.call;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The streams of one session, either side's, whichever lane holds them now: a re-sent open arriving on another lane
 * finds its stream here, and a frame for an id above every stream a side ever opened on the session breaks the
 * protocol. Any thread.
 */
public final class SessionStreams
{
    /** Streams this side opened. */
    final ConcurrentHashMap<Long, LaneStream> opened = new ConcurrentHashMap<>();
    /** Streams the peer opened. */
    final ConcurrentHashMap<Long, LaneStream> accepted = new ConcurrentHashMap<>();
    private final AtomicLong highestOpened = new AtomicLong();
    private final AtomicLong highestAccepted = new AtomicLong();
    /** Most CANCELs and end acknowledgements kept for the next connection ({@link #owe}). */
    static final int OWED = 1024;
    private final java.util.ArrayDeque<long[]> owed = new java.util.ArrayDeque<>();

    void add(final LaneStream stream, final boolean mine)
    {
        (mine ? opened : accepted).put(stream.id, stream);
        seen(stream.id, mine);
    }

    void remove(final LaneStream stream, final boolean mine)
    {
        (mine ? opened : accepted).remove(stream.id, stream);
    }

    /** An open of {@code id} was sent (mine) or arrived: frames for ids up to it are no violation. */
    void seen(final long id, final boolean mine)
    {
        (mine ? highestOpened : highestAccepted).accumulateAndGet(id, Math::max);
    }

    /** Whether a stream of that id was ever opened on the session by this side (mine) or the peer. */
    boolean everOpened(final long id, final boolean mine)
    {
        return id >= 1 && id <= (mine ? highestOpened : highestAccepted).get();
    }

    /**
     * Remembers what this side owes the peer about a stream of its own that ended while (or just before) a connection
     * went down: a CANCEL ({@code endSequence} 0) or the acknowledgement of the acceptor's end at {@code endSequence}.
     * The next lane to come up says it ({@link #settle}). At most {@link #OWED} are kept, the oldest let go.
     */
    void owe(final long id, final long endSequence)
    {
        synchronized (owed)
        {
            if (owed.size() >= OWED)
            {
                owed.pollFirst();
            }
            owed.add(new long[] {id, endSequence});
        }
    }

    /** Says on {@code lane}'s connection what is owed, and forgets it. That lane's thread. */
    void settle(final StreamMoves lane)
    {
        final java.util.List<long[]> due;
        synchronized (owed)
        {
            if (owed.isEmpty())
            {
                return;
            }
            due = new java.util.ArrayList<>(owed);
            owed.clear();
        }
        for (final long[] entry : due)
        {
            lane.settle(entry[0], entry[1]);
        }
    }

    /** Streams open on the session now, either side's. */
    public int open()
    {
        return opened.size() + accepted.size();
    }
}
