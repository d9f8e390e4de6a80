package io.xio.engine.session.admission;

import org.agrona.concurrent.NanoClock;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Failed authentications per peer host and portal, so that a host guessing credentials gets a few tries per interval
 * and no more: after {@link io.xio.engine.Limits#maxAuthenticationFailuresPerHost()} failures within {@link
 * io.xio.engine.Limits#authenticationFailureInterval()} of its first, its set-ups at that portal are refused without
 * asking the acceptor until that interval has passed. Eight in ten seconds (the default) is more than a client with a
 * wrong or expired token makes (it fails at its first set-up and reports it), and each refusal costs an attacker a
 * round trip, so guessing runs at under one try a second per host; a token of 128 random bits cannot be guessed at
 * any rate, this is for passwords and for the acceptor's cost (an identity provider call, a hash). The key is the
 * portal with the host ({@link #key}): a portal whose acceptor never says unauthenticated never refuses anyone, and
 * guesses at one portal do not lock a host out of another; clients behind one NAT or proxy share one host's tries
 * (raise the limit for them), and an IPv6 host is its /64, which one machine usually has to itself. Remembers at most
 * {@link #MAX_HOSTS} keys, forgetting the one that failed first (an attacker with that many addresses has that many
 * times the tries anyway). Thread-safe: the contexts share it.
 */
public final class AuthenticationFailures
{
    static final int MAX_FAILURES = io.xio.engine.Limits.DEFAULT.maxAuthenticationFailuresPerHost();
    static final long INTERVAL_NANOS = io.xio.engine.Limits.DEFAULT.authenticationFailureInterval().toNanos();
    static final int MAX_HOSTS = 4096;

    /** What a host's next set-up may do. */
    public enum Verdict
    {
        /** Ask the acceptor. */
        ASK,
        /** Refuse it unasked: the first such refusal of the interval, worth a log line. */
        REFUSE_FIRST,
        /** Refuse it unasked, as others of the interval were already. */
        REFUSE
    }

    /** A host's failures in its current interval. */
    private static final class Entry
    {
        long since;
        int failures;
        boolean refusedOnce;
    }

    private final NanoClock clock;
    private final int maxFailures;
    private final long intervalNanos;
    private final Map<String, Entry> hosts = new LinkedHashMap<>(64, 0.75f, false)
    {
        private static final long serialVersionUID = 1L;

        // Qualified: in a LinkedHashMap subclass a plain Entry is the inherited Map.Entry (javac 25 holds to that).
        @Override
        protected boolean removeEldestEntry(final Map.Entry<String, AuthenticationFailures.Entry> eldest)
        {
            return size() > MAX_HOSTS;
        }
    };

    AuthenticationFailures(final NanoClock clock)
    {
        this(clock, MAX_FAILURES, INTERVAL_NANOS);
    }

    public AuthenticationFailures(final NanoClock clock, final int maxFailures, final long intervalNanos)
    {
        this.clock = clock;
        this.maxFailures = maxFailures;
        this.intervalNanos = intervalNanos;
    }

    /** Whether {@code host}'s set-up may go to the acceptor. */
    public synchronized Verdict check(final String host)
    {
        final Entry entry = current(host);
        if (entry == null || entry.failures < maxFailures)
        {
            return Verdict.ASK;
        }
        if (entry.refusedOnce)
        {
            return Verdict.REFUSE;
        }
        entry.refusedOnce = true;
        return Verdict.REFUSE_FIRST;
    }

    /** {@code host} failed to authenticate; whether that used up its tries for the interval. */
    public synchronized boolean failed(final String host)
    {
        Entry entry = current(host);
        if (entry == null)
        {
            entry = new Entry();
            entry.since = clock.nanoTime();
            hosts.put(host, entry);
        }
        return ++entry.failures == maxFailures;
    }

    /** The host's entry if its interval still runs; an old one is dropped. */
    private Entry current(final String host)
    {
        final Entry entry = hosts.get(host);
        if (entry != null && clock.nanoTime() - entry.since >= intervalNanos)
        {
            hosts.remove(host);
            return null;
        }
        return entry;
    }

    /** What failures are counted under: {@code host} (as {@link PeerCounts#hostOf} gives it) at {@code portal}. */
    public static String key(final String portal, final String host)
    {
        return portal + " " + hostKey(host);
    }

    /**
     * An IPv6 host as its /64 ({@code 2001:db8:1:2::/64}): one machine or link usually holds a whole /64 and may
     * pick any address in it, so counting single addresses would give it 2^64 times the tries. Anything else (an
     * IPv4 address, a local peer's name, text that is no IPv6 literal) is itself.
     */
    static String hostKey(final String host)
    {
        String address = host;
        if (address.startsWith("[") && address.endsWith("]"))
        {
            address = address.substring(1, address.length() - 1);
        }
        final int scope = address.indexOf('%');
        if (scope >= 0)
        {
            address = address.substring(0, scope);
        }
        if (address.indexOf(':') == address.lastIndexOf(':') || address.contains("/"))
        {
            return host; // at most one colon: not IPv6
        }
        final int gap = address.indexOf("::");
        final String[] head = groups(gap < 0 ? address : address.substring(0, gap));
        final String[] tail = gap < 0 ? new String[0] : groups(address.substring(gap + 2));
        if (head == null || tail == null || (gap < 0 ? head.length != 8 : head.length + tail.length > 7))
        {
            return host;
        }
        final StringBuilder prefix = new StringBuilder();
        for (int i = 0; i < 4; i++)
        {
            final int fromTail = i - (8 - tail.length);
            final String group = i < head.length ? head[i] : fromTail >= 0 ? tail[fromTail] : "0";
            prefix.append(Integer.toHexString(Integer.parseInt(group, 16))).append(':');
        }
        return prefix.append(":/64").toString();
    }

    /** The colon-separated hex groups of {@code part}, a trailing dotted IPv4 address as two; null if malformed. */
    private static String[] groups(final String part)
    {
        if (part.isEmpty())
        {
            return new String[0];
        }
        final String[] groups = part.split(":", -1);
        final String last = groups[groups.length - 1];
        final java.util.List<String> out = new java.util.ArrayList<>(java.util.Arrays.asList(groups));
        if (last.indexOf('.') >= 0)
        {
            final String[] octets = last.split("\\.", -1);
            if (octets.length != 4)
            {
                return null;
            }
            final int[] bytes = new int[4];
            for (int i = 0; i < 4; i++)
            {
                if (!octets[i].matches("[0-9]{1,3}") || (bytes[i] = Integer.parseInt(octets[i])) > 255)
                {
                    return null;
                }
            }
            out.set(out.size() - 1, Integer.toHexString(bytes[0] << 8 | bytes[1]));
            out.add(Integer.toHexString(bytes[2] << 8 | bytes[3]));
        }
        for (final String group : out)
        {
            if (!group.matches("[0-9a-fA-F]{1,4}"))
            {
                return null;
            }
        }
        return out.toArray(new String[0]);
    }

    /** How many hosts are remembered. */
    synchronized int size()
    {
        return hosts.size();
    }
}
