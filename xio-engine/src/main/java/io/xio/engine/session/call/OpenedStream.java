package io.xio.engine.session.call;

import io.xio.engine.ConnectionException;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.RequestCancelledException;
import io.xio.engine.StreamCall;
import io.xio.engine.StreamListener;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.protocol.CallContext;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameEncoder;
import io.xio.engine.protocol.Status;
import io.xio.engine.session.connection.StreamOutput;
import io.xio.engine.transport.SendCompletion;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;

/**
 * A stream as the side that opened it holds it: its open (a REQUEST with the stream flag) is written on its lane with
 * the deadline, if any, and this side's window granted right after; the acceptor's first credit says it took the
 * stream, and gives the open's id back to the session ({@code finished}), so that a long stream holds no place among
 * the calls in flight. It ends with the acceptor's end (after every message before it), a refusal of the open, a
 * cancel from either side, the deadline or the session's end. Owned by its lane's context thread but for the
 * application's methods.
 */
final class OpenedStream extends LaneStream implements StreamCall, SendCompletion
{
    private final Outbound open;
    private final long deadline;
    private final boolean hasDeadline;
    /** Gives the open's id (and its place in flight) back to the session. */
    private final LongConsumer finished;
    private boolean openWritten;
    /** The acceptor's end arrived (OK): the stream waits only for the application to take what is held. */
    private boolean wireEnded;
    /** Re-sends of the open so far, counted on in 16 bits from 1: the acceptor takes only a newer one. */
    private int resumes;
    /** Links that reference the open's buffers (it was written without a copy); told on the links' threads. */
    private final AtomicInteger openInLinks = new AtomicInteger();
    private volatile boolean openLetGo;
    private final AtomicBoolean openReleased = new AtomicBoolean();
    /** The open is to be written (first, or again after a resume) before anything else of the stream. */
    private boolean openDue;
    private boolean idFinished;
    private Metadata trailers;

    /**
     * @param deadline when the stream times out, on the engine's clock; meaningful with {@code hasDeadline}
     * @param finished told the id once the stream no longer holds it
     */
    OpenedStream(final LaneStreams streams, final long id, final StreamListener listener, final Outbound open,
        final long deadline, final boolean hasDeadline, final LongConsumer finished)
    {
        super(streams, id, streams.mineFlag(), StreamState.OPENING, listener);
        this.open = open;
        this.deadline = deadline;
        this.hasDeadline = hasDeadline;
        this.finished = finished;
    }

    /** The owner's thread: the lane took the stream; its open goes out. */
    void begin()
    {
        if (hasDeadline)
        {
            deadline(deadline);
        }
        openDue = true;
        writeOpenIfDue();
    }

    /**
     * The open goes out (again, with RETRANSMIT, after a resume), then this side's credit and what the acceptor had
     * not acknowledged; nothing of the stream is written before it.
     */
    @Override
    void writeOpenIfDue()
    {
        if (!openDue || state() == StreamState.DONE)
        {
            return;
        }
        final long remaining = hasDeadline ? Math.max(1, deadline - streams().loop().nanoTime()) :
            CallContext.NO_DEADLINE;
        // Once the acceptor took the stream, a re-send only names it: its opening message is not needed again.
        final Outbound message = idFinished ? Outbound.empty() : open;
        final boolean referenced = !idFinished && !streams().inlines(StreamSender.frameLength(message));
        if (referenced)
        {
            openInLinks.incrementAndGet();
        }
        if (openWritten)
        {
            resumes = (resumes + 1) & 0xFFFF;
            resumes = resumes == 0 ? 1 : resumes;
        }
        final int result = streams().sendOpen(this, message, remaining, openWritten ? resumes : 0,
            referenced ? this : null);
        if (referenced && result != FrameEncoder.QUEUED)
        {
            onSendComplete(false); // copied after all, or not written: no link holds it
        }
        if (result == FrameEncoder.NO_ROOM)
        {
            waitForRoom();
            return;
        }
        openDue = false;
        if (!openWritten)
        {
            openWritten = true;
            receiver.grantWindow();
            return;
        }
        receiver.resume();
        sender.replay();
        sender.flush();
    }

    @Override
    StreamOutput output()
    {
        return openDue ? null : super.output();
    }

    /** Whether the acceptor's end arrived: nothing more of the stream goes on the wire. */
    boolean wireEnded()
    {
        return wireEnded;
    }

    @Override
    void resume()
    {
        if (state() == StreamState.DONE || wireEnded)
        {
            return; // over on the wire: what is held goes to the listener, the end's acknowledgement is owed
        }
        openDue = true;
        writeOpenIfDue();
    }

    @Override
    void onCredit(final long received, final long limitSequence, final long limitBytes)
    {
        if (state() == StreamState.OPENING)
        {
            moveTo(StreamState.OPEN); // the acceptor took the stream
            idDone();
        }
        super.onCredit(received, limitSequence, limitBytes);
    }

    /** The acceptor answered the open with a status: it did not take the stream. */
    void refused(final Frame frame)
    {
        idDone();
        failed(InboundResponses.remoteFailure(frame, frame.status(), streams().target()));
    }

    @Override
    public void halfClose()
    {
        sender.end(Status.OK, Outbound.empty());
    }

    @Override
    void endArrived(final StreamArrival end)
    {
        idDone();
        receiver.acknowledgeEnd();
        streams().moves.ended(id, end.sequence()); // said again on the next connection, in case this one goes now
        if (end.status() == Status.OK)
        {
            // The messages before the end still go to the listener, then the completion, then the stream is gone.
            trailers = end.trailers();
            wireEnded = true;
            over();
            sender.dropAll();
            return;
        }
        failed(end.failure() != null ? end.failure() : new RequestCancelledException("stream " + id + " on " +
            streams().describe() + " was cancelled by the peer"));
    }

    @Override
    void deliverEnd()
    {
        completed(trailers == null ? Metadata.EMPTY : trailers);
        closeWire();
    }

    @Override
    void endWritten()
    {
        // A half-close: the acceptor may go on sending.
    }

    @Override
    void cancelled()
    {
        stop(new RequestCancelledException("stream " + id + " on " + streams().describe() + " was cancelled"));
    }

    @Override
    void expired()
    {
        stop(new XioTimeoutException("stream " + id + " on " + streams().describe() + " reached its deadline; the " +
            "peer was told to cancel it"));
    }

    /** Stops the stream here, and at the acceptor (a CANCEL) once the open went out. */
    private void stop(final Throwable why)
    {
        if (state() == StreamState.DONE)
        {
            return;
        }
        if (openWritten && !wireEnded)
        {
            streams().sendCancel(id);
        }
        idDone();
        failed(why);
    }

    @Override
    void connectionLost(final Throwable cause)
    {
        idDone();
        failed(new ConnectionException("the connection of stream " + id + " on " + streams().describe() +
            " was lost: " + cause.getMessage(), cause));
    }

    /** The open's id is the session's again, and its message the application's once no link reads it. */
    private void idDone()
    {
        if (!idFinished)
        {
            idFinished = true;
            finished.accept(id);
            openLetGo = true;
            if (openInLinks.get() == 0)
            {
                releaseOpen();
            }
        }
    }

    /** A link is done with the open's buffers. The link's thread. */
    @Override
    public void onSendComplete(final boolean written)
    {
        if (openInLinks.decrementAndGet() == 0 && openLetGo)
        {
            releaseOpen();
        }
    }

    private void releaseOpen()
    {
        if (openReleased.compareAndSet(false, true))
        {
            try
            {
                open.released();
            }
            catch (final RuntimeException ex)
            {
                streams().log("releasing the open of stream " + id, ex);
            }
        }
    }
}
