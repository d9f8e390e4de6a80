package io.xio.engine.session.admission;

import io.xio.engine.StreamLimits;

/**
 * Whether one more stream may open on a session, and what it sets aside when it does: one of the session's and the
 * engine's open streams, one of its connection's (for a stream the peer opened there), and its receive window's bytes
 * from the session's and the engine's window budgets. What a stream took it gives back when it ends. Lock-free; any
 * thread.
 */
public final class StreamAdmission
{
    private final StreamLimits limits;
    /** This session's open streams, within the engine's. */
    private final ByteBudget streams;
    /** This session's receive windows' bytes, within the engine's. */
    private final ByteBudget windows;
    /** The engine's count of the streams each peer host opened. */
    private final PeerCounts byPeer;

    /**
     * @param engineStreams the engine's open streams ({@link #engineStreams})
     * @param engineWindows the engine's receive windows' bytes ({@link #engineWindows})
     */
    public StreamAdmission(final StreamLimits limits, final ByteBudget engineStreams, final ByteBudget engineWindows,
        final PeerCounts byPeer)
    {
        this.byPeer = byPeer;
        this.limits = limits;
        this.streams = new ByteBudget(limits.maxStreamsPerSession(), engineStreams);
        this.windows = new ByteBudget(limits.maxWindowBytesPerSession(), engineWindows);
    }

    /** The engine's count of open streams, for its sessions to share. */
    public static ByteBudget engineStreams(final StreamLimits limits)
    {
        return new ByteBudget(limits.maxStreams(), null);
    }

    /** The engine's budget of receive windows' bytes, for its sessions to share. */
    public static ByteBudget engineWindows(final StreamLimits limits)
    {
        return new ByteBudget(limits.maxWindowBytes(), null);
    }

    /** A connection's count of the streams its peer opened on it. */
    public static ByteBudget connectionStreams(final StreamLimits limits)
    {
        return new ByteBudget(limits.maxStreamsPerConnection(), null);
    }

    /** The limits the streams are held to. */
    public StreamLimits limits()
    {
        return limits;
    }

    /**
     * Takes what one more stream needs, counting it on {@code connection} and for {@code host} too when not null (a
     * stream the peer opened there): null when taken, else which limit refused it (for this side's log; nothing was
     * taken then).
     */
    public String admit(final ByteBudget connection, final String host)
    {
        if (host != null && !byPeer.tryAcquire(host, limits.maxStreamsPerPeer()))
        {
            return limits.maxStreamsPerPeer() + " streams from one host";
        }
        final String refused = admitCounted(connection);
        if (refused != null && host != null)
        {
            byPeer.release(host);
        }
        return refused;
    }

    private String admitCounted(final ByteBudget connection)
    {
        if (connection != null && !connection.tryTake(1))
        {
            return limits.maxStreamsPerConnection() + " streams on one connection";
        }
        if (!streams.tryTake(1))
        {
            giveBack(connection);
            return limits.maxStreamsPerSession() + " streams on one session, or " + limits.maxStreams() +
                " in the engine";
        }
        if (!windows.tryTake(limits.windowBytes()))
        {
            streams.giveBack(1);
            giveBack(connection);
            return limits.maxWindowBytesPerSession() + " bytes of stream windows on one session, or " +
                limits.maxWindowBytes() + " in the engine";
        }
        return null;
    }

    /** A stream admitted with {@code connection} and {@code host} (as at {@link #admit}) ended: all is free again. */
    public void release(final ByteBudget connection, final String host)
    {
        if (host != null)
        {
            byPeer.release(host);
        }
        windows.giveBack(limits.windowBytes());
        streams.giveBack(1);
        giveBack(connection);
    }

    /**
     * A stream admitted with {@code from} and {@code fromHost} resumed on another connection: it counts on {@code to}
     * and for {@code toHost} from now on, even past their limits, since a stream that is open is not refused (new
     * ones are, while the connection or host is over).
     */
    public void moved(final ByteBudget from, final String fromHost, final ByteBudget to, final String toHost)
    {
        if (to != from)
        {
            to.takeAnyway(1);
            giveBack(from);
        }
        if (!toHost.equals(fromHost))
        {
            byPeer.acquire(toHost);
            byPeer.release(fromHost);
        }
    }

    /**
     * Streams open on the session now: {@link #admit} counts one on the thread that opens it (the caller's for this
     * side's, the context's for the peer's), {@link #release} gives it back on the context thread that holds it (or
     * the opening thread, for an open that failed at once). Any thread reads it.
     */
    public int open()
    {
        return (int)streams.used();
    }

    private static void giveBack(final ByteBudget connection)
    {
        if (connection != null)
        {
            connection.giveBack(1);
        }
    }
}
