package io.xio.engine.session.call;

import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

/**
 * A lane's idle calls, for a service that reuses them ({@link io.xio.engine.RequestReuse#AFTER_ANSWER}).
 * Taken on the lane's thread; given back from whichever thread let go of a call last.
 */
final class CallPool
{
    private final Lane lane;
    private final ManyToOneConcurrentArrayQueue<ServerCall> idle;

    CallPool(final Lane lane, final int maxInFlight)
    {
        this.lane = lane;
        this.idle = new ManyToOneConcurrentArrayQueue<>(Math.max(2, Math.min(maxInFlight, 4096)));
    }

    ServerCall take(final long id, final int flags)
    {
        final ServerCall call = idle.poll();
        if (call == null)
        {
            return new ServerCall(lane, this).beginAs(id, flags);
        }
        return call.beginAs(id, flags);
    }

    void recycle(final ServerCall call)
    {
        idle.offer(call); // when full, the call is left to the garbage collector
    }
}
