package io.xio.cluster;

import io.xio.engine.GoAway;
import io.xio.engine.Session;
import io.xio.engine.SessionRejectedException;
import io.xio.engine.XioUri;

/**
 * One endpoint of a service client and its session. Its {@link EndpointStatus.State} moves only through the methods
 * below, each named for the event that moves it; an event moves it from whatever state it is in, but where a
 * condition says otherwise:
 *
 * <pre>
 *   beginOpening   ──▶ CONNECTING    unless a session is open (a GOAWAY's migration: it stays DRAINING)
 *   opened         ──▶ ACTIVE        the opening still current
 *   unreachable    ──▶ UNREACHABLE   unless a session is open (a failed migration: the old session goes on)
 *   sentAway       ──▶ DRAINING      the server's GOAWAY on the current session
 *   lost           ──▶ UNREACHABLE   the current session closed
 *   retire         ──▶ DRAINING      removed for good: no event moves it after
 * </pre>
 *
 * Written under the client's lock by whichever thread holds it; the picker reads the session, {@link #takesCalls}
 * and {@link #inFlight} without it, hence the volatile fields.
 */
final class Member implements LoadBalancer.Candidate
{
    final Endpoint endpoint;
    volatile Session session;
    volatile EndpointStatus.State state = EndpointStatus.State.CONNECTING;
    volatile boolean removed;
    volatile XioUri portal;
    volatile String transport;
    volatile String reason;
    volatile String lastFailure;
    volatile SessionRejectedException lastRejection;
    /** Counts openings: a result of an older one is dropped. */
    volatile long generation;
    boolean opening;
    long openedAt;
    int failures;
    /** When the resolver stopped listing it (0: it lists it); its removal waits for the grace. */
    long unlistedAt;

    Member(final Endpoint endpoint)
    {
        this.endpoint = endpoint;
    }

    boolean takesCalls()
    {
        final Session now = session;
        return !removed && state == EndpointStatus.State.ACTIVE && now != null && now.isOpen() &&
            !now.isDraining();
    }

    boolean hasOpenSession()
    {
        final Session now = session;
        return now != null && now.isOpen();
    }

    /** Whether a reopen timer finds nothing else under way for it: no opening, no session, not removed. */
    boolean awaitsReopen()
    {
        // A closed client removed every member, under the lock this is read under.
        return !removed && !opening && !hasOpenSession();
    }

    /** An opening starts, superseding any under way; returns its generation. */
    long beginOpening()
    {
        opening = true;
        if (!hasOpenSession())
        {
            state = EndpointStatus.State.CONNECTING;
        }
        return ++generation;
    }

    /** The opening took {@code opened} at {@code at}, on the portal chosen for {@code why}. */
    void opened(final Session opened, final XioUri at, final String why, final long nowNanos)
    {
        session = opened;
        openedAt = nowNanos;
        opening = false;
        portal = at;
        transport = at.scheme();
        reason = why;
        lastFailure = null;
        lastRejection = null;
        state = EndpointStatus.State.ACTIVE;
    }

    /**
     * The opening reached no portal, for {@code why}. Returns false when a session is still open: a migration
     * failed, and the session it would have replaced goes on (and drains itself).
     */
    boolean unreachable(final String why)
    {
        opening = false;
        lastFailure = why;
        if (hasOpenSession())
        {
            return false;
        }
        state = EndpointStatus.State.UNREACHABLE;
        failures++;
        return true;
    }

    /** The server sent GOAWAY on the session: it takes no new calls. */
    void sentAway(final GoAway goAway)
    {
        state = EndpointStatus.State.DRAINING;
        lastFailure = "the server sent GOAWAY" +
            (goAway == null || goAway.reason().isEmpty() ? "" : ": " + goAway.reason());
    }

    /**
     * The session closed, for {@code detail}; {@code proven} when it lived long enough to prove the endpoint, which
     * starts the backoff again.
     */
    void lost(final String detail, final boolean proven)
    {
        state = EndpointStatus.State.UNREACHABLE;
        lastFailure = detail;
        if (proven)
        {
            failures = 0;
        }
        else
        {
            failures++; // accepted, then sent away or closed at once: do not hammer it
        }
    }

    /** Taken out of service for good, for {@code why}: an opening still under way is stale now. */
    void retire(final String why)
    {
        removed = true;
        state = EndpointStatus.State.DRAINING;
        lastFailure = why;
        generation++;
    }

    /** Its client closed: an opening still under way is stale now. */
    void abandon()
    {
        removed = true;
        generation++;
    }

    /** A member of its own for {@code draining}, a session of this one's that drains until it closes. */
    Member leaving(final Session draining, final String why)
    {
        final Member leaving = new Member(endpoint);
        leaving.removed = true;
        leaving.session = draining;
        leaving.portal = portal;
        leaving.transport = transport;
        leaving.reason = reason;
        leaving.state = EndpointStatus.State.DRAINING;
        leaving.lastFailure = why;
        return leaving;
    }

    @Override
    public Endpoint endpoint()
    {
        return endpoint;
    }

    @Override
    public int inFlight()
    {
        final Session now = session;
        return now == null ? 0 : now.inFlight();
    }

    EndpointStatus status()
    {
        return new EndpointStatus(endpoint, state, portal, transport, reason, inFlight(), lastFailure);
    }
}
