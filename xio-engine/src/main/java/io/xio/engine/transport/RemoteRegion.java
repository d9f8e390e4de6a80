package io.xio.engine.transport;

/**
 * A region of registered memory that a peer may write into with a one-sided operation: what a
 * {@code DATA_DESCRIPTOR} frame carries. A mutable holder the frame encoder reuses, so describing a region
 * allocates nothing. Owner context thread only.
 */
public final class RemoteRegion
{
    private long address;
    private int key;
    private int length;

    public RemoteRegion set(final long address, final int key, final int length)
    {
        this.address = address;
        this.key = key;
        this.length = length;
        return this;
    }

    /** Where the region starts in the owner's address space. */
    public long address()
    {
        return address;
    }

    /** The owner's remote access key for it (an rkey on RDMA). */
    public int key()
    {
        return key;
    }

    /** Bytes the writer may put there. */
    public int length()
    {
        return length;
    }
}
