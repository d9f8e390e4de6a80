package io.xio.engine.session.connection;

import io.xio.engine.Limits;
import io.xio.engine.PeerRefusal;
import io.xio.engine.transport.TransportLink;

import java.time.Duration;

/**
 * The limits on time that a connection's link holds its peer to, checked by the context's sweep: a peer that reads
 * nothing for the write-stall timeout, keeps our shared memory (or our releases of its) unread, or sends a frame
 * too slowly. A pure check of the link's readings: the connection refuses what it finds.
 */
final class LinkTimeouts
{
    /** What the peer broke, and how, for the refusal. */
    record Violation(PeerRefusal kind, String why)
    {
    }

    private LinkTimeouts()
    {
    }

    /** The first limit {@code link}'s peer broke at {@code now}, or null. Allocates only for a violation. */
    static Violation check(final TransportLink link, final Limits limits, final long now)
    {
        final long stalled = now - link.lastWriteProgressNanos();
        if (link.backlog() > 0 && stalled > limits.writeStallTimeout().toNanos())
        {
            return new Violation(PeerRefusal.WRITE_STALL, "the peer read nothing of " + link.backlog() +
                " unsent bytes for " + limits.writeStallTimeout());
        }
        if (link.releasesStuck())
        {
            return new Violation(PeerRefusal.SHARED_RELEASE,
                "the peer read none of our last releases of its shared memory");
        }
        final long lent = link.lentSince(now);
        if (lent != 0 && now - lent > limits.writeStallTimeout().toNanos())
        {
            return new Violation(PeerRefusal.SHARED_RELEASE, "the peer kept a message in our shared memory open " +
                "for over " + limits.writeStallTimeout());
        }
        final long since = link.incompleteFrameSince();
        final long age = now - since;
        if (since != 0 && age > limits.incompleteFrameTimeout().toNanos() &&
            link.incompleteFrameBytes() * 1_000_000_000L / age < limits.minReceiveRate())
        {
            return new Violation(PeerRefusal.SLOW_FRAME, "a frame arriving at " +
                link.incompleteFrameBytes() * 1_000_000_000L / age + " bytes/s after " + Duration.ofNanos(age) +
                ", under the minimum of " + limits.minReceiveRate());
        }
        return null;
    }
}
