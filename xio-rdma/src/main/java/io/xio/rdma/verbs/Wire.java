package io.xio.rdma.verbs;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The layout of the messages two {@link VerbsLink}s exchange. Every message starts with an 8-byte header: how
 * many receives its sender has posted in all (so credits return with traffic), then flags in the low byte and
 * the number of rendezvous reads its sender finished since its last message above them. A hello carries the
 * sender's receive slot size; a rendezvous message the descriptor of an exposed buffer; any other message
 * bytes of the frame stream. Native byte order: both ends run this code on the same kind of host. Stateless:
 * any thread.
 */
final class Wire
{
    static final int HEADER = 8;
    static final int FLAG_HELLO = 1;
    static final int FLAG_WANT_CREDIT = 2;
    static final int FLAG_RENDEZVOUS = 4;
    private static final int READS_DONE_SHIFT = 8;
    /** Header, receive slot size, protocol version. */
    static final int HELLO_LENGTH = HEADER + 8;
    static final int HELLO_VERSION = 1;
    /** Header, then the exposed bytes' address, rkey and length. */
    static final int DESCRIPTOR_LENGTH = HEADER + 16;
    static final int DESCRIPTOR_ADDRESS = HEADER;
    static final int DESCRIPTOR_RKEY = HEADER + 8;
    static final int DESCRIPTOR_BYTES = HEADER + 12;

    private Wire()
    {
    }

    static void putHeader(final MutableDirectBuffer buffer, final int offset, final int posted, final int flags,
        final int readsDone)
    {
        buffer.putInt(offset, posted);
        buffer.putInt(offset + 4, flags | readsDone << READS_DONE_SHIFT);
    }

    static int posted(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset);
    }

    static int flags(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + 4);
    }

    static int readsDone(final int flags)
    {
        return flags >>> READS_DONE_SHIFT;
    }
}
