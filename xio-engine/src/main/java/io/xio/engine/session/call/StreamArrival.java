package io.xio.engine.session.call;

import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.XioUri;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.CallContext;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.Status;
import io.xio.engine.protocol.StreamFrames;
import io.xio.engine.session.LeakTracker;
import io.xio.engine.session.Messages;

/**
 * One STREAM_DATA as its stream takes it, read out of the frame while the frame is at hand: its sequence number, the
 * bytes it counts against the credit, its message (retaining the receive buffer) or, for the end of the acceptor's
 * direction, the stream's outcome. Made on the thread that received the frame; taken on the stream's. Immutable.
 *
 * @param bytes what the message counts against the byte credit, however its data came (inline, shared, written)
 * @param message the message, or null for an end
 * @param status the end's status (the acceptor's end), else 0
 * @param trailers the acceptor's trailers with an OK end, else null
 * @param failure what a failed end of the acceptor tells the opener, else null
 * @param ackRequested the sender asked for an acknowledgement (its window is full)
 */
record StreamArrival(long sequence, boolean end, long bytes, Message message, int status, Metadata trailers,
    Throwable failure, boolean ackRequested)
{
    /** Reads the frame; {@code target} names the peer in failures. */
    static StreamArrival of(final Frame frame, final Slab slab, final LeakTracker leaks, final XioUri target)
    {
        final long sequence = StreamFrames.sequence(frame);
        final long bytes = bytes(frame);
        if ((frame.flags() & FrameFlags.END) == 0)
        {
            return new StreamArrival(sequence, false, bytes, Messages.of(slab, frame, leaks), 0, null, null,
                (frame.flags() & FrameFlags.ACK_REQUESTED) != 0);
        }
        final int status = frame.status();
        if (status == Status.OK)
        {
            final Metadata trailers = (frame.flags() & FrameFlags.CONTEXT) == 0 ? Metadata.EMPTY :
                CallContext.decode(frame.buffer(), frame.contextOffset());
            return new StreamArrival(sequence, true, bytes, null, status, trailers, null, false);
        }
        final Throwable failure;
        if (status == Status.CANCELLED)
        {
            failure = null;
        }
        else if (status == Status.DEADLINE_EXCEEDED)
        {
            failure = new XioTimeoutException("stream " + frame.requestId() + " reached its deadline at " + target);
        }
        else
        {
            failure = InboundResponses.remoteFailure(frame, status, target);
        }
        return new StreamArrival(sequence, true, bytes, null, status, null, failure, false);
    }

    /** What a STREAM_DATA's message counts against the byte credit: its header area and its data. */
    static long bytes(final Frame frame)
    {
        long bytes = frame.headerLength();
        for (int i = 0, n = frame.segmentCount(); i < n; i++)
        {
            bytes += frame.segmentLength(i);
        }
        return bytes;
    }

    /** The message goes unread: a duplicate, or a stream that is over. */
    void discard()
    {
        if (message != null)
        {
            message.close();
        }
    }
}
