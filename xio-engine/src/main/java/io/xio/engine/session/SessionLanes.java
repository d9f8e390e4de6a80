package io.xio.engine.session;

import io.xio.engine.XioException;
import io.xio.engine.XioUri;
import io.xio.engine.context.EventLoop;
import io.xio.engine.session.call.Lane;
import io.xio.engine.session.call.LaneRing;
import io.xio.engine.session.connection.Peers;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A session's lanes as they join and leave its {@link LaneRing}: a server lane for each connection that set up or
 * attached, gone when its connection is, and the linger of a server session left with none (it expires unless a
 * connection attaches within the reconnect timeout: each join moves the linger epoch on). The ring changes only
 * here, under this part's monitor. Any thread.
 */
final class SessionLanes
{
    /** What the lanes need of their session. */
    interface Host
    {
        boolean isOpen();

        /** Whether the session closed: no lane joins it then. */
        boolean isClosed();

        /** Expires the session after the reconnect timeout, on the context of {@code peers}, unless it moved on. */
        void expireLater(Peers peers, long epoch);
    }

    private final LaneRing ring;
    private final Host host;
    private long lingerEpoch;

    SessionLanes(final LaneRing ring, final Host host)
    {
        this.ring = ring;
        this.host = host;
    }

    /** Adds a server lane; false when the session closed meanwhile. */
    boolean join(final Lane lane)
    {
        synchronized (this)
        {
            if (host.isClosed())
            {
                return false;
            }
            ring.add(lane);
            lingerEpoch++;
        }
        return true;
    }

    /** A server lane is gone for good (its requests failed or handed over): forget it, expire if none is left. */
    void leave(final Lane lane)
    {
        final boolean none;
        final long epoch;
        synchronized (this)
        {
            if (!ring.remove(lane))
            {
                return;
            }
            none = ring.live() == 0;
            epoch = lingerEpoch;
        }
        if (none && host.isOpen())
        {
            host.expireLater(lane.peers, epoch); // unless a connection attaches since (which moves the epoch on)
        }
    }

    /**
     * A server lane lost the session's last connection and keeps this side's requests (parked) for the client's
     * return; the session expires unless a connection attaches within the reconnect timeout.
     */
    void parked(final Lane lane)
    {
        final boolean none;
        final long epoch;
        synchronized (this)
        {
            none = ring.live() == 0;
            epoch = lingerEpoch;
        }
        if (none && host.isOpen())
        {
            host.expireLater(lane.peers, epoch);
        }
    }

    /**
     * Whether the lingering session expires now: no lane joined since {@code epoch} and none is live, and
     * {@code close} moved it to closed. Runs {@code close} under the monitor, so that no lane joins meanwhile.
     */
    boolean expires(final long epoch, final BooleanSupplier close)
    {
        synchronized (this)
        {
            return ring.live() == 0 && lingerEpoch == epoch && close.getAsBoolean();
        }
    }

    /**
     * A client session was accepted at {@code target}: the further lanes attach, the second to the first of
     * {@code connectionPortals}, the third to the next and so on in turn, each trying the rest and then
     * {@code target} when it cannot reach its own; all of them to {@code target} when there are none. Runs
     * {@code allUp} once every lane is up (at once when there is only one).
     */
    void attachFurther(final XioUri target, final List<XioUri> connectionPortals, final Runnable allUp)
    {
        final Lane[] all = ring.all();
        if (all.length == 1)
        {
            allUp.run();
            return;
        }
        final AtomicInteger remaining = new AtomicInteger(all.length - 1);
        final int n = connectionPortals.size();
        for (int i = 1; i < all.length; i++)
        {
            final Lane lane = all[i];
            final List<XioUri> order = new ArrayList<>(n + 1);
            for (int k = 0; k < n; k++)
            {
                order.add(connectionPortals.get((i - 1 + k) % n));
            }
            order.add(target);
            lane.loop.execute(() -> lane.connectFirst(order.get(0), order.subList(1, order.size()), () ->
            {
                if (remaining.decrementAndGet() == 0)
                {
                    allUp.run();
                }
            }));
        }
    }

    /** Closes every lane on its own context (at once when that is the caller's); telling the peer or not. */
    void closeAll(final Throwable cause, final boolean tellPeer)
    {
        for (final Lane lane : ring.all())
        {
            if (lane.loop.inContextThread())
            {
                lane.close(cause, tellPeer);
            }
            else if (!lane.loop.isClosed())
            {
                try
                {
                    lane.loop.execute(() -> lane.close(cause, tellPeer));
                }
                catch (final XioException closing)
                {
                    // that context stopped meanwhile; its connections are gone already
                }
            }
        }
    }

    /** Whether a lane is on {@code loop}. */
    boolean usesContext(final EventLoop loop)
    {
        for (final Lane lane : ring.all())
        {
            if (lane.loop == loop)
            {
                return true;
            }
        }
        return false;
    }

    /** Hands the requests waiting on lanes still down (reconnecting or parked) to {@code up}, which came up. */
    void handOverTo(final Lane up)
    {
        for (final Lane lane : ring.all())
        {
            if (lane != up && !lane.isUp())
            {
                lane.loop.execute(() -> lane.handOver(up));
            }
        }
    }
}
