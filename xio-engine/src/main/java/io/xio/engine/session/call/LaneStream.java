package io.xio.engine.session.call;

import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.StreamListener;
import io.xio.engine.XioStream;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;
import io.xio.engine.session.connection.StreamOutput;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stream as one side holds it, on the lane it lives on: its {@link StreamState}, its sending and receiving
 * directions, its deadline timer and its listener, which hears everything on the lane's context thread and at most
 * one last signal. The opener's side ({@link OpenedStream}) and the acceptor's ({@link AcceptedStream}) differ in how
 * the stream starts and ends. The application's methods ({@link XioStream}) may be called from any thread; the rest
 * runs on the lane's context thread.
 */
abstract class LaneStream implements XioStream
{
    private static final Logger LOG = LoggerFactory.getLogger(LaneStream.class);
    static final long NO_TIMER = -1;

    final LaneStreams streams;
    final long id;
    /** The {@code FROM_ACCEPTOR} bit of the opener's id space: every frame of the stream carries it. */
    final int flags;
    final StreamSender sender;
    final StreamReceiver receiver;
    private volatile StreamListener listener;
    private StreamState state;
    /** Over for the application: offers fail, cancels do nothing. */
    private volatile boolean over;
    /** The listener had its last signal (or will have none): nothing more is delivered. */
    private volatile boolean finished;
    /** A last signal that came before the listener (an acceptor's, before its handler started the stream). */
    private Throwable pendingFailure;
    long timer = NO_TIMER;
    private boolean waitingForRoom;
    private final Runnable cancelTask = this::cancelled;

    LaneStream(final LaneStreams streams, final long id, final int flags, final StreamState initial,
        final StreamListener listener)
    {
        this.streams = streams;
        this.id = id;
        this.flags = flags;
        this.state = initial;
        this.listener = listener;
        this.sender = new StreamSender(this, streams.limits().windowMessages());
        this.receiver = new StreamReceiver(this, streams.limits().windowMessages(), streams.limits().windowBytes(),
            streams.leaks());
    }

    // ---- the application's, any thread ----

    @Override
    public long streamId()
    {
        return id;
    }

    @Override
    public Session session()
    {
        return streams.api();
    }

    @Override
    public boolean offer(final Outbound message)
    {
        return sender.offer(message, streams.sendLimits());
    }

    @Override
    public boolean isReady()
    {
        return !over && sender.ready();
    }

    @Override
    public void request(final long count)
    {
        receiver.request(count);
    }

    @Override
    public void cancel()
    {
        if (!over)
        {
            runOnContext(cancelTask);
        }
    }

    @Override
    public boolean isDone()
    {
        return over;
    }

    /** The listener, set once (an acceptor's by its start). */
    void listen(final StreamListener value)
    {
        listener = value;
        runOnContext(this::started);
    }

    private void started()
    {
        if (pendingFailure != null)
        {
            final Throwable failure = pendingFailure;
            pendingFailure = null;
            signalError(failure);
            return;
        }
        receiver.deliver();
    }

    // ---- the context thread's ----

    boolean onContextThread()
    {
        return streams.loop().inContextThread();
    }

    void execute(final Runnable task)
    {
        streams.loop().execute(task);
    }

    void runOnContext(final Runnable task)
    {
        if (onContextThread())
        {
            task.run();
        }
        else
        {
            execute(task);
        }
    }

    StreamState state()
    {
        return state;
    }

    void moveTo(final StreamState next)
    {
        if (!state.canMoveTo(next))
        {
            throw new IllegalStateException("stream " + id + " cannot go from " + state + " to " + next);
        }
        state = next;
    }

    long sessionId()
    {
        return streams.sessionId();
    }

    /** The connection's stream output while the lane is up, else null. */
    StreamOutput output()
    {
        return streams.output();
    }

    boolean writable()
    {
        return streams.writable();
    }

    boolean inlines(final Outbound message)
    {
        final StreamOutput output = output();
        return output != null && output.inlines(StreamSender.frameLength(message));
    }

    /** The sending thread offered or ended: the context thread writes it (now, when that is this thread). */
    void flushSoon()
    {
        if (onContextThread())
        {
            sender.flush();
        }
        else if (sender.scheduleFlush())
        {
            execute(sender.flushTask());
        }
    }

    /** Something could not be written for lack of room: the lane calls {@link #resume} when there is. */
    void waitForRoom()
    {
        if (!waitingForRoom)
        {
            waitingForRoom = true;
            streams.waitForRoom(this);
        }
    }

    /** The connection has room again. */
    void resume()
    {
        waitingForRoom = false;
        if (state != StreamState.DONE)
        {
            resumeOpen();
            receiver.resume();
            sender.flush();
        }
    }

    /** An opener writes its open if it could not before; nothing for an acceptor. */
    void resumeOpen()
    {
    }

    boolean sendCredit(final long received, final long limitSequence, final long limitBytes)
    {
        final StreamOutput output = output();
        return output != null && output.sendCredit(flags, sessionId(), id, received, limitSequence, limitBytes);
    }

    boolean listening()
    {
        return listener != null;
    }

    /** Whether the listener had its last signal. */
    boolean isFinished()
    {
        return finished;
    }

    /** A credit for this side's direction. */
    void onCredit(final long received, final long limitSequence, final long limitBytes)
    {
        sender.onCredit(received, limitSequence, limitBytes);
    }

    /** The peer's end of its direction arrived (in order, after its last message). */
    abstract void endArrived(Frame frame, Slab slab);

    /** The peer's end goes to the listener, after every message before it. */
    abstract void deliverEnd();

    /** This side's end of its direction was written. */
    abstract void endWritten();

    /** The application cancelled the stream. */
    abstract void cancelled();

    /** The deadline passed. */
    abstract void expired();

    /** The lane's connection was lost, or the session closed. */
    abstract void connectionLost(Throwable cause);

    /**
     * The stream is over on the wire: nothing more is sent or taken for it, and its lane forgets it; what the
     * application has not been given yet stays for it.
     */
    void closeWire()
    {
        if (state == StreamState.DONE)
        {
            return;
        }
        moveTo(StreamState.DONE);
        over = true;
        if (timer != NO_TIMER)
        {
            streams.loop().cancelTimer(timer);
            timer = NO_TIMER;
        }
        sender.drop();
        streams.forget(this);
    }

    /** The stream failed: what is held goes, and the listener hears {@code failure} (now, or once it is set). */
    void failed(final Throwable failure)
    {
        closeWire();
        if (finished)
        {
            return;
        }
        receiver.drop();
        if (listener == null)
        {
            pendingFailure = failure;
            return;
        }
        signalError(failure);
    }

    private void signalError(final Throwable failure)
    {
        finished = true;
        streams.released(this);
        try
        {
            listener.onError(failure);
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("listener of stream {} on {} failed on its error", id, streams.describe(), ex);
        }
    }

    /** The stream completed: the opener's listener hears the acceptor's trailers; an acceptor's hears nothing. */
    void completed(final Metadata trailers)
    {
        if (finished)
        {
            return;
        }
        finished = true;
        streams.released(this);
        final StreamListener current = listener;
        if (trailers == null || current == null)
        {
            return;
        }
        try
        {
            current.onComplete(trailers);
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("listener of stream {} on {} failed on its completion", id, streams.describe(), ex);
        }
    }

    /** A message for the listener. */
    void deliver(final Message message)
    {
        try
        {
            listener.onMessage(message);
        }
        catch (final RuntimeException ex)
        {
            listenerFailed(ex);
        }
    }

    /** The sender has credit again after a failed offer. */
    void ready()
    {
        final StreamListener current = listener;
        if (current == null || finished)
        {
            return;
        }
        try
        {
            current.onReady();
        }
        catch (final RuntimeException ex)
        {
            listenerFailed(ex);
        }
    }

    StreamListener listener()
    {
        return listener;
    }

    /** A listener that threw: logged, and the stream is cancelled (the application cannot follow it any more). */
    void listenerFailed(final RuntimeException ex)
    {
        LOG.warn("listener of stream {} on {} failed; the stream is cancelled", id, streams.describe(), ex);
        cancelled();
    }
}
