package io.xio.engine.session.call;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A session's lanes (its presence on each context) and how a call or an answer picks one: the lane on the
 * calling context first, else one up, spread by thread; answers that arrive on the wrong lane go round the
 * ring. Copy-on-write: any thread reads; changes come under {@code SessionLanes}' monitor (a client session's
 * lanes are set before the session is shared).
 */
public final class LaneRing
{
    private volatile Lane[] lanes = new Lane[0];

    public Lane[] all()
    {
        return lanes;
    }

    int count()
    {
        return lanes.length;
    }

    public void set(final Lane[] all)
    {
        lanes = all;
    }

    public void add(final Lane lane)
    {
        final Lane[] grown = Arrays.copyOf(lanes, lanes.length + 1);
        grown[grown.length - 1] = lane;
        lanes = grown;
    }

    /** Forgets {@code lane}; false when it was not in the ring. */
    public boolean remove(final Lane lane)
    {
        final Lane[] current = lanes;
        int at = -1;
        for (int i = 0; i < current.length; i++)
        {
            if (current[i] == lane)
            {
                at = i;
            }
        }
        if (at < 0)
        {
            return false;
        }
        final Lane[] shrunk = new Lane[current.length - 1];
        System.arraycopy(current, 0, shrunk, 0, at);
        System.arraycopy(current, at + 1, shrunk, at, current.length - at - 1);
        lanes = shrunk;
        return true;
    }

    /** The lane after {@code lane} in the ring, or null when it is the only one. */
    Lane after(final Lane lane)
    {
        final Lane[] all = lanes;
        for (int i = 0; i < all.length; i++)
        {
            if (all[i] == lane)
            {
                return all.length > 1 ? all[(i + 1) % all.length] : null;
            }
        }
        return all.length > 0 ? all[0] : null;
    }

    /** A lane that is up, other than {@code except}, preferring one on the calling context; null when none is. */
    public Lane open(final Lane except)
    {
        Lane any = null;
        for (final Lane lane : lanes)
        {
            if (lane != except && lane.isUp())
            {
                if (lane.loop.inContextThread())
                {
                    return lane;
                }
                if (any == null)
                {
                    any = lane;
                }
            }
        }
        return any;
    }

    /** An open lane, else a parked one that keeps requests for the client's return; null when there is neither. */
    Lane openOrParked(final Lane except)
    {
        final Lane open = open(except);
        return open != null ? open : parked(except);
    }

    /** A parked lane other than {@code except} (a server session without a connection), or null. */
    Lane parked(final Lane except)
    {
        for (final Lane lane : lanes)
        {
            if (lane != except && lane.isParked())
            {
                return lane;
            }
        }
        return null;
    }

    /** How many lanes are neither parked nor closed: up, or about to be. */
    public int live()
    {
        int live = 0;
        for (final Lane lane : lanes)
        {
            if (!lane.isParked() && !lane.isClosed())
            {
                live++;
            }
        }
        return live;
    }

    /**
     * The lane a new call goes to: the calling context's when it is up, else one that is up, spread by thread;
     * when none is, a client waits on one of them ({@code anyWhenDown}), a server on a parked one, if it has one.
     */
    Lane pick(final boolean anyWhenDown)
    {
        final Lane[] all = lanes;
        final int n = all.length;
        if (n == 0)
        {
            return null;
        }
        for (final Lane lane : all)
        {
            if (lane.loop.inContextThread() && lane.isUp())
            {
                return lane;
            }
        }
        final int start = (int)(Thread.currentThread().getId() % n);
        for (int i = 0; i < n; i++)
        {
            final Lane lane = all[(start + i) % n];
            if (lane.isUp())
            {
                return lane;
            }
        }
        return anyWhenDown ? all[start] : parked(null);
    }

    /** How many lanes are up. */
    public int up()
    {
        int up = 0;
        for (final Lane lane : lanes)
        {
            if (lane.isUp())
            {
                up++;
            }
        }
        return up;
    }

    /** The remote addresses of the lanes that are up. */
    public List<String> upAddresses()
    {
        final List<String> peers = new ArrayList<>();
        for (final Lane lane : lanes)
        {
            final String address = lane.isUp() ? lane.remoteAddress() : null;
            if (address != null)
            {
                peers.add(address);
            }
        }
        return peers;
    }
}
