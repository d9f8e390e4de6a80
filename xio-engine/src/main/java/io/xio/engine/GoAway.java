package io.xio.engine;

import java.util.List;

/**
 * A server's request that a client session go away: finish what is in flight on it, send no new calls there, and
 * send them to another server, or re-open the session at {@link #portals()} when the server names any (a live
 * migration). Sent as a GOAWAY frame by {@link Session#goAway(GoAway)} and by {@link XioEngine#drain}. Immutable.
 *
 * @param portals where the client should re-open the session, in order of preference; empty: anywhere else (the
 *                client asks its resolver, or gives up if it has only this server)
 * @param reason why, for the client's log (a shutdown, a resource moving)
 */
public record GoAway(List<XioUri> portals, String reason)
{
    public GoAway
    {
        portals = List.copyOf(portals);
        reason = reason == null ? "" : reason;
    }

    /** Go away, to anywhere else. */
    public static GoAway of(final String reason)
    {
        return new GoAway(List.of(), reason);
    }

    /** Re-open at {@code portals}. */
    public static GoAway redirect(final List<XioUri> portals, final String reason)
    {
        if (portals.isEmpty())
        {
            throw new IllegalArgumentException("a redirecting GOAWAY needs at least one portal");
        }
        return new GoAway(portals, reason);
    }
}
