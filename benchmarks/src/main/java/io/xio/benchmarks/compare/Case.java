package io.xio.benchmarks.compare;

/**
 * One row of the comparison: a peer with its variant under a workload. Rows of the same {@code group} carry the
 * same traffic and are compared pair by pair. {@code peer} is a {@link PeerMain} name or {@code qperf}.
 */
record Case(String id, String group, String peer, String variant, Workload workload, String label)
{
    /** xio's own rows (the engine and its Spring path); every other row is a peer to compare them with. */
    boolean ours()
    {
        return peer.equals("xio") || peer.equals("spring");
    }
}
