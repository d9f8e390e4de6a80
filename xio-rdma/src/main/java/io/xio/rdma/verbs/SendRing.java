package io.xio.rdma.verbs;

import io.xio.engine.transport.LoopCounters;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The send queue of one queue pair as a ring of {@link #SLOTS} registered slots of {@link #SLOT} bytes. Every
 * work request on it (SEND, RDMA WRITE, RDMA READ) takes the next sequence number and that number's slot. The
 * send queue completes in order, so a signalled request's completion frees it and all before it, and only some
 * ask for one: a SEND when half a ring went since the last signalled request, a write group's last WRITE, every
 * READ. SENDs staged in one loop turn leave as one chained post_send. Owner context thread only.
 */
final class SendRing
{
    static final int SLOTS = 64;
    static final int SLOT = 8 << 10;

    private final QueuePair qp;
    private final ByteBuffer area = BufferUtil.allocateDirectAligned(SLOTS * SLOT, 4096);
    private final UnsafeBuffer buffer = new UnsafeBuffer(area);
    private final long address = BufferUtil.address(area);
    /** The sequence number each slot carries now. */
    private final long[] sequence = new long[SLOTS];
    private QueuePair.Registration registration;
    private long head;
    private long tail;
    private long lastSignaled = -1;
    private int staged;
    private long stagedBytes;

    SendRing(final QueuePair qp)
    {
        this.qp = qp;
    }

    void register() throws IOException
    {
        registration = qp.register(address, SLOTS * SLOT);
    }

    /** The slots themselves: a message is written at {@link #headOffset()} before it is staged. */
    UnsafeBuffer buffer()
    {
        return buffer;
    }

    int free()
    {
        return SLOTS - (int)(head - tail);
    }

    int headSlot()
    {
        return (int)(head % SLOTS);
    }

    int headOffset()
    {
        return headSlot() * SLOT;
    }

    long slotAddress(final int slot)
    {
        return address + (long)slot * SLOT;
    }

    int lkey()
    {
        return registration.lkey();
    }

    /** Sequence numbers below this one are complete. */
    long tail()
    {
        return tail;
    }

    /** The sequence number the request in {@code slot} carries. */
    long sequence(final int slot)
    {
        return sequence[slot];
    }

    /** Queues the head slot's message, {@code length} bytes written at {@link #headOffset()}, for {@link #post}. */
    void stage(final int length)
    {
        final boolean signal = head - lastSignaled >= SLOTS / 2;
        final int slot = take(signal);
        qp.send(staged++, slot, slotAddress(slot), length, registration.lkey(), signal);
        stagedBytes += length;
    }

    /**
     * Takes the head slot for a request the caller posts itself (a READ, a WRITE).
     *
     * @return the slot, whose id a completion must carry when {@code signaled}
     */
    int take(final boolean signaled)
    {
        final int slot = headSlot();
        sequence[slot] = head;
        if (signaled)
        {
            lastSignaled = head;
        }
        head++;
        return slot;
    }

    /** Posts the staged SENDs as one chain and counts it as one write; forgets them once {@code closed}. */
    void post(final boolean closed, final LoopCounters counters) throws IOException
    {
        final int count = staged;
        final long bytes = stagedBytes;
        staged = 0;
        stagedBytes = 0;
        if (count > 0 && !closed)
        {
            qp.postSends(count);
            counters.wrote(bytes);
        }
    }

    /** A signalled request in {@code slot} completed: it and all before it are done. */
    void completed(final int slot)
    {
        tail = sequence[slot] + 1;
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
