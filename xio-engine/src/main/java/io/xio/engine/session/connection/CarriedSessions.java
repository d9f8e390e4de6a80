package io.xio.engine.session.connection;

import org.agrona.collections.Long2ObjectHashMap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The sessions one connection carries, each by its lane there, and the ones that left it last: their late frames
 * are expected, others' are not. Owned by the connection's context thread.
 */
final class CarriedSessions
{
    private final Long2ObjectHashMap<CarriedLane> lanes = new Long2ObjectHashMap<>();
    private final int remembered;
    /**
     * The sessions that left last, as many as the connection may carry (allocated when the first one leaves).
     * Session ids are positive, so -1 marks an empty slot.
     */
    private long[] ended;
    private int endedNext;

    /** @param remembered how many sessions that left are remembered: as many as a connection may carry */
    CarriedSessions(final int remembered)
    {
        this.remembered = remembered;
    }

    /** The lane of session {@code sessionId} here, or null. */
    CarriedLane get(final long sessionId)
    {
        return lanes.get(sessionId);
    }

    boolean carries(final long sessionId)
    {
        return lanes.containsKey(sessionId);
    }

    int count()
    {
        return lanes.size();
    }

    boolean isEmpty()
    {
        return lanes.isEmpty();
    }

    void add(final long sessionId, final CarriedLane lane)
    {
        lanes.put(sessionId, lane);
    }

    /** Forgets {@code lane} of session {@code sessionId}, remembering that the session left; nothing if not here. */
    void remove(final long sessionId, final CarriedLane lane)
    {
        if (lanes.remove(sessionId, lane))
        {
            if (ended == null)
            {
                ended = new long[remembered];
                Arrays.fill(ended, -1);
            }
            ended[endedNext] = sessionId;
            endedNext = (endedNext + 1) % ended.length;
        }
    }

    /** Whether session {@code sessionId} left this connection a moment ago (among the last that left). */
    boolean leftLately(final long sessionId)
    {
        if (ended == null)
        {
            return false;
        }
        for (final long id : ended)
        {
            if (id == sessionId)
            {
                return true;
            }
        }
        return false;
    }

    /** Each lane here, in no order. */
    Iterable<CarriedLane> lanes()
    {
        return lanes.values();
    }

    /** Every lane here, forgotten: the connection is gone. */
    List<CarriedLane> takeAll()
    {
        final List<CarriedLane> all = new ArrayList<>(lanes.values());
        lanes.clear();
        return all;
    }
}
