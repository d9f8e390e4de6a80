package io.xio.engine.protocol;

import io.xio.engine.Limits;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * Flyweight over one protocol v2 frame in a buffer (layout in {@code docs/protocol.md}). Reads and writes
 * fields in place; holds no copy. Not thread-safe: one instance per owner thread, re-wrapped per frame.
 */
public final class Frame
{
    public static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    public static final int VERSION = 2;

    public static final int LENGTH_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int TYPE_OFFSET = 5;
    public static final int FLAGS_OFFSET = 6;
    public static final int SESSION_ID_OFFSET = 8;
    public static final int REQUEST_ID_OFFSET = 16;
    public static final int HEADER_LENGTH_OFFSET = 24;
    public static final int SEGMENT_COUNT_OFFSET = 28;
    public static final int STATUS_OFFSET = 30;
    public static final int HEADER_LENGTH = 32;
    public static final int SEGMENT_ENTRY_LENGTH = 4;

    private DirectBuffer buffer;
    private int offset;

    public Frame wrap(final DirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    public DirectBuffer buffer()
    {
        return buffer;
    }

    public int offset()
    {
        return offset;
    }

    public int frameLength()
    {
        return buffer.getInt(offset + LENGTH_OFFSET, ORDER);
    }

    public int version()
    {
        return buffer.getByte(offset + VERSION_OFFSET) & 0xFF;
    }

    public int type()
    {
        return buffer.getByte(offset + TYPE_OFFSET) & 0xFF;
    }

    public int flags()
    {
        return buffer.getShort(offset + FLAGS_OFFSET, ORDER) & 0xFFFF;
    }

    public long sessionId()
    {
        return buffer.getLong(offset + SESSION_ID_OFFSET, ORDER);
    }

    public long requestId()
    {
        return buffer.getLong(offset + REQUEST_ID_OFFSET, ORDER);
    }

    public int headerLength()
    {
        return buffer.getInt(offset + HEADER_LENGTH_OFFSET, ORDER);
    }

    public int segmentCount()
    {
        return buffer.getShort(offset + SEGMENT_COUNT_OFFSET, ORDER) & 0xFFFF;
    }

    public int status()
    {
        return buffer.getShort(offset + STATUS_OFFSET, ORDER) & 0xFFFF;
    }

    public int segmentLength(final int index)
    {
        return buffer.getInt(offset + HEADER_LENGTH + index * SEGMENT_ENTRY_LENGTH, ORDER);
    }

    /** Offset (absolute, in the wrapped buffer) of the application header. */
    public int headerOffset()
    {
        return offset + HEADER_LENGTH + segmentCount() * SEGMENT_ENTRY_LENGTH;
    }

    /**
     * Bytes at the start of the application-header area before the call-context block: a
     * {@link FrameType#STREAM_DATA} frame's {@code i64} sequence number ({@link StreamFrames#SEQUENCE_LENGTH}), else
     * none. Only for a frame whose header was checked.
     */
    public int prefixLength()
    {
        return type() == FrameType.STREAM_DATA ? StreamFrames.SEQUENCE_LENGTH : 0;
    }

    /** Offset (absolute) of the call-context block, if the frame has one: after the {@link #prefixLength} prefix. */
    public int contextOffset()
    {
        return headerOffset() + prefixLength();
    }

    /**
     * Bytes of the call-context block ({@link CallContext}) after the prefix, its length field included: 0 unless the
     * frame has {@link FrameFlags#CONTEXT}. Only for a frame whose block was checked.
     */
    public int contextLength()
    {
        return (flags() & FrameFlags.CONTEXT) == 0 ? 0 : CallContext.blockLengthAt(buffer, contextOffset());
    }

    /** Offset (absolute) of the application's own header: after the prefix and the call-context block, if any. */
    public int applicationHeaderOffset()
    {
        return contextOffset() + contextLength();
    }

    /** Bytes of the application's own header: {@link #headerLength()} less the prefix and the call-context block. */
    public int applicationHeaderLength()
    {
        return headerLength() - prefixLength() - contextLength();
    }

    /** Offset (absolute) of the first data segment; segment i follows segment i-1. */
    public int dataOffset()
    {
        return headerOffset() + headerLength();
    }

    /** Total length of a frame with the given shape. */
    public static long frameLength(final int headerLength, final int segmentCount, final long dataLength)
    {
        return HEADER_LENGTH + (long)segmentCount * SEGMENT_ENTRY_LENGTH + headerLength + dataLength;
    }

    /** Writes the fixed header; the segment table, header and data follow at the documented offsets. */
    public static void writeHeader(
        final MutableDirectBuffer buffer,
        final int offset,
        final int frameLength,
        final int type,
        final int flags,
        final long sessionId,
        final long requestId,
        final int headerLength,
        final int segmentCount,
        final int status)
    {
        buffer.putInt(offset + LENGTH_OFFSET, frameLength, ORDER);
        buffer.putByte(offset + VERSION_OFFSET, (byte)VERSION);
        buffer.putByte(offset + TYPE_OFFSET, (byte)type);
        buffer.putShort(offset + FLAGS_OFFSET, (short)flags, ORDER);
        buffer.putLong(offset + SESSION_ID_OFFSET, sessionId, ORDER);
        buffer.putLong(offset + REQUEST_ID_OFFSET, requestId, ORDER);
        buffer.putInt(offset + HEADER_LENGTH_OFFSET, headerLength, ORDER);
        buffer.putShort(offset + SEGMENT_COUNT_OFFSET, (short)segmentCount, ORDER);
        buffer.putShort(offset + STATUS_OFFSET, (short)status, ORDER);
    }

    /**
     * Checks the fixed header once its 32 bytes are in, before any body is read or memory is set aside for it.
     *
     * @return null when acceptable, otherwise what is wrong
     */
    public String checkHeader(final Limits limits)
    {
        final int version = version();
        if (version != VERSION)
        {
            return "unsupported protocol version " + version + " (this side speaks " + VERSION + ")";
        }
        final int type = type();
        if (!FrameType.isKnown(type))
        {
            return "unknown frame type " + type;
        }
        final int frameLength = frameLength();
        if (frameLength < HEADER_LENGTH)
        {
            return "frame length " + frameLength + " is shorter than the " + HEADER_LENGTH + "-byte header";
        }
        if (frameLength > limits.maxMessageBytes())
        {
            return "frame length " + frameLength + " exceeds the limit of " + limits.maxMessageBytes() + " bytes";
        }
        final int segments = segmentCount();
        if (segments > limits.maxSegments())
        {
            return "segment count " + segments + " exceeds the limit of " + limits.maxSegments();
        }
        final int headerLength = headerLength();
        if (headerLength < 0 || headerLength > limits.maxHeaderBytes())
        {
            return "application header length " + headerLength + " outside 0.." + limits.maxHeaderBytes();
        }
        if (frameLength(headerLength, segments, 0) > frameLength)
        {
            return "frame length " + frameLength + " too short for " + segments + " segments and a " +
                headerLength + "-byte header";
        }
        if (type == FrameType.STREAM_DATA && headerLength < StreamFrames.SEQUENCE_LENGTH)
        {
            return "STREAM_DATA with a " + headerLength + "-byte header, too short for its sequence number";
        }
        return null;
    }

    /**
     * Checks that the segment table adds up to the frame length, once the whole frame is in.
     *
     * @return null when acceptable, otherwise what is wrong
     */
    public String checkBody()
    {
        return checkBody(false);
    }

    /**
     * {@link #checkBody()}, and with {@code sharedAllowed} (a shm link) a {@link FrameFlags#DATA_SHARED} frame's
     * reference must have the length its segment count gives; its contents are the link's to check.
     */
    public String checkBody(final boolean sharedAllowed)
    {
        final int segments = segmentCount();
        long data = 0;
        for (int i = 0; i < segments; i++)
        {
            final int length = segmentLength(i);
            if (length < 0)
            {
                return "segment " + i + " has negative length " + length;
            }
            data += length;
        }
        if (type() == FrameType.RESPONSE && (flags() & FrameFlags.DATA_WRITTEN) != 0)
        {
            data = 0; // the data went straight into the requester's output region
        }
        if ((flags() & FrameFlags.DATA_SHARED) != 0)
        {
            final int type = type();
            final boolean message = type == FrameType.REQUEST || type == FrameType.RESPONSE ||
                type == FrameType.STREAM_DATA;
            if (!sharedAllowed || !message ||
                (flags() & FrameFlags.DATA_WRITTEN) != 0)
            {
                return "shared-memory data reference on a " + FrameType.name(type) + " frame where none may be";
            }
            data = FrameFlags.SHARED_BODY_LENGTH + 8L * segments;
        }
        final long expected = frameLength(headerLength(), segments, data);
        if (expected != frameLength())
        {
            return "segment lengths add up to a " + expected + "-byte frame, but the frame length is " +
                frameLength();
        }
        return null;
    }

    @Override
    public String toString()
    {
        return FrameType.name(type()) + "{length=" + frameLength() + ", session=" + sessionId() +
            ", id=" + requestId() + ", flags=" + flags() + ", status=" + status() + "}";
    }
}
