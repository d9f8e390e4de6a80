package io.xio.engine.support;

import io.xio.engine.SessionAcceptor;
import io.xio.engine.SetupDecision;
import io.xio.engine.SetupRequest;
import io.xio.engine.XioUri;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Built-in acceptors that spread sessions over portals: round robin, or a hash of something in the
 * request (a client id attribute, the resource), or rendezvous hashing over the current members of a
 * cluster. A request that was already redirected is accepted where it
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

    /**
     * Redirects each session to the member that owns {@code key}'s value by rendezvous hashing
     * ({@link Rendezvous}) over the members as {@code members} gives them at that set-up (a
     * resolver's current endpoints, say: the list may change between set-ups). The other members follow in the
     * order of their scores, as the portals to try when the owner cannot be reached. Equal keys land together while
     * their owner is a member; a member leaving moves only the keys it owned, one joining takes only those it now
     * owns. Refused when there is no member. {@code members} is called on a context thread, so it must not block.
     */
    public static SessionAcceptor rendezvous(final Supplier<List<XioUri>> members,
        final Function<SetupRequest, String> key)
    {
        return request ->
        {
            if (request.redirects() > 0)
            {
                return SetupDecision.accept();
            }
            final List<XioUri> now = members.get();
            if (now == null || now.isEmpty())
            {
                return SetupDecision.reject("no server of the service is available");
            }
            final String value = key.apply(request);
            return SetupDecision.redirect(byRendezvous(now, Rendezvous.hash(value == null ? "" : value)));
        };
    }

    /** Rendezvous on a set-up attribute (a tenant or shard id); requests without it hash as empty. */
    public static SessionAcceptor rendezvousOnAttribute(final Supplier<List<XioUri>> members, final String attribute)
    {
        return rendezvous(members, request -> request.attributes().getOrDefault(attribute, ""));
    }

    /** {@code members} by their rendezvous score for {@code key}, highest (the owner) first; ties by URI. */
    static List<XioUri> byRendezvous(final List<XioUri> members, final long key)
    {
        final List<XioUri> order = new ArrayList<>(members);
        final Map<XioUri, Long> scores = new HashMap<>();
        for (final XioUri member : order)
        {
            scores.put(member, Rendezvous.score(Rendezvous.hash(member.endpoint().toString()), key));
        }
        order.sort(Comparator.comparing((XioUri member) -> scores.get(member)).reversed()
            .thenComparing(XioUri::toString));
        return order;
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
