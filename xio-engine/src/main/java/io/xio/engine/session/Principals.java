package io.xio.engine.session;

import java.security.Principal;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What each authenticated principal holds engine-wide, so that one identity (one stolen token, one runaway
 * client with many hosts) cannot take all of an engine's share: its sessions ({@link
 * io.xio.engine.Limits#maxSessionsPerPrincipal()}) and the calls executing for all of them ({@link
 * io.xio.engine.Limits#maxInFlightPerPrincipal()}). A principal is known by {@link Principal#getName()}. Thread-safe:
 * every context sets sessions up and runs calls against one map.
 */
final class Principals
{
    private final ConcurrentHashMap<String, Share> shares = new ConcurrentHashMap<>();

    /** One principal's share; its sessions keep it, so a call finishing after its session closed still counts off. */
    static final class Share
    {
        private final String name;
        private final AtomicInteger executing = new AtomicInteger();
        /** Guarded by the map's compute on {@link #name}. */
        private int sessions;

        private Share(final String name)
        {
            this.name = name;
        }

        /** One more call executes for this principal; whether it is within {@code max} (counted either way). */
        boolean startedExecuting(final int max)
        {
            return executing.incrementAndGet() <= max;
        }

        void stoppedExecuting()
        {
            executing.decrementAndGet();
        }
    }

    /** One more session for {@code principal}, unless it holds {@code max} already: its share, or null. */
    Share tryAcquire(final Principal principal, final int max)
    {
        final String name = String.valueOf(principal.getName());
        final Share[] taken = new Share[1];
        shares.compute(name, (key, share) ->
        {
            final Share s = share == null ? new Share(key) : share;
            if (s.sessions < max)
            {
                s.sessions++;
                taken[0] = s;
            }
            return s.sessions == 0 ? null : s;
        });
        return taken[0];
    }

    /** A session of {@code share}'s principal ended; the entry goes with its last session. */
    void release(final Share share)
    {
        shares.computeIfPresent(share.name, (key, s) -> s == share && --s.sessions <= 0 ? null : s);
    }
}
