package io.xio.rdma.verbs;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Writes the messages this end sends into the {@link SendRing}: each a {@link Wire} header (our posted receives,
 * flags, reads done) and then a hello, a rendezvous descriptor, a credit-only nothing, or stream bytes up to
 * the peer's receive slot size. Stream messages leave one credit back for a credit-only message and ask for
 * credit when they are among the peer's last few receives. Owner context thread only.
 */
final class Outbox
{
    private final SendRing sends;
    private final Credits credits;
    private final RendezvousReader reader;
    private final ExposedBuffers exposed;

    Outbox(final SendRing sends, final Credits credits, final RendezvousReader reader, final ExposedBuffers exposed)
    {
        this.sends = sends;
        this.credits = credits;
        this.reader = reader;
        this.exposed = exposed;
    }

    /** Stages the hello: our receive slot size (the header has our credits). */
    void hello()
    {
        final int at = sends.headOffset() + Wire.HEADER;
        sends.buffer().putInt(at, SendRing.SLOT);
        sends.buffer().putInt(at + 4, Wire.HELLO_VERSION);
        stage(Wire.HELLO_LENGTH, Wire.FLAG_HELLO);
    }

    /**
     * Stages a header-only message when the peer should hear of finished reads or new receives and one can go.
     *
     * @return whether it was staged
     */
    boolean creditMessage()
    {
        if ((reader.owesReadsDone() || credits.owesCredit()) && credits.available() >= 1 && sends.free() > 0)
        {
            stage(Wire.HEADER, 0);
            return true;
        }
        return false;
    }

    /**
     * Stages messages for {@code buffers[from, to)} as far as credits and send slots allow: bytes are copied
     * (buffers' positions advance), exposable buffers go as descriptors.
     *
     * @return the index of the first buffer not taken whole
     */
    int pack(final ByteBuffer[] buffers, final int from, final int to) throws IOException
    {
        int index = from;
        final int capacity = credits.peerSlot() - Wire.HEADER;
        final UnsafeBuffer out = sends.buffer();
        while (index < to && credits.available() >= 2 && sends.free() > 0)
        {
            if (exposed.exposable(buffers[index]))
            {
                exposed.expose(buffers[index], out, sends.headOffset());
                index++;
                stage(Wire.DESCRIPTOR_LENGTH, Wire.FLAG_RENDEZVOUS | wantCredit());
                continue;
            }
            final int base = sends.headOffset() + Wire.HEADER;
            int fill = 0;
            while (index < to && fill < capacity && !exposed.exposable(buffers[index]))
            {
                final ByteBuffer buffer = buffers[index];
                final int n = Math.min(buffer.remaining(), capacity - fill);
                out.putBytes(base + fill, buffer, buffer.position(), n);
                buffer.position(buffer.position() + n);
                fill += n;
                if (!buffer.hasRemaining())
                {
                    index++;
                }
            }
            exposed.copied(fill);
            stage(Wire.HEADER + fill, wantCredit());
        }
        while (index < to && !buffers[index].hasRemaining())
        {
            index++;
        }
        return index;
    }

    private int wantCredit()
    {
        return credits.runningLow() ? Wire.FLAG_WANT_CREDIT : 0;
    }

    /** Queues the message in the head send slot (its payload already written) for the next post. */
    private void stage(final int length, final int flags)
    {
        Wire.putHeader(sends.buffer(), sends.headOffset(), credits.send(), flags, reader.takeReadsDone());
        sends.stage(length);
    }
}
