package io.xio.engine.session.call;

import io.xio.engine.Limits;
import io.xio.engine.Outbound;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.XioException;
import io.xio.engine.protocol.CallContext;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameEncoder;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.StreamFrames;
import io.xio.engine.session.Messages;
import io.xio.engine.session.admission.CallAdmission;
import io.xio.engine.session.connection.StreamOutput;
import io.xio.engine.transport.SendCompletion;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One stream's sending direction: the messages the application offered, each taken only within the credit the
 * receiver granted ({@code limitSequence}, {@code limitBytes}, absolute) and within the sender's own window, queued
 * for the stream's context thread, which writes them in order with their sequence numbers, then the end of the
 * direction. A failed offer arms the ready signal ({@link LaneStream#ready}), which a credit or written messages fire.
 * The application's thread offers and ends (one at a time); everything else is the context thread's.
 */
final class StreamSender
{
    private final LaneStream stream;
    /** Room for the window's messages and the end. */
    private final ManyToOneConcurrentArrayQueue<Outbound> queue;
    /** Most messages offered and not yet written. */
    private final int window;
    private final Runnable flushTask = this::flush;
    private final AtomicBoolean flushScheduled = new AtomicBoolean();

    // The sending thread's.
    /** Sequence number of the last message offered (or of the end). */
    private volatile long offered;
    /** Bytes of the messages offered, as the receiver counts them ({@link #bytes}). */
    private volatile long offeredBytes;
    private boolean ended;
    /** The end's message (its status is {@link #endStatus}); set before it is queued, so the context thread sees it. */
    private Outbound endMessage;
    private int endStatus;

    // The context thread's, read by the sending thread.
    private volatile long written;
    private volatile long limitSequence;
    private volatile long limitBytes;
    private volatile boolean wantReady;
    /** The message the connection had no room for; written first when there is. */
    private Outbound stalled;
    private boolean endWritten;

    StreamSender(final LaneStream stream, final int window)
    {
        this.stream = stream;
        this.window = window;
        this.queue = new ManyToOneConcurrentArrayQueue<>(window + 1);
    }

    /** Bytes a message counts against a byte credit: its frame less the fixed header and the segment table. */
    static long bytes(final Outbound message)
    {
        return StreamFrames.SEQUENCE_LENGTH + CallContext.blockLength(CallContext.NO_DEADLINE, message.metadata()) +
            message.headerLength() + message.dataLength();
    }

    /**
     * The sending thread: whether an offer now would find credit; when not, the ready signal is armed (as a failed
     * offer arms it), so that a sender that asks before it offers hears when to go on.
     */
    boolean ready()
    {
        if (hasCredit())
        {
            return true;
        }
        wantReady = true;
        return hasCredit();
    }

    /** Whether a message may be offered now; a hint to any thread, the truth to the sending one. */
    boolean hasCredit()
    {
        final long next = offered + 1;
        return next <= limitSequence && offeredBytes < limitBytes && next - written <= window;
    }

    /** The sending thread: {@link io.xio.engine.XioStream#offer}. */
    boolean offer(final Outbound message, final Limits limits)
    {
        if (ended)
        {
            throw new IllegalStateException("stream " + stream.id + " was already ended by this side");
        }
        final String oversize = CallAdmission.oversize(message, StreamFrames.SEQUENCE_LENGTH, limits);
        if (oversize != null)
        {
            throw new XioException(oversize + " on stream " + stream.id);
        }
        if (stream.isDone())
        {
            return false;
        }
        if (!hasCredit())
        {
            wantReady = true; // then look again: a credit that came meanwhile saw the flag, or is seen here
            if (!hasCredit())
            {
                return false;
            }
            wantReady = false;
        }
        Messages.sealMetadata(message);
        offeredBytes += bytes(message);
        offered++;
        queue.offer(message); // room was checked: at most the window waits
        stream.flushSoon();
        return true;
    }

    /** The sending thread: ends this direction after what was offered, with {@code message} carrying the end. */
    void end(final int status, final Outbound message)
    {
        if (ended)
        {
            throw new IllegalStateException("stream " + stream.id + " was already ended by this side");
        }
        ended = true;
        if (stream.isDone())
        {
            return; // cancelled, failed or timed out meanwhile: its end went already
        }
        endStatus = status;
        endMessage = message;
        offered++;
        queue.offer(message); // the queue keeps a place for the end
        stream.flushSoon();
    }

    /** Whether the sending thread ended this direction. Any thread (a hint elsewhere). */
    boolean ended()
    {
        return ended;
    }

    Runnable flushTask()
    {
        return flushTask;
    }

    /** Whether a flush is due on the context thread; false when one is already on its way. */
    boolean scheduleFlush()
    {
        return flushScheduled.compareAndSet(false, true);
    }

    /**
     * The context thread: writes what waits, in order, as far as the connection takes it; what it cannot take waits
     * for {@link LaneStreams#drainWaiting}.
     */
    void flush()
    {
        flushScheduled.set(false);
        if (stream.isDone() || endWritten)
        {
            drop();
            return;
        }
        final StreamOutput output = stream.output();
        while (true)
        {
            final Outbound message = stalled != null ? stalled : queue.poll();
            if (message == null)
            {
                break;
            }
            if (output == null || !stream.writable())
            {
                stalled = message;
                stream.waitForRoom();
                return;
            }
            final boolean end = message == endMessage;
            final long sequence = written + 1;
            final SendCompletion release = end || stream.inlines(message) ? null : written -> message.released();
            final int result = output.sendStream(stream.flags | (end ? FrameFlags.END : 0), stream.sessionId(),
                stream.id, end ? endStatus : 0, sequence, message, release);
            if (result == FrameEncoder.NO_ROOM)
            {
                stalled = message;
                stream.waitForRoom();
                return;
            }
            stalled = null;
            written = sequence;
            if (result == FrameEncoder.COPIED)
            {
                message.released();
            }
            if (end)
            {
                endWritten = true;
                stream.endWritten();
                return;
            }
        }
        readyIfWanted();
    }

    /**
     * The context thread: the end goes now, ahead of what waits (dropped): a cancel, a deadline, a failure. False when
     * the connection has no room for it (the stream ends all the same; its receiver learns by other means).
     */
    boolean endNow(final int status, final Outbound message)
    {
        drop();
        final StreamOutput output = stream.output();
        if (endWritten || output == null)
        {
            return false;
        }
        endWritten = true;
        return output.sendStream(stream.flags | FrameFlags.END, stream.sessionId(), stream.id, status, written + 1,
            message, null) != FrameEncoder.NO_ROOM;
    }

    /**
     * The context thread: the receiver's credit. Values below earlier ones are stale and ignored; a receiver that
     * says it has messages never written is a violation.
     */
    void onCredit(final long received, final long sequence, final long bytes)
    {
        if (received > written)
        {
            throw new ProtocolViolationException("CREDIT for stream " + stream.id + " acknowledges message " +
                received + ", but " + written + " were sent");
        }
        if (sequence > limitSequence)
        {
            limitSequence = sequence;
        }
        if (bytes > limitBytes)
        {
            limitBytes = bytes;
        }
        readyIfWanted();
    }

    private void readyIfWanted()
    {
        if (wantReady && hasCredit())
        {
            wantReady = false;
            stream.ready();
        }
    }

    /** The context thread: what waits is dropped, its buffers released (the stream is over). */
    void drop()
    {
        if (stalled != null)
        {
            releaseQuietly(stalled);
            stalled = null;
        }
        Outbound message;
        while ((message = queue.poll()) != null)
        {
            releaseQuietly(message);
        }
    }

    private static void releaseQuietly(final Outbound message)
    {
        try
        {
            message.released();
        }
        catch (final RuntimeException ignored)
        {
            // The application's resource failed to close: nothing more to do for a message never sent.
        }
    }

    /** The frame length of {@code message} as a STREAM_DATA, for the link's choice of copying it. */
    static long frameLength(final Outbound message)
    {
        return Frame.frameLength((int)(bytes(message) - message.dataLength()), message.segmentCount(),
            message.dataLength());
    }
}
