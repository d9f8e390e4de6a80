package io.xio.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;

/**
 * Built-in acceptors that spread sessions over portals: round robin, or a hash of something in the
 * request (a client id attribute, the resource). A request that was already redirected is accepted where it
 * lands. Thread-safe.
 */
public final class Redirectors
{
    private Redirectors()
    {
    }

    /** Redirects each new session to the next portal in turn. */
    public static SessionAcceptor roundRobin(final List<XioUri> portals)
    {
        final List<XioUri> targets = List.copyOf(portals);
        final AtomicLong next = new AtomicLong();
        return request -> request.redirects() > 0 ? SetupDecision.accept() :
            SetupDecision.redirect(rotate(targets, (int)(next.getAndIncrement() % targets.size())));
    }

    /** Redirects each session to the portal chosen by {@code key}'s hash, so equal keys land together. */
    public static SessionAcceptor hash(final List<XioUri> portals, final ToLongFunction<SetupRequest> key)
    {
        final List<XioUri> targets = List.copyOf(portals);
        return request -> request.redirects() > 0 ? SetupDecision.accept() :
            SetupDecision.redirect(rotate(targets, Math.floorMod(mix(key.applyAsLong(request)), targets.size())));
    }

    /** Hash on a set-up attribute (e.g. a client or tenant id); requests without it hash as empty. */
    public static SessionAcceptor hashOnAttribute(final List<XioUri> portals, final String attribute)
    {
        return hash(portals, request -> request.attributes().getOrDefault(attribute, "").hashCode());
    }

    private static long mix(final long value)
    {
        long h = value * 0x9E3779B97F4A7C15L;
        return h ^ (h >>> 32);
    }

    private static List<XioUri> rotate(final List<XioUri> portals, final int first)
    {
        final List<XioUri> order = new ArrayList<>(portals.size());
        for (int i = 0; i < portals.size(); i++)
        {
            order.add(portals.get((first + i) % portals.size()));
        }
        return order;
    }
}
