package io.xio.engine.session.connection;

import io.xio.engine.Outbound;
import io.xio.engine.transport.SendCompletion;

/**
 * What a stream writes on its connection: its messages and the end of its direction ({@code STREAM_DATA}), and the
 * credit it grants ({@code CREDIT}), held to the limits on what may wait unsent for the peer as every frame is.
 * Owned by the connection's context thread.
 */
public interface StreamOutput
{
    /**
     * Encodes a STREAM_DATA frame with sequence number {@code sequence}: {@code FrameEncoder.NO_ROOM} (nothing
     * written), {@code QUEUED} (the link references the message's buffers until it tells {@code completion}) or
     * {@code COPIED} (the buffers are free now).
     */
    int sendStream(int flags, long sessionId, long streamId, int status, long sequence, Outbound message,
        SendCompletion completion);

    /** Encodes a CREDIT; false when not written (no room, or closed). */
    boolean sendCredit(int flags, long sessionId, long streamId, long received, long limitSequence, long limitBytes);

    /** Whether a frame of {@code frameLength} bytes is copied whole into the link, so the sender's buffers are free. */
    boolean inlines(long frameLength);
}
