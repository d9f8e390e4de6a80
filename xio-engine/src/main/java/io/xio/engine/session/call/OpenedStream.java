package io.xio.engine.session.call;

import io.xio.engine.ConnectionException;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.RequestCancelledException;
import io.xio.engine.StreamCall;
import io.xio.engine.StreamListener;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.CallContext;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.Status;

import java.util.function.LongConsumer;

/**
 * A stream as the side that opened it holds it: its open (a REQUEST with the stream flag) is written on its lane with
 * the deadline, if any, and this side's window granted right after; the acceptor's first credit says it took the
 * stream, and gives the open's id back to the session ({@code finished}), so that a long stream holds no place among
 * the calls in flight. It ends with the acceptor's end (after every message before it), a refusal of the open, a
 * cancel from either side, the deadline or the session's end. Owned by its lane's context thread but for the
 * application's methods.
 */
final class OpenedStream extends LaneStream implements StreamCall
{
    private final Outbound open;
    private final long deadline;
    private final boolean hasDeadline;
    /** Gives the open's id (and its place in flight) back to the session. */
    private final LongConsumer finished;
    private boolean openWritten;
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

    /** The context thread: the lane took the stream; its open goes out. */
    void begin()
    {
        if (hasDeadline)
        {
            timer = streams.loop().schedule(deadline, this::expired);
        }
        writeOpen();
    }

    private void writeOpen()
    {
        final long remaining = hasDeadline ? Math.max(1, deadline - streams.loop().nanoTime()) :
            CallContext.NO_DEADLINE;
        if (!streams.sendOpen(this, open, remaining))
        {
            waitForRoom();
            return;
        }
        openWritten = true;
        receiver.grantWindow();
    }

    @Override
    void resumeOpen()
    {
        if (!openWritten && state() == StreamState.OPENING)
        {
            writeOpen();
        }
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
        failed(InboundResponses.remoteFailure(frame, frame.status(), streams.target()));
    }

    @Override
    public void halfClose()
    {
        sender.end(Status.OK, Outbound.empty());
    }

    @Override
    void endArrived(final Frame frame, final Slab slab)
    {
        idDone();
        receiver.acknowledgeEnd();
        final int status = frame.status();
        if (status == Status.OK)
        {
            trailers = (frame.flags() & FrameFlags.CONTEXT) == 0 ? Metadata.EMPTY :
                CallContext.decode(frame.buffer(), frame.contextOffset());
            closeWire(); // the messages before the end still go to the listener, then the completion
            return;
        }
        failed(status == Status.CANCELLED ? new RequestCancelledException("stream " + id + " on " +
            streams.describe() + " was cancelled by the peer") :
            InboundResponses.remoteFailure(frame, status, streams.target()));
    }

    @Override
    void deliverEnd()
    {
        completed(trailers == null ? Metadata.EMPTY : trailers);
    }

    @Override
    void endWritten()
    {
        // A half-close: the acceptor may go on sending.
    }

    @Override
    void cancelled()
    {
        stop(new RequestCancelledException("stream " + id + " on " + streams.describe() + " was cancelled"));
    }

    @Override
    void expired()
    {
        timer = NO_TIMER;
        stop(new XioTimeoutException("stream " + id + " on " + streams.describe() + " reached its deadline; the " +
            "peer was told to cancel it"));
    }

    /** Stops the stream here, and at the acceptor (a CANCEL) once the open went out. */
    private void stop(final Throwable why)
    {
        if (state() == StreamState.DONE)
        {
            return;
        }
        if (openWritten)
        {
            streams.sendCancel(id);
        }
        idDone();
        failed(why);
    }

    @Override
    void connectionLost(final Throwable cause)
    {
        idDone();
        failed(new ConnectionException("the connection of stream " + id + " on " + streams.describe() +
            " was lost: " + cause.getMessage(), cause));
    }

    /** The open's id is the session's again, and its message the application's. */
    private void idDone()
    {
        if (!idFinished)
        {
            idFinished = true;
            finished.accept(id);
            try
            {
                open.released();
            }
            catch (final RuntimeException ex)
            {
                streams.log("releasing the open of stream " + id, ex);
            }
        }
    }
}
