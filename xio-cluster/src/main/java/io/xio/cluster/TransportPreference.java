package io.xio.cluster;

import java.util.List;
import java.util.Set;

/** The order in which a {@link ServiceClient} tries an endpoint's portals, by scheme. */
public final class TransportPreference
{
    /** Same JVM, same host, a device that reaches it, then the network, encrypted before plain. */
    public static final List<String> DEFAULT = List.of("local", "shm", "rdma", "tls", "tcp");

    /** Schemes that only reach a server on the same host (the same process, for local). */
    public static final Set<String> SAME_HOST = Set.of("local", "shm");

    private TransportPreference()
    {
    }

    /** {@code schemes} as an immutable list, refusing an empty list, blanks and repeats. */
    static List<String> check(final List<String> schemes)
    {
        if (schemes.isEmpty())
        {
            throw new IllegalArgumentException("the transport preference needs at least one scheme");
        }
        if (schemes.stream().distinct().count() != schemes.size() || schemes.stream().anyMatch(String::isBlank))
        {
            throw new IllegalArgumentException("the transport preference " + schemes + " has a blank or repeated " +
                "scheme");
        }
        return List.copyOf(schemes);
    }
}
