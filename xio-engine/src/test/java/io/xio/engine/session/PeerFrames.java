package io.xio.engine.session;

import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Frames as a peer writes them (layout in docs/protocol.md), for tests that play the peer (the fuzz seeds too). */
public final class PeerFrames
{
    private PeerFrames()
    {
    }

    /**
     * {@code body} followed by the sizes a SETUP or SETUP_ACCEPT announces (largest message, header, call context,
     * most segments),
     * the defaults'.
     */
    public static SetupCodec.Writer sizes(final SetupCodec.Writer body)
    {
        final io.xio.engine.Limits limits = io.xio.engine.Limits.DEFAULT;
        return body.i32(limits.maxMessageBytes()).i32(limits.maxHeaderBytes()).i32(limits.maxMetadataBytes())
            .i32(limits.maxSegments());
    }

    public static byte[] frame(final int type, final int flags, final long sessionId, final long requestId,
        final int status, final byte[] header, final byte[]... segments)
    {
        long data = 0;
        for (final byte[] segment : segments)
        {
            data += segment.length;
        }
        final int length = (int)Frame.frameLength(header.length, segments.length, data);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length]);
        Frame.writeHeader(buffer, 0, length, type, flags, sessionId, requestId, header.length, segments.length,
            status);
        int at = Frame.HEADER_LENGTH;
        for (final byte[] segment : segments)
        {
            buffer.putInt(at, segment.length, Frame.ORDER);
            at += Frame.SEGMENT_ENTRY_LENGTH;
        }
        buffer.putBytes(at, header);
        at += header.length;
        for (final byte[] segment : segments)
        {
            buffer.putBytes(at, segment);
            at += segment.length;
        }
        return buffer.byteArray();
    }

    /** The secret {@link #setupAccept} issues. */
    static final byte[] SECRET = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    static byte[] setupAccept(final long token, final long sessionId)
    {
        return setupAccept(token, sessionId, 1024, 4096);
    }

    /** A SETUP_ACCEPT announcing the server's most calls in flight and its deduplication window. */
    static byte[] setupAccept(final long token, final long sessionId, final int maxInFlight, final int dedupWindow)
    {
        return frame(FrameType.SETUP_ACCEPT, 0, sessionId, token, 0,
            sizes(new SetupCodec.Writer().map(Map.of()).i32(maxInFlight).i32(dedupWindow).bytes(SECRET)).toBytes());
    }

    static byte[] setup(final long token, final String resource)
    {
        return frame(FrameType.SETUP, 0, 0, token, 0,
            sizes(new SetupCodec.Writer().u8(0).string(resource).map(Map.of()).i32(1024).i32(4096))
                .credentials(io.xio.engine.Credentials.NONE).toBytes());
    }

    static byte[] attachAccept(final long token, final long sessionId)
    {
        return frame(FrameType.ATTACH_ACCEPT, 0, sessionId, token, 0, new byte[0]);
    }

    static byte[] cancelResult(final int flags, final long sessionId, final long first, final long last,
        final int aborted)
    {
        return frame(FrameType.CANCEL_RESULT, flags, sessionId, first, 0,
            new SetupCodec.Writer().i64(last).i32(aborted).toBytes());
    }

    /** A RESPONSE whose data the responder wrote into the requester's output: only the segments' lengths travel. */
    static byte[] writtenResponse(final long sessionId, final long requestId, final int... lengths)
    {
        final int length = Frame.HEADER_LENGTH + lengths.length * Frame.SEGMENT_ENTRY_LENGTH;
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length]);
        Frame.writeHeader(buffer, 0, length, FrameType.RESPONSE, io.xio.engine.protocol.FrameFlags.DATA_WRITTEN,
            sessionId, requestId, 0, lengths.length, 0);
        for (int i = 0; i < lengths.length; i++)
        {
            buffer.putInt(Frame.HEADER_LENGTH + i * Frame.SEGMENT_ENTRY_LENGTH, lengths[i], Frame.ORDER);
        }
        return buffer.byteArray();
    }

    static byte[] utf8(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
