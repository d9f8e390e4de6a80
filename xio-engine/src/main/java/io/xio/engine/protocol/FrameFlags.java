package io.xio.engine.protocol;

/** Bits of the frame header's flags field. Thread-safe (constants only). */
public final class FrameFlags
{
    /** The sender wants a {@link FrameType#RECEIPT} once the receiver accepted the message. */
    public static final int RECEIPT_REQUESTED = 1;
    /** A one-way message: no response follows. */
    public static final int ONE_WAY = 1 << 1;
    /** A request sent again after a connection failure; the receiver deduplicates it. */
    public static final int RETRANSMIT = 1 << 2;
    /** The message (and its answers) belong to the id space of the side that accepted the session. */
    public static final int FROM_ACCEPTOR = 1 << 3;
    /**
     * On a RESPONSE: its data segments were written by the sender straight into the output region the request's
     * {@link FrameType#DATA_DESCRIPTOR} described; the frame carries their lengths but not their bytes.
     */
    public static final int DATA_WRITTEN = 1 << 4;
    /**
     * On a REQUEST or RESPONSE: the application-header area starts with a call-context block (deadline, metadata;
     * {@link CallContext}), which its {@code headerLength} counts.
     */
    public static final int CONTEXT = 1 << 5;
    /**
     * On a RESPONSE: the responder keeps this response for a retransmit until the requester acknowledges it with a
     * {@link FrameType#RESPONSE_ACK}.
     */
    public static final int ACK_REQUESTED = 1 << 6;
    /**
     * On a REQUEST or RESPONSE over shm: the data segments lie in a region of shared memory the sender announced on
     * the connection; the frame's data area holds a reference ({@link #SHARED_BODY_LENGTH}: i32 region id, i32 zero,
     * i64 release token, then an i64 offset per segment) instead of their bytes. Other transports refuse it.
     */
    public static final int DATA_SHARED = 1 << 7;
    /** On a REQUEST: it opens a stream ({@link FrameType#STREAM_DATA}) whose id is the request's. */
    public static final int STREAM = 1 << 8;
    /**
     * On a STREAM_DATA: its sender will send no more messages on the stream. From the side that opened the stream it
     * ends that direction only (a half-close); from the side that accepted it, it ends the stream with the frame's
     * status (and trailers, in its call context).
     */
    public static final int END = 1 << 9;
    /** Bytes of a {@link #DATA_SHARED} reference before its per-segment offsets. */
    public static final int SHARED_BODY_LENGTH = 16;

    private FrameFlags()
    {
    }
}
