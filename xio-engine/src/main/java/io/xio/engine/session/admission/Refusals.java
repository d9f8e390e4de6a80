package io.xio.engine.session.admission;

import io.xio.engine.PeerRefusal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts what the engine refused its peers and logs it, at most once a second per peer host so that a flood
 * cannot flood the log too; the details (resource names, limits) go only here, never to the peer. Thread-safe.
 */
public final class Refusals
{
    private static final Logger LOG = LoggerFactory.getLogger(Refusals.class);
    private static final long LOG_INTERVAL_NANOS = 1_000_000_000L;
    private static final int MAX_TRACKED_HOSTS = 4096;

    private final AtomicLongArray counts = new AtomicLongArray(PeerRefusal.values().length);
    private final ConcurrentHashMap<String, long[]> lastLogged = new ConcurrentHashMap<>();
    private final org.agrona.concurrent.NanoClock clock;

    public Refusals(final org.agrona.concurrent.NanoClock clock)
    {
        this.clock = clock;
    }

    /** Counts a refusal of {@code kind} to the peer at {@code remoteAddress}, and logs {@code detail} if due. */
    public void refused(final PeerRefusal kind, final String remoteAddress, final String detail)
    {
        refused(kind, remoteAddress, detail, null);
    }

    /**
     * The same, logging {@code cause}'s stack trace with the line when one is due (a failure of the application's
     * code, such as an acceptor that threw, which the log must show without a peer being able to flood it).
     */
    public void refused(final PeerRefusal kind, final String remoteAddress, final String detail, final Throwable cause)
    {
        counts.incrementAndGet(kind.ordinal());
        final String host = PeerCounts.hostOf(remoteAddress);
        if (lastLogged.size() > MAX_TRACKED_HOSTS)
        {
            lastLogged.clear(); // many hosts at once: better a few extra lines than an unbounded map
        }
        final long now = clock.nanoTime();
        final long[] entry = lastLogged.computeIfAbsent(host, h -> new long[] {now - LOG_INTERVAL_NANOS, 0});
        final long suppressed;
        synchronized (entry)
        {
            if (now - entry[0] < LOG_INTERVAL_NANOS)
            {
                entry[1]++;
                return;
            }
            entry[0] = now;
            suppressed = entry[1];
            entry[1] = 0;
        }
        if (suppressed > 0)
        {
            LOG.warn("refused {} {}: {} ({} more refusals of this host not logged in the last second)", kind,
                remoteAddress, detail, suppressed, cause);
        }
        else
        {
            LOG.warn("refused {} {}: {}", kind, remoteAddress, detail, cause);
        }
    }

    /** Counts a refusal of {@code kind} without logging it: one of a series already logged. */
    public void counted(final PeerRefusal kind)
    {
        counts.incrementAndGet(kind.ordinal());
    }

    public long count(final PeerRefusal kind)
    {
        return counts.get(kind.ordinal());
    }

    public Map<PeerRefusal, Long> snapshot()
    {
        final Map<PeerRefusal, Long> all = new EnumMap<>(PeerRefusal.class);
        for (final PeerRefusal kind : PeerRefusal.values())
        {
            all.put(kind, counts.get(kind.ordinal()));
        }
        return all;
    }
}
