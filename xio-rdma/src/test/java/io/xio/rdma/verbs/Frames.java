package io.xio.rdma.verbs;

import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.transport.SendCompletion;
import io.xio.engine.transport.TransportLink;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.Random;

/** Valid engine frames for the links to carry: one data segment, three header bytes, bytes from a seed. Stateless. */
final class Frames
{
    private static final int HEADER = 3;

    private Frames()
    {
    }

    /** A whole frame with {@code dataLength} data bytes. */
    static byte[] frame(final long requestId, final int dataLength)
    {
        final byte[] head = head(requestId, dataLength);
        final byte[] frame = new byte[head.length + dataLength];
        System.arraycopy(head, 0, frame, 0, head.length);
        System.arraycopy(data(requestId, dataLength), 0, frame, head.length, dataLength);
        return frame;
    }

    /** The frame up to its data: header, segment table, application header. */
    static byte[] head(final long requestId, final int dataLength)
    {
        final int length = (int)Frame.frameLength(HEADER, 1, dataLength);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length - dataLength]);
        Frame.writeHeader(buffer, 0, length, FrameType.REQUEST, 0, 7, requestId, HEADER, 1, 0);
        buffer.putInt(Frame.HEADER_LENGTH, dataLength, Frame.ORDER);
        buffer.putBytes(Frame.HEADER_LENGTH + Frame.SEGMENT_ENTRY_LENGTH, new byte[] {1, 2, 3});
        return buffer.byteArray();
    }

    static byte[] data(final long seed, final int length)
    {
        final byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** A direct buffer holding {@link #data}. */
    static ByteBuffer directData(final long seed, final int length)
    {
        return ByteBuffer.allocateDirect(length).put(data(seed, length)).flip();
    }

    /** Claims, writes and commits a whole frame on {@code link}. */
    static void send(final TransportLink link, final byte[] frame)
    {
        final MutableDirectBuffer buffer = link.claim(frame.length);
        buffer.putBytes(link.claimOffset(), frame);
        link.commit();
    }

    /** Commits a frame whose data segment travels by reference from {@code data}. */
    static void send(final TransportLink link, final long requestId, final ByteBuffer data,
        final SendCompletion completion)
    {
        final byte[] head = head(requestId, data.remaining());
        final MutableDirectBuffer buffer = link.claim(head.length);
        buffer.putBytes(link.claimOffset(), head);
        link.commit(new ByteBuffer[] {data}, 1, completion);
    }
}
