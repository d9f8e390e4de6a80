package io.xio.engine.session.call;

import io.xio.engine.ConnectionException;
import io.xio.engine.InboundStream;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.RequestCancelledException;
import io.xio.engine.StreamListener;
import io.xio.engine.XioException;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.protocol.Status;
import io.xio.engine.session.Messages;
import io.xio.engine.session.admission.CallAdmission;
import io.xio.engine.session.admission.ByteBudget;
import io.xio.engine.session.admission.StreamAdmission;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stream as the side that accepted it holds it: granted this side's window at once, handed to the handler, started
 * with a listener when the handler says so; it ends when the handler completes or fails it (after what it offered),
 * when the opener cancels it, at its deadline, or with the session. Its end goes to the opener as a STREAM_DATA with
 * the end flag and a status. Owned by its lane's context thread but for the application's methods.
 */
final class AcceptedStream extends LaneStream implements InboundStream
{
    private final Message open;
    private final long deadline;
    private final boolean hasDeadline;
    /**
     * Where the stream is counted among the streams its peer opened on one connection, and from one host: the
     * connection it began or last resumed on. The owner's.
     */
    private ByteBudget connectionStreams;
    private String host;
    private final AtomicBoolean started = new AtomicBoolean();
    /** After a connection loss, until the opener resumes the stream: nothing is written. */
    private boolean dormant;
    /** The count of the latest re-sent open that resumed the stream (0: the first open); any lane reads it. */
    private final AtomicInteger lastResume = new AtomicInteger();
    /** The connection the stream last began or resumed on: it resumes at most once on each. The owner's. */
    private Object resumedOn;

    /** @param remaining the time the opener said it has, in nanoseconds; 0 for none */
    AcceptedStream(final LaneStreams streams, final long id, final int flags, final Message open,
        final long remaining, final ByteBudget connectionStreams, final String host)
    {
        super(streams, id, flags, StreamState.OPEN, null);
        this.host = host;
        this.open = open;
        this.hasDeadline = remaining > 0;
        this.deadline = streams.loop().nanoTime() + remaining;
        this.dormant = false;
        this.connectionStreams = connectionStreams;
    }

    /** The owner's thread: the stream was taken: its deadline runs and the opener gets this side's window. */
    void begin()
    {
        if (hasDeadline)
        {
            deadline(deadline);
        }
        resumedOn = streams().connectionIdentity();
        receiver.grantWindow();
    }

    /**
     * Whether a re-sent open with resume count {@code count} (16 bits, counting on from 1) is newer than every one
     * that resumed the stream before; it is then the latest. Any thread.
     */
    boolean newerResume(final int count)
    {
        while (true)
        {
            final int last = lastResume.get();
            if ((short)(count - last) <= 0)
            {
                return false;
            }
            if (lastResume.compareAndSet(last, count))
            {
                return true;
            }
        }
    }

    /** Whether the stream began or resumed on {@code connection} already. The owner's thread. */
    boolean resumedOn(final Object connection)
    {
        return resumedOn == connection;
    }

    @Override
    boolean dormant()
    {
        return dormant;
    }

    /** The connection was lost: nothing is written until the opener resumes the stream (its open, sent again). */
    void sleep()
    {
        dormant = true;
    }

    /** The opener sent its open again here: what it has not acknowledged is written again, then the rest. */
    @Override
    void resume()
    {
        dormant = false;
        if (state() == StreamState.DONE)
        {
            return;
        }
        resumedOn = streams().connectionIdentity();
        countHere();
        receiver.resume();
        sender.replay();
        sender.flush();
        if (state() == StreamState.ENDED)
        {
            awaitAcknowledgement(); // its end was written again
        }
    }

    /**
     * Counts the stream among the streams its peer opened on the connection it resumed on, and that connection's
     * host: the connection it left no longer carries it.
     */
    private void countHere()
    {
        final ByteBudget here = streams().peerStreams();
        if (here != null && here != connectionStreams)
        {
            final String hereHost = streams().peerHost();
            streams().admission().moved(connectionStreams, host, here, hereHost);
            connectionStreams = here;
            host = hereHost;
        }
    }

    @Override
    public Message open()
    {
        return open;
    }

    @Override
    public void start(final StreamListener listener)
    {
        java.util.Objects.requireNonNull(listener, "listener");
        if (!started.compareAndSet(false, true))
        {
            throw new IllegalStateException("stream " + id + " was started already");
        }
        listen(listener);
    }

    @Override
    public void complete(final Metadata trailers)
    {
        final Outbound end = Outbound.empty().metadata(trailers == null || trailers.isEmpty() ? null : trailers);
        Messages.sealMetadata(end);
        final String oversize = CallAdmission.streamOversize(end, streams().sendLimits());
        if (oversize != null)
        {
            sender.end(Status.APPLICATION_ERROR, error(XioException.class.getName(), "the stream's trailers " +
                "exceed the limits the peer takes"));
            throw new XioException(oversize + " (the trailers of stream " + id + "); it failed instead");
        }
        sender.end(Status.OK, end);
    }

    @Override
    public void fail(final String type, final String message)
    {
        final Outbound end = error(type, message);
        if (CallAdmission.streamOversize(end, streams().sendLimits()) != null)
        {
            // The peer would close the connection over it: it hears that the stream failed, and no more.
            sender.end(Status.APPLICATION_ERROR, error(XioException.class.getName(), "the stream failed with an " +
                "error larger than the peer takes"));
            return;
        }
        sender.end(Status.APPLICATION_ERROR, end);
    }

    private static Outbound error(final String type, final String message)
    {
        return Outbound.of(ByteBuffer.wrap((type + "\n" + message).getBytes(StandardCharsets.UTF_8)));
    }

    /** The handler threw: the stream fails with it, unless the handler ended it already. The owner's thread. */
    void handlerFailed(final Throwable ex)
    {
        if (state() != StreamState.OPEN || sender.ended())
        {
            return;
        }
        final Outbound end = error(ex.getClass().getName(), ex.getMessage() == null ? "" : ex.getMessage());
        sender.endNow(Status.APPLICATION_ERROR, CallAdmission.streamOversize(end, streams().sendLimits()) == null ?
            end : error(XioException.class.getName(), "the stream failed"));
        ended();
        failed(ex);
    }

    /** What the stream took of the limits is given back. The owner's thread. */
    void release(final StreamAdmission admission)
    {
        admission.release(connectionStreams, host);
    }

    /** The opener acknowledged this ended stream's end on another lane. The owner's thread. */
    void acknowledgedElsewhere(final long received)
    {
        if (!owns())
        {
            streams().loop().execute(() -> acknowledgedElsewhere(received));
            return;
        }
        if (state() == StreamState.ENDED && received >= sender.lastWritten())
        {
            closeWire();
        }
    }

    @Override
    public boolean hasDeadline()
    {
        return hasDeadline;
    }

    @Override
    public long deadline()
    {
        return deadline;
    }

    @Override
    public Duration timeRemaining()
    {
        return hasDeadline ? Duration.ofNanos(Math.max(0, deadline - streams().loop().nanoTime())) : null;
    }

    @Override
    void endArrived(final StreamArrival end)
    {
        receiver.acknowledgeEnd(); // the opener half-closed: its listener hears it after the messages before it
    }

    @Override
    void deliverEnd()
    {
        final StreamListener listener = listener();
        try
        {
            listener.onHalfClose();
        }
        catch (final RuntimeException ex)
        {
            listenerFailed(ex);
        }
    }

    @Override
    void endWritten()
    {
        // The end stays until the opener acknowledges it, to be written again after a loss; the rest goes now.
        ended();
        over();
        receiver.drop(); // the opener's messages not taken yet: nobody will take them now
        completed(Metadata.EMPTY);
    }

    @Override
    void endAcknowledged()
    {
        closeWire();
    }

    @Override
    void cancelled()
    {
        endWith(Status.CANCELLED, new RequestCancelledException("stream " + id + " on " + streams().describe() +
            " was cancelled by this side"));
    }

    @Override
    void expired()
    {
        if (state() == StreamState.ENDED)
        {
            // The end waited longer than a well-behaved opener takes: this one forgot the stream, or never
            // acknowledges. Forgotten, so that it cannot keep the stream's place in the limits.
            closeWire();
            return;
        }
        endWith(Status.DEADLINE_EXCEEDED, new XioTimeoutException("stream " + id + " on " + streams().describe() +
            " reached its deadline"));
    }

    /**
     * The opener cancelled the stream (a CANCEL covering its id): it ends here at once. The opener hears a CANCELLED
     * end too, which matters after a range cancel; it acknowledges nothing it has forgotten, so none is awaited.
     */
    void peerCancelled()
    {
        if (state() != StreamState.OPEN)
        {
            if (state() == StreamState.ENDED)
            {
                closeWire(); // its end was written: the opener will not acknowledge it now
            }
            return;
        }
        sender.endNow(Status.CANCELLED, Outbound.empty());
        failed(new RequestCancelledException("stream " + id + " on " + streams().describe() +
            " was cancelled by the peer"));
    }

    /** {@link #peerCancelled} on the owner's thread, wherever the CANCEL arrived. Any thread. */
    void peerCancelledHere()
    {
        if (!owns())
        {
            streams().loop().execute(this::peerCancelledHere);
            return;
        }
        peerCancelled();
    }

    /** Ends the stream now, ahead of what waits: the opener gets {@code status}, the listener {@code why}. */
    private void endWith(final int status, final Throwable why)
    {
        if (state() != StreamState.OPEN)
        {
            return;
        }
        sender.endNow(status, Outbound.empty());
        ended();
        failed(why);
    }

    /**
     * Its end is written (or will be, as soon as there is room): the stream is kept until the opener acknowledges the
     * end, to write it again after a loss, but no longer than a well-behaved opener can take to.
     */
    private void ended()
    {
        moveTo(StreamState.ENDED);
        awaitAcknowledgement();
    }

    private void awaitAcknowledgement()
    {
        timerAt(streams().loop().nanoTime() + streams().endWaitNanos());
    }

    @Override
    void connectionLost(final Throwable cause)
    {
        closeWire();
        failed(new ConnectionException("the connection of stream " + id + " on " + streams().describe() +
            " was lost: " + cause.getMessage(), cause));
    }
}
