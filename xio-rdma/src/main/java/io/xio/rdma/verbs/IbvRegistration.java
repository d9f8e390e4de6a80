package io.xio.rdma.verbs;

import com.ibm.disni.verbs.IbvMr;

/**
 * A DiSNI memory registration as a {@link QueuePair.Registration}; application regions keep theirs in
 * {@link ContextVerbs}, so the zero-copy path makes none per message. Immutable: any thread.
 */
final class IbvRegistration implements QueuePair.Registration
{
    final IbvMr mr;
    private final int lkey;
    private final int rkey;

    IbvRegistration(final IbvMr mr)
    {
        this.mr = mr;
        this.lkey = mr.getLkey();
        this.rkey = mr.getRkey();
    }

    @Override
    public int lkey()
    {
        return lkey;
    }

    @Override
    public int rkey()
    {
        return rkey;
    }
}
