package io.xio.rdma.verbs;

import io.xio.engine.transport.RemoteRegion;
import org.agrona.BufferUtil;
import org.agrona.MutableDirectBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * What this end exposes to the peer's one-sided access. Mostly the sending end of rendezvous: a direct buffer of
 * {@link #MIN} bytes or more in the outbound stream is not copied but registered (unless it lies in registered
 * application memory) and described to the peer, which RDMA-READs it and counts it done in a later header; only
 * then is it released. So this also keeps the stream position handed to the queue pair (copied or exposed),
 * which is how far {@code StreamLink} may release its entries. Output buffers offered for the peer's RDMA WRITEs
 * need no tracking: they lie in application memory, registered until the application unregisters it. Owner
 * context thread only.
 */
final class ExposedBuffers
{
    static final int MIN = 64 << 10;
    static final int MAX = 16;
    private static final Logger LOG = LoggerFactory.getLogger(ExposedBuffers.class);

    private final QueuePair qp;
    private final String remote;
    /** What was registered for each exposure; null when it lies in a registered application region. */
    private final QueuePair.Registration[] made = new QueuePair.Registration[MAX];
    /** The stream position each exposure starts at. */
    private final long[] start = new long[MAX];
    private int first;
    private int count;
    private long handedOver;

    ExposedBuffers(final QueuePair qp, final String remote)
    {
        this.qp = qp;
        this.remote = remote;
    }

    /** Whether {@code buffer} goes by descriptor: large, direct, and an exposure left. */
    boolean exposable(final ByteBuffer buffer)
    {
        return buffer.isDirect() && buffer.remaining() >= MIN && count < MAX;
    }

    /** {@code bytes} of the stream were copied into send slots: their buffers are free at once. */
    void copied(final int bytes)
    {
        handedOver += bytes;
    }

    /** Registers {@code buffer}'s remaining bytes, consumes them and writes their descriptor into the message. */
    void expose(final ByteBuffer buffer, final MutableDirectBuffer message, final int offset) throws IOException
    {
        final int length = buffer.remaining();
        final long address = BufferUtil.address(buffer) + buffer.position();
        final QueuePair.Registration kept = qp.registered(address, length);
        final QueuePair.Registration registration = kept != null ? kept : qp.register(address, length);
        final int at = (first + count++) % MAX;
        made[at] = kept != null ? null : registration;
        start[at] = handedOver;
        handedOver += length;
        buffer.position(buffer.limit());
        message.putLong(offset + Wire.DESCRIPTOR_ADDRESS, address);
        message.putInt(offset + Wire.DESCRIPTOR_RKEY, registration.rkey());
        message.putInt(offset + Wire.DESCRIPTOR_BYTES, length);
    }

    /**
     * Describes {@code buffer}'s remaining bytes as a region the peer may RDMA-WRITE into, when they lie in
     * registered application memory: a registration per call would cost more than the copy it saves.
     */
    boolean forWrite(final ByteBuffer buffer, final RemoteRegion region)
    {
        if (!buffer.isDirect())
        {
            return false;
        }
        final long address = BufferUtil.address(buffer) + buffer.position();
        try
        {
            final QueuePair.Registration kept = qp.registered(address, buffer.remaining());
            if (kept == null)
            {
                return false;
            }
            region.set(address, kept.rkey(), buffer.remaining());
            return true;
        }
        catch (final IOException ex)
        {
            LOG.warn("cannot register the output buffer for {}; its response data travels in the frame", remote, ex);
            return false;
        }
    }

    /** The peer finished reading the oldest {@code reads} exposures. */
    void readsDone(final int reads)
    {
        for (int n = reads; n > 0 && count > 0; n--)
        {
            if (made[first] != null)
            {
                qp.deregister(made[first]);
            }
            made[first] = null;
            first = (first + 1) % MAX;
            count--;
        }
    }

    /** Exposures the peer may still read. */
    int count()
    {
        return count;
    }

    /** Stream position up to which no buffer is needed any more: the oldest exposure still being read. */
    long releasedPosition()
    {
        return count > 0 ? start[first] : handedOver;
    }

    /** After the queue pair is gone: the peer cannot read any more. */
    void release()
    {
        readsDone(count);
    }
}
