package io.xio.rdma.verbs;

/**
 * The layout of a work request id's low 32 bits: the slot a work request took, a bit for receives and a bit
 * for READs. SENDs and WRITEs carry just their send slot. Stateless: any thread.
 */
final class WorkId
{
    static final int RECEIVE = 1 << 31;
    static final int READ = 1 << 30;
    private static final int SLOT = READ - 1;

    private WorkId()
    {
    }

    static int receive(final int slot)
    {
        return RECEIVE | slot;
    }

    static int read(final int slot)
    {
        return READ | slot;
    }

    static boolean isReceive(final int id)
    {
        return (id & RECEIVE) != 0;
    }

    static boolean isRead(final int id)
    {
        return (id & READ) != 0;
    }

    /** The receive slot of a receive, the send slot of anything else. */
    static int slot(final int id)
    {
        return id & SLOT;
    }
}
