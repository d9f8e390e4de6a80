package io.xio.engine.session.admission;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What each authenticated principal holds engine-wide, so that one identity (one stolen token, one runaway
 * client with many hosts) cannot take all of an engine's share: its sessions ({@link
 * io.xio.engine.Limits#maxSessionsPerPrincipal()}) and the calls executing for all of them ({@link
 * io.xio.engine.Limits#maxInFlightPerPrincipal()}). A principal is known by {@link
 * java.security.Principal#getName()}. Thread-safe: every context sets sessions up and runs calls against one map.
 */
public final class Principals
{
    private final ConcurrentHashMap<String, Share> shares = new ConcurrentHashMap<>();

    /**
     * One principal's share; its sessions keep it, so a call finishing after its session closed still counts off.
     * It leaves the map only once it has neither sessions nor executing calls: a principal that closes its
     * sessions while their calls still run must not come back with a fresh allowance beside them.
     */
    public final class Share
    {
        private final String name;
        private final AtomicInteger executing = new AtomicInteger();
        /** Written in the map's compute on {@link #name}; read outside it only as a hint. */
        private volatile int sessions;

        private Share(final String name)
        {
            this.name = name;
        }

        /** One more call executes for this principal; whether it is within {@code max} (counted either way). */
        public boolean startedExecuting(final int max)
        {
            return executing.incrementAndGet() <= max;
        }

        public void stoppedExecuting()
        {
            if (executing.decrementAndGet() == 0 && sessions == 0)
            {
                removeIfUnused(this);
            }
        }

        /** Calls executing for this principal now. */
        int executing()
        {
            return executing.get();
        }
    }

    /** One more session for the principal {@code name}, unless it holds {@code max} already: its share, or null. */
    public Share tryAcquire(final String name, final int max)
    {
        final Share[] taken = new Share[1];
        shares.compute(name, (key, share) ->
        {
            final Share s = share == null ? new Share(key) : share;
            if (s.sessions < max)
            {
                s.sessions++;
                taken[0] = s;
            }
            return s.sessions == 0 && s.executing.get() == 0 ? null : s;
        });
        return taken[0];
    }

    /** A session of {@code share}'s principal ended; the entry goes with its last session and its last call. */
    public void release(final Share share)
    {
        shares.computeIfPresent(share.name, (key, s) ->
        {
            if (s == share)
            {
                s.sessions--;
                return s.sessions <= 0 && s.executing.get() == 0 ? null : s;
            }
            return s;
        });
    }

    private void removeIfUnused(final Share share)
    {
        shares.computeIfPresent(share.name, (key, s) -> s == share && s.sessions <= 0 && s.executing.get() == 0 ?
            null : s);
    }

    /** The share of the principal {@code name} if it has one; for tests. */
    Share shareOf(final String name)
    {
        return shares.get(name);
    }
}
