package io.xio.rdma.verbs;

import io.xio.engine.transport.LinkHandler;
import io.xio.engine.transport.stream.FrameAssembler;
import org.agrona.BufferUtil;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The receiving end of rendezvous: the peer exposed a large buffer and sent its descriptor (address, rkey,
 * length) where its bytes would have been. This reads them with RDMA READs straight into where the frame
 * assembler wants them, one READ per piece its buffer takes, and counts each buffer read to the end so that a
 * later header lets the peer release it. While a read is on, later messages wait: their bytes follow these in
 * the stream. Each READ takes a signalled send slot. Owner context thread only.
 */
final class RendezvousReader
{
    private final QueuePair qp;
    private final SendRing sends;
    private final FrameAssembler assembler;
    private boolean reading;
    private long remoteAddress;
    private int rkey;
    private int left;
    private int pieceLength;
    private QueuePair.Registration target;
    private int done;

    RendezvousReader(final QueuePair qp, final SendRing sends, final FrameAssembler assembler)
    {
        this.qp = qp;
        this.sends = sends;
        this.assembler = assembler;
    }

    /** A descriptor arrived. */
    void begin(final long address, final int key, final int length)
    {
        remoteAddress = address;
        rkey = key;
        left = length;
        reading = length > 0;
    }

    /** Whether exposed bytes are still to come: later messages must wait. */
    boolean reading()
    {
        return reading;
    }

    /** Whether a READ should be posted now: reading, and none in flight. */
    boolean wantsRead()
    {
        return reading && target == null;
    }

    /** Posts a READ of the next piece into where the assembler wants it, once a send slot is free. */
    void read() throws IOException
    {
        if (sends.free() == 0)
        {
            return; // retried after the next completion frees a slot
        }
        final ByteBuffer into = assembler.writableInBulk();
        final int length = Math.min(left, into.remaining());
        final long address = BufferUtil.address(into) + into.position();
        target = qp.register(address, length);
        pieceLength = length;
        final int slot = sends.take(true);
        qp.postRead(WorkId.read(slot), address, length, target.lkey(), remoteAddress, rkey);
    }

    /**
     * The READ completed: its bytes go to the assembler, which delivers the frames now whole. After the last
     * piece the read counts as done and later messages may go on.
     */
    void completed(final LinkHandler handler)
    {
        qp.deregister(target);
        target = null;
        remoteAddress += pieceLength;
        left -= pieceLength;
        assembler.received(pieceLength, handler);
        if (left == 0)
        {
            reading = false;
            done++;
        }
    }

    /** Whether reads finished that no header reported yet. */
    boolean owesReadsDone()
    {
        return done > 0;
    }

    /** Reads finished since the last header, for the header now written. */
    int takeReadsDone()
    {
        final int count = done;
        done = 0;
        return count;
    }

    /** After the queue pair is gone. */
    void release()
    {
        if (target != null)
        {
            qp.deregister(target);
            target = null;
        }
    }
}
