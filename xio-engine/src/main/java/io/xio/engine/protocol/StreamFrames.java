package io.xio.engine.protocol;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The layout of the two stream frames: a {@link FrameType#STREAM_DATA}'s sequence number, which leads its
 * application-header area, and a {@link FrameType#CREDIT}'s body of three absolute {@code i64}s. Reading checks
 * nothing the frame check did not; {@link #checkCredit} checks a credit's body. Thread-safe (stateless).
 */
public final class StreamFrames
{
    /** Bytes of a STREAM_DATA's sequence number. */
    public static final int SEQUENCE_LENGTH = 8;
    /** Bytes of a CREDIT's body: {@code i64 received, i64 limitSequence, i64 limitBytes}. */
    public static final int CREDIT_BODY = 24;

    private StreamFrames()
    {
    }

    /** The sequence number of the STREAM_DATA in {@code frame}: 1 for a direction's first message. */
    public static long sequence(final Frame frame)
    {
        return frame.buffer().getLong(frame.headerOffset(), Frame.ORDER);
    }

    /** Writes a credit's body at {@code at}. */
    public static void writeCredit(final MutableDirectBuffer buffer, final int at, final long received,
        final long limitSequence, final long limitBytes)
    {
        buffer.putLong(at, received, Frame.ORDER);
        buffer.putLong(at + 8, limitSequence, Frame.ORDER);
        buffer.putLong(at + 16, limitBytes, Frame.ORDER);
    }

    /**
     * Why the CREDIT in {@code frame} is malformed (its body's length, or a negative or inconsistent value), or null.
     * Whether its values fit the stream is its sender's part to check.
     */
    public static String checkCredit(final Frame frame)
    {
        if (frame.headerLength() != CREDIT_BODY || frame.segmentCount() != 0)
        {
            return "CREDIT with a " + frame.headerLength() + "-byte body and " + frame.segmentCount() +
                " segments (it has a " + CREDIT_BODY + "-byte body)";
        }
        final long received = received(frame);
        final long limit = limitSequence(frame);
        final long bytes = limitBytes(frame);
        if (received < 0 || limit < received || bytes < 0)
        {
            return "CREDIT with received " + received + ", limit " + limit + " and " + bytes + " bytes";
        }
        return null;
    }

    /** The highest sequence number up to which the credit's sender has every message of the direction. */
    public static long received(final Frame frame)
    {
        return body(frame).getLong(frame.headerOffset(), Frame.ORDER);
    }

    /** The highest sequence number the credit's sender takes now. */
    public static long limitSequence(final Frame frame)
    {
        return body(frame).getLong(frame.headerOffset() + 8, Frame.ORDER);
    }

    /** How many bytes of STREAM_DATA frames, counted from the direction's first, the credit's sender takes now. */
    public static long limitBytes(final Frame frame)
    {
        return body(frame).getLong(frame.headerOffset() + 16, Frame.ORDER);
    }

    private static DirectBuffer body(final Frame frame)
    {
        return frame.buffer();
    }
}
