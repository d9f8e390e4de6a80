package io.xio.rdma.verbs;

/**
 * Work requests set for the next chained post and not yet posted, as parallel arrays by index in the chain:
 * {@link DisniQueuePair} chooses its stateful DiSNI call by the chain's length, known only at the post. Owner
 * context thread only.
 */
final class WorkRequests
{
    final int[] id;
    final long[] address;
    final int[] length;
    final int[] lkey;
    final long[] remoteAddress;
    final int[] rkey;
    final boolean[] signaled;

    WorkRequests(final int capacity)
    {
        id = new int[capacity];
        address = new long[capacity];
        length = new int[capacity];
        lkey = new int[capacity];
        remoteAddress = new long[capacity];
        rkey = new int[capacity];
        signaled = new boolean[capacity];
    }

    void set(final int index, final int workId, final long at, final int bytes, final int localKey,
        final long remote, final int remoteKey, final boolean signal)
    {
        id[index] = workId;
        address[index] = at;
        length[index] = bytes;
        lkey[index] = localKey;
        remoteAddress[index] = remote;
        rkey[index] = remoteKey;
        signaled[index] = signal;
    }
}
