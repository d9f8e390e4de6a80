package io.xio.engine.session;

import java.util.concurrent.ConcurrentHashMap;

/**
 * How many of something (connections, sessions) each peer host holds, engine-wide, so that one host cannot take
 * all of an engine's share. Thread-safe: contexts count their own connections into one map.
 */
final class PeerCounts
{
    private final ConcurrentHashMap<String, int[]> counts = new ConcurrentHashMap<>();

    /** Counts one more for {@code host} unless it holds {@code max} already; whether it was counted. */
    boolean tryAcquire(final String host, final int max)
    {
        final boolean[] taken = new boolean[1];
        counts.compute(host, (key, count) ->
        {
            final int[] c = count == null ? new int[1] : count;
            if (c[0] < max)
            {
                c[0]++;
                taken[0] = true;
            }
            return c;
        });
        return taken[0];
    }

    /** One fewer for {@code host}; the entry goes once it reaches zero. */
    void release(final String host)
    {
        counts.computeIfPresent(host, (key, count) -> --count[0] <= 0 ? null : count);
    }

    /** What {@code host} holds now. */
    int of(final String host)
    {
        final int[] count = counts.get(host);
        return count == null ? 0 : count[0];
    }

    /** The host part of a link's remote address ({@code tcp://10.0.0.1:4711} becomes {@code tcp://10.0.0.1}). */
    static String hostOf(final String remoteAddress)
    {
        final int colon = remoteAddress.lastIndexOf(':');
        if (colon <= 0 || colon == remoteAddress.length() - 1)
        {
            return remoteAddress;
        }
        for (int i = colon + 1; i < remoteAddress.length(); i++)
        {
            if (!Character.isDigit(remoteAddress.charAt(i)))
            {
                return remoteAddress;
            }
        }
        return remoteAddress.substring(0, colon);
    }
}
