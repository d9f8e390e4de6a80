package io.xio.rdma.verbs;

import io.xio.engine.Outbound;
import io.xio.engine.transport.RemoteRegion;
import io.xio.engine.transport.SendCompletion;
import org.agrona.BufferUtil;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One-sided RDMA WRITE groups: a response's data written straight into the output buffer its requester offered,
 * one WRITE per segment, the group's last one signalled. Sources in registered application memory go as they
 * are, small ones are copied into their send slot, large unregistered direct ones are registered for the one
 * write. Each write holds its source (and what was registered for it) until the send queue completed it; the
 * group's completion is told with its last. Each group asks for a completion, so at most {@link #MAX_GROUPS}
 * are in flight: that keeps the context's shared completion queue from overflowing. Owner context thread only.
 */
final class WriteTracker
{
    /** Smaller response data travels in the frame: a second work request would cost more than the copy saves. */
    static final int MIN = 4 << 10;
    static final int MAX_WRITES = 8;
    static final int MAX_GROUPS = 4;
    private static final int CAPACITY = SendRing.SLOTS; // each write holds a send slot

    private final QueuePair qp;
    private final SendRing sends;
    // Writes posted and not known complete, oldest first.
    private final long[] sequence = new long[CAPACITY];
    private final QueuePair.Registration[] made = new QueuePair.Registration[CAPACITY];
    private final ByteBuffer[] source = new ByteBuffer[CAPACITY]; // so its memory is not freed before the write
    private final SendCompletion[] completion = new SendCompletion[CAPACITY];
    private final boolean[] last = new boolean[CAPACITY];
    private int oldest;
    private int inFlight;
    private int groups;

    WriteTracker(final QueuePair qp, final SendRing sends)
    {
        this.qp = qp;
        this.sends = sends;
    }

    /** Whether {@code message}'s data segments can be written now; two send slots stay for a frame and credit. */
    boolean canWrite(final Outbound message)
    {
        final int count = message.segmentCount();
        if (count > MAX_WRITES || message.dataLength() < MIN || groups >= MAX_GROUPS || sends.free() < count + 2)
        {
            return false;
        }
        for (int i = 0; i < count; i++)
        {
            final ByteBuffer segment = message.segment(i);
            if (!segment.isDirect() && segment.remaining() > SendRing.SLOT)
            {
                return false;
            }
        }
        return true;
    }

    /** Write groups posted and not complete. */
    int groups()
    {
        return groups;
    }

    /**
     * Writes {@code data[0..count)} back to back into {@code region} as one chain, recorded as a group whose
     * last write tells {@code completion}. When it fails before the group was recorded ({@link #groups()} did
     * not grow), {@code completion} is the caller's to tell.
     *
     * @return the bytes written
     */
    long write(final RemoteRegion region, final ByteBuffer[] data, final int count, final SendCompletion completion)
        throws IOException
    {
        long remoteAddress = region.address();
        long bytes = 0;
        for (int i = 0; i < count; i++)
        {
            final ByteBuffer buffer = data[i];
            final int length = buffer.remaining();
            final int slot = sends.headSlot();
            QueuePair.Registration registration = null;
            long address = buffer.isDirect() ? BufferUtil.address(buffer) + buffer.position() : 0;
            final int lkey;
            final QueuePair.Registration kept = address != 0 && length > 0 ? qp.registered(address, length) : null;
            if (kept != null)
            {
                lkey = kept.lkey();
            }
            else if (length <= SendRing.SLOT)
            {
                sends.buffer().putBytes(sends.headOffset(), buffer, buffer.position(), length);
                address = sends.slotAddress(slot);
                lkey = sends.lkey();
            }
            else
            {
                registration = qp.register(address, length);
                lkey = registration.lkey();
            }
            final boolean isLast = i == count - 1;
            qp.write(i, slot, address, length, lkey, remoteAddress, region.key(), isLast);
            sends.take(isLast);
            record(sends.sequence(slot), registration, buffer, isLast ? completion : null, isLast);
            remoteAddress += length;
            bytes += length;
        }
        qp.postWrites(count);
        return bytes;
    }

    private void record(final long seq, final QueuePair.Registration registration, final ByteBuffer buffer,
        final SendCompletion done, final boolean isLast)
    {
        final int at = (oldest + inFlight++) % CAPACITY;
        sequence[at] = seq;
        made[at] = registration;
        source[at] = buffer;
        completion[at] = done;
        last[at] = isLast;
        if (isLast)
        {
            groups++;
        }
    }

    /** The send queue completed everything below {@code tail}: releases those writes. */
    void completedBefore(final long tail)
    {
        while (inFlight > 0 && sequence[oldest] < tail)
        {
            final int at = oldest;
            oldest = (oldest + 1) % CAPACITY;
            inFlight--;
            finish(at, true);
        }
    }

    private void finish(final int at, final boolean written)
    {
        final QueuePair.Registration registration = made[at];
        final SendCompletion done = completion[at];
        made[at] = null;
        completion[at] = null;
        source[at] = null;
        if (last[at])
        {
            last[at] = false;
            groups--;
        }
        if (registration != null)
        {
            qp.deregister(registration);
        }
        if (done != null)
        {
            done.onSendComplete(written);
        }
    }

    /** After the queue pair is gone: what was not known written never will be. */
    void release()
    {
        for (; inFlight > 0; inFlight--)
        {
            finish(oldest, false);
            oldest = (oldest + 1) % CAPACITY;
        }
    }
}
