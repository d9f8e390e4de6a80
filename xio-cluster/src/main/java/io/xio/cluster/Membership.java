package io.xio.cluster;

import io.xio.engine.GoAway;
import io.xio.engine.Session;
import io.xio.engine.XioUri;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A service client's members: the endpoints its resolver lists (an endpoint missing from a report keeps taking calls
 * through the removal grace), the sessions draining after their endpoint left or moved, and which of them take
 * calls, published to the {@link Picker} after every change. Its state is under the client's lock, which the
 * methods that say so take themselves and the others expect held; any thread (the resolver's, a context's, the
 * client's, a caller's).
 */
final class Membership
{
    private static final Logger LOG = LoggerFactory.getLogger(Membership.class);
    private static final long ERROR_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final Comparator<Member> BY_ID = Comparator.comparing(m -> m.endpoint.id());

    /** What membership needs of its client. */
    record Context(String service, long removalGraceNanos, Object lock, NanoClock clock, ClientThread thread,
        Picker picker)
    {
    }

    private final String service;
    private final long removalGraceNanos;
    private final Object lock;
    private final NanoClock clock;
    private final ClientThread thread;
    private final Picker picker;
    /** By endpoint id. */
    private final Map<String, Member> members = new HashMap<>();
    /** Sessions draining after their endpoint left or moved, until they close. */
    private final List<Member> leaving = new ArrayList<>();
    private volatile boolean closed;
    /** When the resolver's last failure was logged. */
    private long lastErrorLog;

    Membership(final Context context)
    {
        this.service = context.service();
        this.removalGraceNanos = context.removalGraceNanos();
        this.lock = context.lock();
        this.clock = context.clock();
        this.thread = context.thread();
        this.picker = context.picker();
    }

    /**
     * Applies the resolver's whole current set: returns the members it added, whose sessions the caller opens
     * (outside the lock). Takes the lock.
     */
    List<Member> update(final List<Endpoint> endpoints)
    {
        final List<Member> added = new ArrayList<>();
        synchronized (lock)
        {
            if (closed)
            {
                return added;
            }
            final Map<String, Endpoint> now = new HashMap<>();
            for (final Endpoint endpoint : endpoints)
            {
                now.put(endpoint.id(), endpoint);
            }
            final long at = clock.nanoTime();
            for (final Member member : new ArrayList<>(members.values()))
            {
                final Endpoint reported = now.get(member.endpoint.id());
                if (reported != null && sameAddresses(reported, member.endpoint))
                {
                    member.unlistedAt = 0; // back (or never gone): a resolver's hiccup
                }
                else if (reported == null && removalGraceNanos > 0 && member.takesCalls())
                {
                    // A healthy session outlives a resolver's brief gap (a ZooKeeper session rebuilt after an
                    // outage); a server that leaves for good sends GOAWAY, or its connection drops, meanwhile.
                    if (member.unlistedAt == 0)
                    {
                        member.unlistedAt = at;
                        thread.schedule(removalGraceNanos, () -> removeIfStillUnlisted(member, at));
                    }
                }
                else
                {
                    members.remove(member.endpoint.id());
                    retire(member, reported == null ? "no longer listed by the resolver" : "its portals changed");
                }
            }
            for (final Endpoint endpoint : endpoints)
            {
                if (!members.containsKey(endpoint.id()))
                {
                    final Member member = new Member(endpoint);
                    members.put(endpoint.id(), member);
                    added.add(member);
                }
            }
            publish();
        }
        return added;
    }

    private void removeIfStillUnlisted(final Member member, final long unlistedAt)
    {
        synchronized (lock)
        {
            if (!closed && member.unlistedAt == unlistedAt && members.get(member.endpoint.id()) == member)
            {
                members.remove(member.endpoint.id());
                retire(member, "no longer listed by the resolver");
                publish();
            }
        }
    }

    private static boolean sameAddresses(final Endpoint a, final Endpoint b)
    {
        return a.host().equals(b.host()) && a.portals().equals(b.portals());
    }

    /**
     * The resolver failed: logged at most once in {@link #ERROR_LOG_INTERVAL_NANOS}, since a backend that stays away
     * would otherwise write a line per report. Returns whether it logged. Takes the lock.
     */
    boolean resolverFailed(final Throwable cause)
    {
        final int known;
        synchronized (lock)
        {
            final long now = clock.nanoTime();
            if (lastErrorLog != 0 && now - lastErrorLog < ERROR_LOG_INTERVAL_NANOS)
            {
                return false;
            }
            lastErrorLog = now;
            known = members.size();
        }
        LOG.warn("the resolver of service {} failed; going on with the {} endpoint(s) known: {}", service, known,
            String.valueOf(cause));
        return true;
    }

    /**
     * Takes a member out of service: it gets no new calls (the caller publishes), and its session drains itself, so a
     * call that picked it a moment ago is refused unsent and goes elsewhere, and the session closes after its last
     * answer (its calls' deadlines bound that wait). Under the lock.
     */
    private void retire(final Member member, final String why)
    {
        member.retire(why);
        drain(member, member.session, why);
    }

    /** Drains {@code session} of {@code member} and keeps it listed until it closes. Under the lock. */
    void drain(final Member member, final Session session, final String why)
    {
        if (session != null && session.isOpen())
        {
            leaving.add(member.leaving(session, why));
            session.goAway(GoAway.of(why)); // no effect on one the server already sent away
        }
    }

    /** A session closed: if it was draining, it is gone. Takes the lock. */
    void closed(final Session session)
    {
        synchronized (lock)
        {
            leaving.removeIf(m -> m.session == session);
        }
    }

    /**
     * Publishes the members able to take calls with a connection up, or, when none has, those reconnecting. Under
     * the lock.
     */
    void publish()
    {
        final List<Member> ready = new ArrayList<>(members.size());
        final List<Member> connected = new ArrayList<>(members.size());
        for (final Member member : members.values())
        {
            if (member.takesCalls())
            {
                ready.add(member);
                if (member.session.connectionCount() > 0)
                {
                    connected.add(member);
                }
            }
        }
        final List<Member> chosen = connected.isEmpty() ? ready : connected;
        chosen.sort(BY_ID); // a stable order for round robin
        picker.publish(chosen);
    }

    /** Publishes again, unless the client closed: returns false then. Takes the lock. */
    boolean republish()
    {
        synchronized (lock)
        {
            if (closed)
            {
                return false;
            }
            publish();
            return true;
        }
    }

    /** Whether {@code portal} is a portal of an endpoint the resolver lists. Under the lock. */
    boolean listed(final XioUri portal)
    {
        final XioUri endpoint = portal.endpoint();
        for (final Member member : members.values())
        {
            if (member.endpoint.portals().contains(endpoint))
            {
                return true;
            }
        }
        return false;
    }

    /** Whether the client closed. Any thread, without the lock. */
    boolean isClosed()
    {
        return closed;
    }

    /** Every member and draining session now, by endpoint id. Takes the lock. */
    List<EndpointStatus> statuses()
    {
        synchronized (lock)
        {
            final List<EndpointStatus> all = new ArrayList<>();
            members.values().forEach(m -> all.add(m.status()));
            leaving.forEach(m -> all.add(m.status()));
            all.sort((a, b) -> a.endpoint().id().compareTo(b.endpoint().id()));
            return List.copyOf(all);
        }
    }

    /**
     * Closes membership: every member is dropped and nothing takes calls; adds to {@code sessions} those the caller
     * closes (outside the lock). Returns false when it was closed already. Takes the lock.
     */
    boolean close(final List<Session> sessions)
    {
        synchronized (lock)
        {
            if (closed)
            {
                return false;
            }
            closed = true;
            members.values().forEach(m ->
            {
                m.abandon();
                if (m.session != null)
                {
                    sessions.add(m.session);
                }
            });
            leaving.forEach(m -> sessions.add(m.session));
            members.clear();
            leaving.clear();
            picker.publish(List.of());
            return true;
        }
    }
}
