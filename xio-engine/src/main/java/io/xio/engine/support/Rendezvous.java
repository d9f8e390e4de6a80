package io.xio.engine.support;

/**
 * Rendezvous (highest random weight) hashing: the member with the highest score for a key owns it, so a member
 * leaving moves only its own keys and a member joining takes about 1/n of them. Shared by {@link Redirectors} and
 * by {@code LoadBalancer.rendezvous()} of the xio-cluster module (here, in the engine's API, so the engine does not
 * depend on that module). Stateless; any thread.
 */
public final class Rendezvous
{
    private Rendezvous()
    {
    }

    /** The score of {@code member} (its id's stable hash, {@link #hash(String)}) for {@code key}. */
    public static long score(final long memberHash, final long key)
    {
        return mix(memberHash ^ mix(key));
    }

    /** A stable 64-bit hash of a string (the same in every JVM, unlike {@code String.hashCode} spread). */
    public static long hash(final String value)
    {
        long h = 0xcbf29ce484222325L; // FNV-1a, then mixed
        for (int i = 0; i < value.length(); i++)
        {
            h ^= value.charAt(i);
            h *= 0x100000001b3L;
        }
        return mix(h);
    }

    private static long mix(final long value)
    {
        long z = value + 0x9E3779B97F4A7C15L; // SplitMix64's finaliser
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
