package io.xio.engine.session.call;

import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.StreamListener;
import io.xio.engine.XioStream;
import io.xio.engine.session.connection.StreamOutput;

/**
 * A stream as one side holds it, on the lane that owns it now: its {@link StreamState}, its sending and receiving
 * directions, its deadline timer and its listener, which hears everything on the owning lane's context thread and at
 * most one last signal. After a connection loss it moves to another lane of the session ({@link #moveTo}) and
 * resumes there: the opener sends its open again and both sides write again what the other has not acknowledged. The
 * opener's side ({@link OpenedStream}) and the acceptor's ({@link AcceptedStream}) differ in how the stream starts,
 * resumes and ends. The application's methods ({@link XioStream}) may be called from any thread; the rest runs on the
 * owning lane's context thread.
 */
abstract class LaneStream implements XioStream
{
    static final long NO_TIMER = -1;

    /** The lane that owns the stream; it changes only on the owner's thread, when the stream moves. */
    private volatile LaneStreams streams;
    final long id;
    /** The {@code FROM_ACCEPTOR} bit of the opener's id space: every frame of the stream carries it. */
    final int flags;
    final StreamSender sender;
    final StreamReceiver receiver;
    /** What its listener hears. */
    final StreamSignals signals;
    /** Written by the owner only; read elsewhere as a hint. */
    private volatile StreamState state;
    /** Over for the application: offers fail, cancels do nothing. */
    private volatile boolean over;
    /** What it took of the limits was given back. */
    private boolean released;
    /** On its way to another lane: nothing is written until it arrives. */
    private volatile boolean moving;
    /** When the timer fires: the deadline, or once an acceptor's stream ended, when its end's wait runs out. */
    private long deadline;
    private boolean hasDeadline;
    private long timer = NO_TIMER;
    private boolean waitingForRoom;
    private final Runnable cancelTask = this::cancelNow;
    private final Runnable expiry = this::expiredNow;

    LaneStream(final LaneStreams streams, final long id, final int flags, final StreamState initial,
        final StreamListener listener)
    {
        this.streams = streams;
        this.id = id;
        this.flags = flags;
        this.state = initial;
        this.signals = new StreamSignals(this, listener);
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
        if (!signals.finished())
        {
            receiver.cancelling();
            runOnOwner(cancelTask);
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
        signals.listener(value);
        runOnOwner(this::started);
    }

    private void started()
    {
        if (!owns())
        {
            runOnOwner(this::started);
            return;
        }
        if (signals.signalWaiting())
        {
            return;
        }
        sender.readyIfWanted(); // an offer before the start may have armed it
        receiver.deliver();
    }

    private void cancelNow()
    {
        if (!owns())
        {
            runOnOwner(cancelTask);
            return;
        }
        cancelled();
    }

    // ---- where it lives ----

    LaneStreams streams()
    {
        return streams;
    }

    /** Whether the calling thread is the owning lane's, and the stream is not on its way elsewhere. */
    boolean owns()
    {
        return !moving && streams.loop().inContextThread();
    }

    /** Runs {@code task} on the owning lane's thread (now, when that is this one). Any thread. */
    void runOnOwner(final Runnable task)
    {
        if (owns())
        {
            task.run();
        }
        else
        {
            streams.loop().execute(task); // a task that finds the stream moved on follows it
        }
    }

    /**
     * The owner's thread: the stream leaves its lane for {@code target}'s, where {@code target} takes it
     * ({@link LaneStreams#adopt}); {@code resume} says whether it resumes there at once.
     */
    void moveTo(final LaneStreams target, final boolean resume)
    {
        final LaneStreams from = streams;
        from.release(this);
        cancelTimer();
        waitingForRoom = false;
        moving = true;
        streams = target;
        target.loop().execute(() -> target.moves.adopt(this, resume));
    }

    /**
     * Its opener resumed it on {@code target}'s lane: it moves there from its owner's thread and resumes (at once when
     * it is there already). Any thread.
     */
    void moveHere(final LaneStreams target)
    {
        if (!owns())
        {
            streams.loop().execute(() -> moveHere(target));
            return;
        }
        if (state == StreamState.DONE)
        {
            target.loop().execute(() -> target.moves.dropArriving(id));
            return;
        }
        if (streams == target)
        {
            resume();
            return;
        }
        moveTo(target, true);
    }

    /** On its way to {@code next} instead: the lane it was moving to closed. The way's thread. */
    void redirect(final LaneStreams next)
    {
        moving = true;
        streams = next;
    }

    /** The new owner's thread: the stream arrived ({@link LaneStreams#adopt}). */
    void arrived()
    {
        moving = false;
        if (hasDeadline && state != StreamState.DONE)
        {
            timer = streams.loop().schedule(deadline, expiry);
        }
    }

    /** The deadline, armed on the owning lane and moved with the stream. */
    void deadline(final long value)
    {
        deadline = value;
        hasDeadline = true;
        timer = streams.loop().schedule(value, expiry);
    }

    /**
     * The timer fires at {@code value} from now on, not at the deadline: an acceptor's ended stream waits for its
     * end's acknowledgement until then. It moves with the stream as the deadline does. The owner's thread.
     */
    void timerAt(final long value)
    {
        cancelTimer();
        deadline = value;
        hasDeadline = true;
        if (!moving)
        {
            timer = streams.loop().schedule(value, expiry); // else armed where it arrives
        }
    }

    private void expiredNow()
    {
        timer = NO_TIMER;
        if (owns() && state != StreamState.DONE)
        {
            expired();
        }
    }

    private void cancelTimer()
    {
        if (timer != NO_TIMER)
        {
            streams.loop().cancelTimer(timer);
            timer = NO_TIMER;
        }
    }

    // ---- the owner's thread ----

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

    /** Where the stream writes: its lane's connection while it is up and the stream may write, else null. */
    StreamOutput output()
    {
        return moving || dormant() ? null : streams.output();
    }

    /** Whether the stream waits for its opener to resume it before it writes (an acceptor's, after a loss). */
    boolean dormant()
    {
        return false;
    }

    boolean writable()
    {
        return streams.writable();
    }

    /** The sending thread offered or ended: the owner writes it (now, when that is this thread). */
    void flushSoon()
    {
        if (owns())
        {
            sender.flush();
        }
        else if (sender.scheduleFlush())
        {
            runOnOwner(sender.flushTask());
        }
    }

    /** Something could not be written for lack of room: the lane calls {@link #writeWaiting} when there is. */
    void waitForRoom()
    {
        if (!waitingForRoom)
        {
            waitingForRoom = true;
            streams.waitForRoom(this);
        }
    }

    /** The connection has room again. */
    void writeWaiting()
    {
        if (!owns())
        {
            return; // moved on: its new lane writes it
        }
        waitingForRoom = false;
        if (state == StreamState.DONE)
        {
            receiver.creditIfOwed(); // an end's acknowledgement that found no room
            return;
        }
        writeOpenIfDue();
        receiver.creditIfOwed();
        sender.flush();
    }

    /** The lane's connection went: the stream no longer waits in its queue for room. The owner's thread. */
    void noRoomToWaitFor()
    {
        waitingForRoom = false;
    }

    /** An opener writes its open if it could not before; nothing for an acceptor. */
    void writeOpenIfDue()
    {
    }

    /** The lane is up again, or the stream arrived on one that is, or its opener came back: it goes on there. */
    abstract void resume();

    boolean sendCredit(final long received, final long limitSequence, final long limitBytes)
    {
        final StreamOutput output = output();
        return output != null && output.sendCredit(flags, sessionId(), id, received, limitSequence, limitBytes);
    }

    boolean listening()
    {
        return signals.listening();
    }

    /** Whether the listener had its last signal. */
    boolean isFinished()
    {
        return signals.finished();
    }

    /** Whether nothing more is written for the stream. */
    boolean isFinishedSending()
    {
        return state == StreamState.DONE;
    }

    /** A credit for this side's direction. */
    void onCredit(final long received, final long limitSequence, final long limitBytes)
    {
        sender.onCredit(received, limitSequence, limitBytes);
    }

    /** The peer's end of its direction arrived (in order, after its last message). */
    abstract void endArrived(StreamArrival end);

    /** The peer's end goes to the listener, after every message before it. */
    abstract void deliverEnd();

    /** This side's end of its direction was written. */
    abstract void endWritten();

    /** The peer has this side's end: nothing of the stream needs keeping for it any more. */
    void endAcknowledged()
    {
    }

    /** The application cancelled the stream. */
    abstract void cancelled();

    /** The timer fired: the deadline passed (or an acceptor's end waited too long for its acknowledgement). */
    abstract void expired();

    /** The lane's connection was lost with no other to go on, or the session closed: the stream fails. */
    abstract void connectionLost(Throwable cause);

    /**
     * The stream is over on the wire: nothing more is sent or taken for it, and the session forgets it; what the
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
        cancelTimer();
        sender.dropAll();
        streams.forget(this);
        releaseIfDone();
    }

    /** Over for the application (offers fail), while the wire may still need it (an end to acknowledge). */
    void over()
    {
        over = true;
    }

    /**
     * The stream failed: what is held goes, what it took of the limits is given back (once over on the wire), and the
     * listener hears {@code failure}, now or once it is set.
     */
    void failed(final Throwable failure)
    {
        over = true;
        if (state != StreamState.ENDED)
        {
            closeWire();
        }
        if (!signals.finish())
        {
            return;
        }
        receiver.drop();
        releaseIfDone();
        signals.error(failure);
    }

    /**
     * The stream completed: the opener's listener hears the acceptor's trailers, an acceptor's that its own end was
     * written (now, or at its start if the handler has not started it yet).
     */
    void completed(final Metadata trailers)
    {
        if (signals.finish())
        {
            releaseIfDone();
            signals.complete(trailers);
        }
    }

    /** Once over on the wire and for the listener, what the stream took of the limits is free again. */
    private void releaseIfDone()
    {
        if (!released && signals.finished() && state == StreamState.DONE)
        {
            released = true;
            streams.released(this);
        }
    }

    /** A message for the listener. */
    void deliver(final Message message)
    {
        signals.message(message);
    }

    /** The sender has credit again after a failed offer. */
    void ready()
    {
        signals.ready();
    }

    StreamListener listener()
    {
        return signals.listener();
    }

    /** A listener that threw: logged, and the stream is cancelled. */
    void listenerFailed(final RuntimeException ex)
    {
        signals.failedOn(ex);
    }
}
