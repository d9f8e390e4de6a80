package io.xio.rdma.verbs;

import io.xio.engine.ConnectionException;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Reads the messages the peer sent into the {@link ReceiveRing}: hands each header to what it concerns (credits
 * granted and asked for, the peer's finished reads of our exposures) and a hello or a rendezvous descriptor
 * likewise, and tells the caller how many stream bytes a data message carries. Owner context thread only.
 */
final class Inbox
{
    private final ReceiveRing receives;
    private final Credits credits;
    private final ExposedBuffers exposed;
    private final RendezvousReader reader;
    private final String remote;

    Inbox(final ReceiveRing receives, final Credits credits, final ExposedBuffers exposed,
        final RendezvousReader reader, final String remote)
    {
        this.receives = receives;
        this.credits = credits;
        this.exposed = exposed;
        this.reader = reader;
        this.remote = remote;
    }

    /**
     * Takes in the message of {@code length} bytes in {@code slot}.
     *
     * @return how many stream bytes follow its header: none for a hello, a descriptor or a credit-only message
     * @throws ConnectionException when the peer sent what no peer of ours sends
     */
    int take(final int slot, final int length)
    {
        if (length < Wire.HEADER)
        {
            throw new ConnectionException("rdma peer " + remote + " sent a message of " + length + " bytes");
        }
        final UnsafeBuffer in = receives.buffer();
        final int offset = ReceiveRing.offset(slot);
        final int flags = Wire.flags(in, offset);
        credits.header(Wire.posted(in, offset), flags);
        exposed.readsDone(Wire.readsDone(flags));
        if ((flags & Wire.FLAG_HELLO) != 0)
        {
            final int peerSlot = credits.hello(in.getInt(offset + Wire.HEADER));
            if (peerSlot <= Wire.HEADER)
            {
                throw new ConnectionException("rdma peer " + remote + " announced receive slots of " + peerSlot +
                    " bytes");
            }
            return 0;
        }
        if ((flags & Wire.FLAG_RENDEZVOUS) != 0)
        {
            reader.begin(in.getLong(offset + Wire.DESCRIPTOR_ADDRESS), in.getInt(offset + Wire.DESCRIPTOR_RKEY),
                in.getInt(offset + Wire.DESCRIPTOR_BYTES));
            return 0;
        }
        return length - Wire.HEADER;
    }
}
