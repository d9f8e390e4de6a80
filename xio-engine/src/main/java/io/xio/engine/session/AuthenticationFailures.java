package io.xio.engine.session;

import org.agrona.concurrent.NanoClock;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Failed authentications per peer host, so that a host guessing credentials gets a few tries per interval and no
 * more: after {@link #MAX_FAILURES} failures within {@link #INTERVAL_NANOS} of its first, its set-ups are refused
 * without asking the acceptor until that interval has passed. Eight in ten seconds is more than a client with a
 * wrong or expired token makes (it fails at its first set-up and reports it), and each refusal costs an attacker
 * a round trip, so guessing runs at under one try a second per host; a token of 128 random bits cannot be guessed
 * at any rate, this is for passwords and for the acceptor's cost (an identity provider call, a hash). Remembers at
 * most {@link #MAX_HOSTS} hosts, forgetting the one that failed first (an attacker with that many addresses has
 * that many times the tries anyway). Thread-safe: the contexts share it.
 */
final class AuthenticationFailures
{
    static final int MAX_FAILURES = 8;
    static final long INTERVAL_NANOS = 10_000_000_000L;
    static final int MAX_HOSTS = 4096;

    /** What a host's next set-up may do. */
    enum Verdict
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

        @Override
        protected boolean removeEldestEntry(final Map.Entry<String, Entry> eldest)
        {
            return size() > MAX_HOSTS;
        }
    };

    AuthenticationFailures(final NanoClock clock)
    {
        this(clock, MAX_FAILURES, INTERVAL_NANOS);
    }

    AuthenticationFailures(final NanoClock clock, final int maxFailures, final long intervalNanos)
    {
        this.clock = clock;
        this.maxFailures = maxFailures;
        this.intervalNanos = intervalNanos;
    }

    /** Whether {@code host}'s set-up may go to the acceptor. */
    synchronized Verdict check(final String host)
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
    synchronized boolean failed(final String host)
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

    /** How many hosts are remembered. */
    synchronized int size()
    {
        return hosts.size();
    }
}
