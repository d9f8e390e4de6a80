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
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One stream's sending direction: the messages the application offered, each taken only within the credit the
 * receiver granted ({@code limitSequence}, {@code limitBytes}, absolute) and within the sender's own window of
 * unacknowledged messages, queued for the stream's context thread, which writes them in order with their sequence
 * numbers, then the end of the direction. What was written stays (the application's buffers, not copies) until the
 * receiver acknowledges it, so that after a connection loss it is written again, from the first unacknowledged, on
 * the connection the stream resumes on ({@link #replay}); the receiver drops what it had. The message that fills the
 * window asks for an acknowledgement ({@code ACK_REQUESTED}), since the receiver's window may be larger than this
 * one. A failed offer arms the ready signal ({@link LaneStream#ready}), which a credit or written messages fire. The
 * application's thread offers and ends (one at a time); everything else is the context thread's.
 */
final class StreamSender
{
    private final LaneStream stream;
    /** Room for the window's messages and the end. */
    private final ManyToOneConcurrentArrayQueue<Outbound> queue;
    /** Most messages offered and not yet acknowledged. */
    private final int window;
    /**
     * Written and not acknowledged, by sequence number: {@code sent[seq & mask]}, an {@link Outbound}, or a
     * {@link LinkHold} for one a link referenced (written without a copy).
     */
    private final Object[] sent;
    private final int mask;
    private final Runnable flushTask = this::flush;
    private final AtomicBoolean flushScheduled = new AtomicBoolean();

    // The sending thread's.
    /** Sequence number of the last message offered (or of the end). */
    private volatile long offered;
    /** Bytes of the messages offered, as the receiver counts them ({@link #bytes}). */
    private volatile long offeredBytes;
    private boolean ended;
    /** The end's message (its status is {@link #endStatus}); set before it is queued, so the context thread sees it. */
    private volatile Outbound endMessage;
    private volatile int endStatus;

    // The context thread's, read by the sending thread.
    /** Highest sequence number written. */
    private volatile long written;
    /** Highest sequence number the receiver acknowledged. */
    private volatile long acknowledged;
    private volatile long limitSequence;
    private volatile long limitBytes;
    /** A failed offer (or a false isReady) armed the ready signal; whoever clears it first owns the outcome. */
    private final AtomicBoolean wantReady = new AtomicBoolean();
    /** Next sequence number to write again after a resume, up to {@link #written}; past it, none. */
    private long resend = Long.MAX_VALUE;
    /** The new message the connection had no room for; written first when there is. */
    private Outbound stalled;
    private boolean endWritten;
    /**
     * The end's sequence number and status once it has one (the context thread's): what makes a write an end, the
     * first time and on a resume, whatever the sending thread does meanwhile.
     */
    private long endSequence;
    private int endSequenceStatus;

    StreamSender(final LaneStream stream, final int window)
    {
        this.stream = stream;
        this.window = window;
        this.queue = new ManyToOneConcurrentArrayQueue<>(window + 1);
        final int capacity = Integer.highestOneBit(window + 1) << 1;
        this.sent = new Object[capacity];
        this.mask = capacity - 1;
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
        wantReady.set(true);
        // Credit that came meanwhile: keep it only if no ready signal was sent for it (one on its way says go on).
        return hasCredit() && wantReady.compareAndSet(true, false);
    }

    /** Whether a message may be offered now; a hint to any thread, the truth to the sending one. */
    boolean hasCredit()
    {
        final long next = offered + 1;
        return next <= limitSequence && offeredBytes < limitBytes && next - acknowledged <= window;
    }

    /** The sending thread: {@link io.xio.engine.XioStream#offer}. */
    boolean offer(final Outbound message, final Limits limits)
    {
        if (ended)
        {
            throw new IllegalStateException("stream " + stream.id + " was already ended by this side");
        }
        final String oversize = CallAdmission.streamOversize(message, limits);
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
            wantReady.set(true); // then look again: a credit that came meanwhile saw the flag, or is seen here
            if (!hasCredit() || !wantReady.compareAndSet(true, false))
            {
                return false; // no credit, or a ready signal is on its way: the listener offers again there
            }
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

    /** Highest sequence number written (the end's, once it was). */
    long lastWritten()
    {
        return written;
    }

    /** Whether this direction's end was written (it may still be written again after a resume). */
    boolean endWritten()
    {
        return endWritten;
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

    /** The context thread, after a resume: what was written and not acknowledged is written again first. */
    void replay()
    {
        resend = acknowledged + 1;
    }

    /**
     * The context thread: writes what waits, in order (messages to write again first, then new ones), as far as the
     * connection takes it; what it cannot take waits for {@link LaneStreams#drainWaiting}.
     */
    void flush()
    {
        flushScheduled.set(false);
        if (!stream.owns())
        {
            stream.runOnOwner(flushTask); // moved to another lane meanwhile
            return;
        }
        if (stream.isFinishedSending())
        {
            drop();
            return;
        }
        final StreamOutput output = stream.output();
        if (output == null)
        {
            return; // no connection to write on: a resume writes what waits
        }
        while (resend <= written)
        {
            final int at = (int)(resend & mask);
            final Object held = sent[at];
            final Outbound message = held instanceof LinkHold hold ? hold.message : (Outbound)held;
            if (!stream.writable() || !write(output, message, resend, at))
            {
                stream.waitForRoom();
                return;
            }
            resend++;
        }
        resend = Long.MAX_VALUE;
        while (!endWritten)
        {
            final Outbound message = stalled != null ? stalled : queue.poll();
            if (message == null)
            {
                break;
            }
            final long sequence = written + 1;
            final int at = (int)(sequence & mask);
            sent[at] = message;
            final boolean end = message == endMessage;
            if (end)
            {
                endSequence = sequence;
                endSequenceStatus = endStatus;
            }
            if (!stream.writable() || !write(output, message, sequence, at))
            {
                sent[at] = null;
                stalled = message;
                stream.waitForRoom();
                return;
            }
            stalled = null;
            written = sequence;
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
     * Writes one message; one the link references rather than copies is held at {@code sent[at]} until the link is done
     * with it, as well as until acknowledged.
     */
    private boolean write(final StreamOutput output, final Outbound message, final long sequence, final int at)
    {
        final boolean end = sequence == endSequence;
        // The message that fills this side's window asks to be acknowledged: a receiver whose own window is larger
        // grants again, and so acknowledges, only once its application took half of that, which could never come.
        final boolean fills = !end && sequence - acknowledged >= window;
        final int flags = stream.flags | (end ? FrameFlags.END : 0) | (fills ? FrameFlags.ACK_REQUESTED : 0);
        final int status = end ? endSequenceStatus : 0;
        if (output.inlines(frameLength(message)))
        {
            return output.sendStream(flags, stream.sessionId(), stream.id, status, sequence, message, null) !=
                FrameEncoder.NO_ROOM;
        }
        final LinkHold hold = sent[at] instanceof LinkHold held ? held : new LinkHold(message);
        hold.lent();
        final int result = output.sendStream(flags, stream.sessionId(), stream.id, status, sequence, message, hold);
        if (result != FrameEncoder.QUEUED)
        {
            hold.onSendComplete(false); // copied after all, or not written: the link holds nothing
        }
        sent[at] = hold;
        return result != FrameEncoder.NO_ROOM;
    }

    /**
     * The context thread: the end goes now, ahead of what waits (dropped): a cancel, a deadline, a failure. It is kept
     * as any written message, for a resume to write again until acknowledged.
     */
    void endNow(final int status, final Outbound message)
    {
        if (endWritten)
        {
            return;
        }
        drop();
        final long sequence = written + 1;
        final int at = (int)(sequence & mask);
        sent[at] = message;
        endSequence = sequence;
        endSequenceStatus = status;
        written = sequence;
        endWritten = true;
        final StreamOutput output = stream.output();
        if (output != null && resend > written - 1)
        {
            if (!write(output, message, sequence, at))
            {
                resend = sequence; // written again when there is room, or at the resume
                stream.waitForRoom();
            }
        }
    }

    /**
     * The context thread: the receiver's credit. Values below earlier ones are stale and ignored; a receiver that
     * says it has messages never written is a violation. What it acknowledges is let go.
     */
    void onCredit(final long received, final long sequence, final long bytes)
    {
        if (received > written)
        {
            throw new ProtocolViolationException("CREDIT for stream " + stream.id + " acknowledges message " +
                received + ", but " + written + " were sent");
        }
        for (long at = acknowledged + 1; at <= received; at++)
        {
            letGo((int)(at & mask));
        }
        if (received > acknowledged)
        {
            acknowledged = received;
        }
        if (sequence > limitSequence)
        {
            limitSequence = sequence;
        }
        if (bytes > limitBytes)
        {
            limitBytes = bytes;
        }
        if (endWritten && acknowledged == written)
        {
            stream.endAcknowledged();
        }
        readyIfWanted();
    }

    /** Fires the ready signal when it was armed and there is credit now; kept armed while nobody listens. */
    void readyIfWanted()
    {
        if (stream.listening() && wantReady.get() && hasCredit() && wantReady.compareAndSet(true, false))
        {
            stream.ready();
        }
    }

    /** The context thread: what waits to be written for the first time is dropped, its buffers released. */
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
            if (message != endMessage)
            {
                releaseQuietly(message);
            }
        }
    }

    /** The context thread: the stream is over: everything it holds is let go. */
    void dropAll()
    {
        drop();
        for (long at = acknowledged + 1; at <= written; at++)
        {
            letGo((int)(at & mask));
        }
        acknowledged = written;
    }

    /** The message at {@code sent[at]} is not needed any more: released, once no link reads it either. */
    private void letGo(final int at)
    {
        final Object held = sent[at];
        sent[at] = null;
        if (held instanceof LinkHold hold)
        {
            hold.letGo();
        }
        else if (held != null && held != endMessage)
        {
            releaseQuietly((Outbound)held);
        }
    }

    /**
     * A message a link references (it was written without a copy), perhaps more than once after resumes: released when
     * the stream lets it go and every link is done with it. The links tell on their own threads.
     */
    private static final class LinkHold implements SendCompletion
    {
        final Outbound message;
        private final AtomicInteger inLinks = new AtomicInteger();
        private volatile boolean letGo;
        private final AtomicBoolean released = new AtomicBoolean();

        LinkHold(final Outbound message)
        {
            this.message = message;
        }

        void lent()
        {
            inLinks.incrementAndGet();
        }

        @Override
        public void onSendComplete(final boolean written)
        {
            if (inLinks.decrementAndGet() == 0 && letGo)
            {
                release();
            }
        }

        void letGo()
        {
            letGo = true;
            if (inLinks.get() == 0)
            {
                release();
            }
        }

        private void release()
        {
            if (released.compareAndSet(false, true))
            {
                releaseQuietly(message);
            }
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
            // The application's resource failed to close: nothing more to do for a message xio is done with.
        }
    }

    /** The frame length of {@code message} as a STREAM_DATA, for the link's choice of copying it. */
    static long frameLength(final Outbound message)
    {
        return Frame.frameLength((int)(bytes(message) - message.dataLength()), message.segmentCount(),
            message.dataLength());
    }
}
