package io.xio.engine.session.admission;

import java.util.concurrent.ConcurrentHashMap;

/**
 * How many of something (connections, sessions) each peer host holds, engine-wide, so that one host cannot take
 * all of an engine's share. Thread-safe: contexts count their own connections into one map.
 */
public final class PeerCounts
{
    private final ConcurrentHashMap<String, int[]> counts = new ConcurrentHashMap<>();

    /** Counts one more for {@code host} unless it holds {@code max} already; whether it was counted. */
    public boolean tryAcquire(final String host, final int max)
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

    /** Counts one more for {@code host} whatever it holds: something counted for another host moved to it. */
    public void acquire(final String host)
    {
        tryAcquire(host, Integer.MAX_VALUE);
    }

    /** One fewer for {@code host}; the entry goes once it reaches zero. */
    public void release(final String host)
    {
        counts.computeIfPresent(host, (key, count) -> --count[0] <= 0 ? null : count);
    }

    /** What {@code host} holds now. */
    int of(final String host)
    {
        final int[] count = counts.get(host);
        return count == null ? 0 : count[0];
    }

    /** Schemes whose address is a network host: one host is one peer whichever of them it comes over. */
    private static final String[] NETWORK_SCHEMES = {"tcp://", "tls://", "rdma://"};

    /**
     * The peer a link's remote address belongs to: its host for a network address ({@code tcp://10.0.0.1:4711} and
     * {@code tls://10.0.0.1:4712} both become {@code 10.0.0.1}, so a host cannot double its share by using both),
     * the address without a port otherwise (an shm peer is its local user).
     */
    public static String hostOf(final String remoteAddress)
    {
        String address = remoteAddress;
        for (final String scheme : NETWORK_SCHEMES)
        {
            if (address.startsWith(scheme))
            {
                address = address.substring(scheme.length());
                break;
            }
        }
        final int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1)
        {
            return address;
        }
        for (int i = colon + 1; i < address.length(); i++)
        {
            if (!Character.isDigit(address.charAt(i)))
            {
                return address;
            }
        }
        return address.substring(0, colon);
    }
}
