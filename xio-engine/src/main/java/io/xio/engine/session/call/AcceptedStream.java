package io.xio.engine.session.call;

import io.xio.engine.ConnectionException;
import io.xio.engine.InboundStream;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.RequestCancelledException;
import io.xio.engine.StreamListener;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.Status;
import io.xio.engine.session.admission.ByteBudget;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

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
    /** Where the stream is counted among the streams its peer opened on one connection. */
    final ByteBudget connectionStreams;
    private final AtomicBoolean started = new AtomicBoolean();

    /** @param remaining the time the opener said it has, in nanoseconds; 0 for none */
    AcceptedStream(final LaneStreams streams, final long id, final int flags, final Message open,
        final long remaining, final ByteBudget connectionStreams)
    {
        super(streams, id, flags, StreamState.OPEN, null);
        this.open = open;
        this.hasDeadline = remaining > 0;
        this.deadline = streams.loop().nanoTime() + remaining;
        this.connectionStreams = connectionStreams;
    }

    /** The context thread: the stream was taken: its deadline runs and the opener gets this side's window. */
    void begin()
    {
        if (hasDeadline)
        {
            timer = streams.loop().schedule(deadline, this::expired);
        }
        receiver.grantWindow();
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
        sender.end(Status.OK, Outbound.empty().metadata(trailers == null || trailers.isEmpty() ? null : trailers));
    }

    @Override
    public void fail(final String type, final String message)
    {
        sender.end(Status.APPLICATION_ERROR, Outbound.of(ByteBuffer.wrap((type + "\n" + message)
            .getBytes(StandardCharsets.UTF_8))));
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
        return hasDeadline ? Duration.ofNanos(Math.max(0, deadline - streams.loop().nanoTime())) : null;
    }

    @Override
    void endArrived(final Frame frame, final Slab slab)
    {
        // The opener half-closed: its listener hears it after the messages before it.
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
        closeWire();
        receiver.drop(); // the opener's messages not taken yet: nobody will take them now
        completed(null);
    }

    @Override
    void cancelled()
    {
        endWith(Status.CANCELLED, new RequestCancelledException("stream " + id + " on " + streams.describe() +
            " was cancelled by this side"));
    }

    @Override
    void expired()
    {
        timer = NO_TIMER;
        endWith(Status.DEADLINE_EXCEEDED, new XioTimeoutException("stream " + id + " on " + streams.describe() +
            " reached its deadline"));
    }

    /** The opener cancelled the stream (a CANCEL covering its id). */
    void peerCancelled()
    {
        endWith(Status.CANCELLED, new RequestCancelledException("stream " + id + " on " + streams.describe() +
            " was cancelled by the peer"));
    }

    /** Ends the stream now, ahead of what waits: the opener gets {@code status}, the listener {@code why}. */
    private void endWith(final int status, final Throwable why)
    {
        if (state() == StreamState.DONE)
        {
            return;
        }
        sender.endNow(status, Outbound.empty());
        failed(why);
    }

    @Override
    void connectionLost(final Throwable cause)
    {
        failed(new ConnectionException("the connection of stream " + id + " on " + streams.describe() +
            " was lost: " + cause.getMessage(), cause));
    }
}
