package io.xio.rdma.verbs;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The receive side of one queue pair: {@link #SLOTS} registered slots of {@link SendRing#SLOT} bytes, all posted
 * before the connection is accepted or requested (so the peer never waits for one). Receives complete in the
 * order posted, so the slots are a ring: a quarter of it is re-posted as one chained post_recv once its last
 * slot was consumed, and a completion for any slot but the next one means the queue pair is broken. Messages
 * wait here in arrival order until taken (at once, unless the link has not started or a rendezvous read is on);
 * being in order, the waiting ones are a run of consecutive slots. Owner context thread only.
 */
final class ReceiveRing
{
    static final int SLOTS = 64;
    static final int BATCH = SLOTS / 4;
    private static final int SLOT = SendRing.SLOT;

    private final QueuePair qp;
    private final ByteBuffer area = BufferUtil.allocateDirectAligned(SLOTS * SLOT, 4096);
    private final UnsafeBuffer buffer = new UnsafeBuffer(area);
    private final long address = BufferUtil.address(area);
    private final int[] batches = new int[SLOTS / BATCH];
    private final int[] length = new int[SLOTS];
    private QueuePair.Registration registration;
    private int next;
    private int oldest;
    private int waiting;

    ReceiveRing(final QueuePair qp)
    {
        this.qp = qp;
    }

    /**
     * Registers the slots and posts a receive in each.
     *
     * @return how many receives were posted
     */
    int postAll() throws IOException
    {
        registration = qp.register(address, SLOTS * SLOT);
        for (int batch = 0; batch < batches.length; batch++)
        {
            final int first = batch * BATCH;
            batches[batch] = qp.prepareReceives(WorkId.receive(first), address + (long)first * SLOT, SLOT, BATCH,
                registration.lkey());
            qp.postReceives(batches[batch]);
        }
        return SLOTS;
    }

    /** The slots themselves, each message at {@link #offset}. */
    UnsafeBuffer buffer()
    {
        return buffer;
    }

    static int offset(final int slot)
    {
        return slot * SLOT;
    }

    /** The slot whose receive must complete next. */
    int next()
    {
        return next;
    }

    /**
     * The receive in {@code slot} completed with a message of {@code bytes}: it waits for {@link #take}.
     *
     * @return false when it is not the one that must complete next (nothing changes then)
     */
    boolean arrived(final int slot, final int bytes)
    {
        if (slot != next)
        {
            return false;
        }
        next = (slot + 1) % SLOTS;
        if (waiting == 0)
        {
            oldest = slot;
        }
        waiting++;
        length[slot] = bytes;
        return true;
    }

    /** Whether messages arrived that were not taken yet. */
    boolean waiting()
    {
        return waiting > 0;
    }

    /** Takes the oldest message waiting: its slot, whose message {@link #length} long. */
    int take()
    {
        final int slot = oldest;
        oldest = (oldest + 1) % SLOTS;
        waiting--;
        return slot;
    }

    int length(final int slot)
    {
        return length[slot];
    }

    /**
     * The message in {@code slot} was consumed: re-posts its quarter of the ring when it was the quarter's last.
     *
     * @return how many receives were posted
     */
    int consumed(final int slot) throws IOException
    {
        if ((slot + 1) % BATCH != 0)
        {
            return 0;
        }
        qp.postReceives(batches[slot / BATCH]);
        return BATCH;
    }

    /** After the queue pair is gone. */
    void release()
    {
        if (registration != null)
        {
            qp.deregister(registration);
            registration = null;
        }
    }
}
