package io.xio.engine.session.call;

import io.xio.engine.ProtocolViolationException;
import io.xio.engine.StreamLimits;
import io.xio.engine.XioUri;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.StreamFrames;
import io.xio.engine.session.LeakTracker;

import java.util.ArrayDeque;

/**
 * The frames for one of the peer's streams on its way to a lane (its opener resumed it there, and it moves from the
 * lane that had it), held in order until it arrives and takes them. A well-behaved opener sends meanwhile what this
 * side's credit lets it: at most a window of messages written again and a window of new ones, and it starts each
 * only while the bytes it sent since the credit it knows are below this side's window, so that the messages held
 * stay within the window's bytes and one message. More breaks the protocol, before it is held. Owned by the lane's
 * context thread.
 */
final class ArrivingFrames
{
    private final ArrayDeque<Object> frames = new ArrayDeque<>();
    private final int maxFrames;
    private final long windowBytes;
    /** The bytes of the messages held, as the credit counts them. */
    private long bytes;

    ArrivingFrames(final StreamLimits limits)
    {
        this.maxFrames = 2 * limits.windowMessages() + 2;
        this.windowBytes = limits.windowBytes();
    }

    /** Holds a STREAM_DATA, read out of the frame now. */
    void hold(final Frame frame, final Slab slab, final LeakTracker leaks, final XioUri target)
    {
        checkCount(frame);
        final boolean end = (frame.flags() & FrameFlags.END) != 0;
        if (!end && bytes >= windowBytes)
        {
            throw violation(frame, "more than a window of " + windowBytes + " bytes");
        }
        final StreamArrival arrival = StreamArrival.of(frame, slab, leaks, target);
        bytes += end ? 0 : arrival.bytes();
        frames.add(arrival);
    }

    /** Holds a CREDIT's values: {@code received}, {@code limitSequence}, {@code limitBytes}. */
    void holdCredit(final Frame frame)
    {
        checkCount(frame);
        frames.add(new long[] {StreamFrames.received(frame), StreamFrames.limitSequence(frame),
            StreamFrames.limitBytes(frame)});
    }

    private void checkCount(final Frame frame)
    {
        if (frames.size() > maxFrames)
        {
            throw violation(frame, "more than two windows of frames");
        }
    }

    private static ProtocolViolationException violation(final Frame frame, final String what)
    {
        return new ProtocolViolationException(FrameType.name(frame.type()) + " for stream " + frame.requestId() + ": " +
            what + " while it moved to resume");
    }

    /** The next frame held, in order: a {@link StreamArrival}, or a CREDIT's values ({@link #holdCredit}); or null. */
    Object poll()
    {
        return frames.poll();
    }

    /** What is held goes, its messages unread. */
    void discard()
    {
        Object next;
        while ((next = frames.poll()) != null)
        {
            if (next instanceof StreamArrival arrival)
            {
                arrival.discard();
            }
        }
        bytes = 0;
    }
}
