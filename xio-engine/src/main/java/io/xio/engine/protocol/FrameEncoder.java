package io.xio.engine.protocol;

import io.xio.engine.Outbound;
import io.xio.engine.transport.RemoteRegion;
import io.xio.engine.transport.SendCompletion;
import io.xio.engine.transport.TransportLink;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteBuffer;

/**
 * Writes frames into a {@link TransportLink}: whole into a claim when small (copying the data, which is
 * cheaper than a separate gather entry), or as a claimed prefix followed by the data segments by reference
 * when large. Owner context thread only; holds a scratch array, no per-frame state.
 */
public final class FrameEncoder
{
    /** Body of a DATA_DESCRIPTOR: i64 address, i32 key, i32 length. */
    public static final int DESCRIPTOR_BODY = 16;

    private final RemoteRegion region = new RemoteRegion();
    private ByteBuffer[] scratch = new ByteBuffer[8];

    /** {@link #encode}: the link had no room; nothing was written. */
    public static final int NO_ROOM = 0;
    /** {@link #encode}: written; the completion, if any, will be called. */
    public static final int QUEUED = 1;
    /** {@link #encode}: written by copy; the link holds none of the message's buffers, the completion is not called. */
    public static final int COPIED = 2;
    /** {@link #encodeInto}: the link cannot write this data into the region; nothing was written. */
    public static final int NOT_WRITABLE = 3;
    /** A message frame without a stream's sequence number. */
    private static final long NO_SEQUENCE = -1;

    /**
     * Encodes one message frame.
     *
     * @param remaining nanoseconds the caller still waits, for a REQUEST's call context; or
     *                  {@link CallContext#NO_DEADLINE}
     * @param completion told when the link is done with the message's buffers, when it references them
     *                   (a large frame), or always when {@code alwaysComplete}; may be null
     * @return {@link #NO_ROOM}, {@link #QUEUED} or {@link #COPIED}
     */
    public int encode(final TransportLink link, final int type, final int flags, final long sessionId,
        final long requestId, final int status, final Outbound message, final long remaining,
        final SendCompletion completion, final boolean alwaysComplete)
    {
        return encode(link, type, flags, sessionId, requestId, status, message, remaining, NO_SEQUENCE, completion,
            alwaysComplete);
    }

    /**
     * Encodes one STREAM_DATA frame: {@code message} (its metadata in a call context, if any) with sequence number
     * {@code sequence}, as {@link #encode} encodes other message frames.
     */
    public int encodeStream(final TransportLink link, final int flags, final long sessionId, final long streamId,
        final int status, final long sequence, final Outbound message, final SendCompletion completion,
        final boolean alwaysComplete)
    {
        return encode(link, FrameType.STREAM_DATA, flags, sessionId, streamId, status, message,
            CallContext.NO_DEADLINE, sequence, completion, alwaysComplete);
    }

    /**
     * Encodes a CREDIT for stream {@code streamId}: the receiver has every message up to {@code received} and takes
     * messages up to {@code limitSequence} and frames adding up to {@code limitBytes} (all absolute). Allocates
     * nothing; false when the link had no room.
     */
    public boolean encodeCredit(final TransportLink link, final int flags, final long sessionId, final long streamId,
        final long received, final long limitSequence, final long limitBytes)
    {
        final int length = Frame.HEADER_LENGTH + StreamFrames.CREDIT_BODY;
        final MutableDirectBuffer buffer = link.claim(length);
        if (buffer == null)
        {
            return false;
        }
        final int at = link.claimOffset();
        Frame.writeHeader(buffer, at, length, FrameType.CREDIT, flags, sessionId, streamId, StreamFrames.CREDIT_BODY,
            0, 0);
        StreamFrames.writeCredit(buffer, at + Frame.HEADER_LENGTH, received, limitSequence, limitBytes);
        link.commit();
        return true;
    }

    private int encode(final TransportLink link, final int type, final int flags, final long sessionId,
        final long requestId, final int status, final Outbound message, final long remaining, final long sequence,
        final SendCompletion completion, final boolean alwaysComplete)
    {
        final ByteBuffer header = message.header();
        final int prefix = sequence == NO_SEQUENCE ? 0 : StreamFrames.SEQUENCE_LENGTH;
        final int context = CallContext.blockLength(remaining, message.metadata());
        final int headerLength = prefix + context + header.remaining();
        final int segments = message.segmentCount();
        final long dataLength = message.dataLength();
        final long frameLength = Frame.frameLength(headerLength, segments, dataLength);
        if (frameLength > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("message of " + frameLength + " bytes is larger than a frame can be");
        }
        final boolean inline = frameLength <= link.maxInlineFrame();
        final int claimLength = inline ? (int)frameLength : (int)Frame.frameLength(headerLength, segments, 0);
        final MutableDirectBuffer buffer = link.claim(claimLength);
        if (buffer == null)
        {
            return NO_ROOM;
        }
        int at = link.claimOffset();
        Frame.writeHeader(buffer, at, (int)frameLength, type, context == 0 ? flags : flags | FrameFlags.CONTEXT,
            sessionId, requestId, headerLength, segments, status);
        at += Frame.HEADER_LENGTH;
        for (int i = 0; i < segments; i++)
        {
            buffer.putInt(at, message.segment(i).remaining(), Frame.ORDER);
            at += Frame.SEGMENT_ENTRY_LENGTH;
        }
        if (prefix > 0)
        {
            buffer.putLong(at, sequence, Frame.ORDER);
            at += prefix;
        }
        at = putHeader(buffer, at, context, remaining, message);
        if (inline)
        {
            for (int i = 0; i < segments; i++)
            {
                final ByteBuffer segment = message.segment(i);
                buffer.putBytes(at, segment, segment.position(), segment.remaining());
                at += segment.remaining();
            }
            if (completion == null || !alwaysComplete)
            {
                link.commit();
                return COPIED;
            }
            link.commit(scratch, 0, completion);
            return QUEUED;
        }
        else
        {
            final ByteBuffer[] scratch = scratch(segments);
            for (int i = 0; i < segments; i++)
            {
                scratch[i] = message.segment(i).duplicate();
            }
            link.commit(scratch, segments, completion);
            java.util.Arrays.fill(scratch, 0, segments, null);
            return QUEUED;
        }
    }

    /**
     * Writes a DATA_DESCRIPTOR offering {@code output}'s remaining bytes to the peer for its response to request
     * {@code requestId}, when the link can expose them; the REQUEST must follow in the same loop turn.
     *
     * @return the bytes offered, or -1 when nothing was written
     */
    public int exposeOutput(final TransportLink link, final int flags, final long sessionId, final long requestId,
        final ByteBuffer output)
    {
        if (!output.hasRemaining() || !link.exposeForWrite(output, region))
        {
            return -1;
        }
        final int length = Frame.HEADER_LENGTH + DESCRIPTOR_BODY;
        final MutableDirectBuffer buffer = link.claim(length);
        if (buffer == null)
        {
            return -1;
        }
        final int at = link.claimOffset();
        Frame.writeHeader(buffer, at, length, FrameType.DATA_DESCRIPTOR, flags & FrameFlags.FROM_ACCEPTOR, sessionId,
            requestId, DESCRIPTOR_BODY, 0, 0);
        buffer.putLong(at + Frame.HEADER_LENGTH, region.address(), Frame.ORDER);
        buffer.putInt(at + Frame.HEADER_LENGTH + 8, region.key(), Frame.ORDER);
        buffer.putInt(at + Frame.HEADER_LENGTH + 12, region.length(), Frame.ORDER);
        link.commit();
        return region.length();
    }

    /**
     * Encodes a RESPONSE whose data segments the link writes straight into the requester's region (address,
     * key, length from its DATA_DESCRIPTOR); the frame itself carries only their lengths.
     *
     * @return {@link #NOT_WRITABLE} (the data does not fit, or the link cannot write now), {@link #NO_ROOM} or
     * {@link #QUEUED}
     */
    public int encodeInto(final TransportLink link, final int flags, final long sessionId, final long requestId,
        final int status, final Outbound message, final long address, final int key, final int length,
        final SendCompletion completion)
    {
        final int segments = message.segmentCount();
        final long dataLength = message.dataLength();
        if (segments == 0 || dataLength > length || !link.canWriteInto(message))
        {
            return NOT_WRITABLE;
        }
        final int context = CallContext.blockLength(CallContext.NO_DEADLINE, message.metadata());
        final int headerLength = context + message.headerLength();
        final int frameLength = (int)Frame.frameLength(headerLength, segments, 0);
        final MutableDirectBuffer buffer = link.claim(frameLength);
        if (buffer == null)
        {
            return NO_ROOM;
        }
        int at = link.claimOffset();
        Frame.writeHeader(buffer, at, frameLength, FrameType.RESPONSE,
            flags | FrameFlags.DATA_WRITTEN | (context == 0 ? 0 : FrameFlags.CONTEXT), sessionId, requestId,
            headerLength, segments, status);
        at += Frame.HEADER_LENGTH;
        final ByteBuffer[] scratch = scratch(segments);
        for (int i = 0; i < segments; i++)
        {
            final ByteBuffer segment = message.segment(i);
            buffer.putInt(at, segment.remaining(), Frame.ORDER);
            at += Frame.SEGMENT_ENTRY_LENGTH;
            scratch[i] = segment.duplicate();
        }
        putHeader(buffer, at, context, CallContext.NO_DEADLINE, message);
        link.commitInto(region.set(address, key, length), scratch, segments, completion);
        java.util.Arrays.fill(scratch, 0, segments, null);
        return QUEUED;
    }

    /** Writes the call-context block ({@code context} bytes, maybe none) and the application header; the end. */
    private static int putHeader(final MutableDirectBuffer buffer, final int at, final int context,
        final long remaining, final Outbound message)
    {
        if (context > 0)
        {
            CallContext.write(buffer, at, remaining, message.metadata());
        }
        final ByteBuffer header = message.header();
        buffer.putBytes(at + context, header, header.position(), header.remaining());
        return at + context + header.remaining();
    }

    /** The scratch array, with room for {@code segments} buffers. */
    private ByteBuffer[] scratch(final int segments)
    {
        if (scratch.length < segments)
        {
            scratch = new ByteBuffer[Math.max(segments, scratch.length * 2)];
        }
        return scratch;
    }

    /** Encodes a frame whose body is just {@code body} (control frames). */
    public boolean encodeControl(final TransportLink link, final int type, final int flags, final long sessionId,
        final long requestId, final int status, final byte[] body)
    {
        final int length = Frame.HEADER_LENGTH + body.length;
        final MutableDirectBuffer buffer = link.claim(length);
        if (buffer == null)
        {
            return false;
        }
        final int at = link.claimOffset();
        Frame.writeHeader(buffer, at, length, type, flags, sessionId, requestId, body.length, 0, status);
        buffer.putBytes(at + Frame.HEADER_LENGTH, body);
        link.commit();
        return true;
    }
}
