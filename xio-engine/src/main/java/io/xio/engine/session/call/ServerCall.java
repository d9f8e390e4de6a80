package io.xio.engine.session.call;

import io.xio.engine.InboundRequest;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.Status;
import io.xio.engine.session.LeakTracker;
import io.xio.engine.session.Messages;
import io.xio.engine.session.connection.Connection;
import io.xio.engine.transport.SendCompletion;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A request being executed by this side's handler. Answered once from any thread; the answer is recorded in
 * the session's deduplication window and sent on the lane that received the request, or on another lane of
 * the session when that one's connection is gone.
 *
 * <p>A service registered with {@link io.xio.engine.RequestReuse#AFTER_ANSWER} gets its calls (and their
 * messages) from the lane's pool: a call goes back once its handler returned, its answer left (or was dropped)
 * and its message was closed, whichever comes last. Its state word carries the request id, so a cancel aimed
 * at an earlier use of the object cannot hit the current one; and a call is cancellable only once the
 * deduplication window made it the one executing its id ({@link #claimed}), so a call taken for a retransmit
 * that the window answers otherwise, and handed straight back, never looks executing.
 */
public final class ServerCall implements InboundRequest, Runnable, SendCompletion
{
    // States in the low bits of the word, the request id above them. A cancel passes through CANCELLING, during
    // which a late answer is only noted: the call cannot be reused while the cancel still works on it. TAKEN: made
    // ready for an id the window has not given it (yet); neither answerable nor cancellable.
    private static final int EXECUTING = 0;
    private static final int ANSWERED = 1;
    private static final int CANCELLING = 2;
    private static final int CANCELLED = 3;
    private static final int CANCELLING_ANSWERED = 4;
    private static final int CANCELLED_ANSWERED = 5;
    private static final int TAKEN = 6;
    private static final int STATE_BITS = 3;
    private static final long STATE_MASK = (1 << STATE_BITS) - 1;
    /** What must let go before a pooled call is reused: the handler's run, the answer, the message. */
    private static final int HOLDS = 3;
    private static final Runnable RAN = () -> { };
    private static final long NEAR_DEADLINE = 1_000_000;
    private static final VarHandle WORD;
    private static final VarHandle ON_CANCEL;
    private static final VarHandle HELD;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            WORD = lookup.findVarHandle(ServerCall.class, "word", long.class);
            ON_CANCEL = lookup.findVarHandle(ServerCall.class, "onCancel", Runnable.class);
            HELD = lookup.findVarHandle(ServerCall.class, "held", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    final Lane lane;
    private final CallPool pool;
    private final Runnable messageClosed;
    long id;
    int flags;
    Message message;
    @SuppressWarnings("unused") // accessed through WORD: id << STATE_BITS | state
    private volatile long word;
    @SuppressWarnings("unused") // accessed through ON_CANCEL
    private volatile Runnable onCancel;
    @SuppressWarnings("unused") // accessed through HELD
    private volatile int held;
    private volatile Lane replyVia;
    private Lane sendVia;
    private int answerStatus;
    private Outbound answer;
    private boolean hasDeadline;
    private long deadline;
    /** The answer is held by reference until the requester acknowledges it: it goes with ACK_REQUESTED. */
    boolean ackRequested;
    // The requester's output region for a one-sided write of the answer's data, valid on outputOn only and only
    // while no cancel arrived there after it (outputEpoch). Read and written on the receiving lane's thread.
    Connection outputOn;
    long outputAddress;
    int outputKey;
    int outputLength;
    long outputEpoch;

    /** A call of its own, for the garbage collector once done. */
    ServerCall(final Lane lane, final long id, final int flags)
    {
        this.lane = lane;
        this.pool = null;
        this.messageClosed = null;
        beginAs(id, flags);
    }

    /** A call that goes back to {@code pool} once done; {@link #beginAs} readies it for each use. */
    ServerCall(final Lane lane, final CallPool pool)
    {
        this.lane = lane;
        this.pool = pool;
        this.messageClosed = this::release;
        this.message = Messages.released();
    }

    /** Readies the call for request {@code id}; it executes only once {@link #claimed}. */
    ServerCall beginAs(final long id, final int flags)
    {
        this.id = id;
        this.flags = flags;
        replyVia = null;
        sendVia = null;
        answer = null;
        ackRequested = false;
        outputOn = null;
        hasDeadline = false;
        ON_CANCEL.setRelease(this, null);
        HELD.setRelease(this, HOLDS);
        WORD.setVolatile(this, id << STATE_BITS | TAKEN);
        return this;
    }

    /** The sender waits {@code remaining} ns from {@code now} (engine clock), or sent no deadline (0). */
    void deadline(final long now, final long remaining)
    {
        hasDeadline = remaining > 0;
        deadline = now + remaining;
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
        return hasDeadline ? Duration.ofNanos(Math.max(0, deadline - context().clock().nanoTime())) : null;
    }

    /**
     * Whether the deadline has passed, judged by the loop's time of this turn ({@code turnTime}) and, when that is
     * within a millisecond of the deadline, by the clock itself: a call with microseconds left must not run late.
     */
    boolean expiredAtDispatch(final long turnTime)
    {
        return hasDeadline && (turnTime - deadline >= 0 ||
            deadline - turnTime < NEAR_DEADLINE && context().clock().nanoTime() - deadline >= 0);
    }

    /** Whether the deadline passed by {@code now} (engine clock). */
    boolean expiredBy(final long now)
    {
        return hasDeadline && now - deadline >= 0;
    }

    @Override
    public boolean isExpired()
    {
        return expiredBy(context().clock().nanoTime());
    }

    @Override
    public boolean refuseIfExpired()
    {
        if (!isExpired())
        {
            return false;
        }
        if (!refuse(Status.DEADLINE_EXCEEDED))
        {
            throw new IllegalStateException("request " + id + " was already answered");
        }
        return true;
    }

    /** The window made this call the one executing its id: from now on it may be answered and cancelled. */
    void claimed()
    {
        WORD.setVolatile(this, id << STATE_BITS | EXECUTING);
    }

    /** Refused before it ran (back-pressure): false when a cancel got it first. */
    boolean abandon()
    {
        return moveFrom(EXECUTING, ANSWERED);
    }

    /** The call was never handed to anybody (the window did not take it, or it was abandoned): back it goes. */
    void unused()
    {
        if (pool != null)
        {
            pool.recycle(this);
        }
    }

    /** The request's message, from the pool's own object when pooled. */
    Message wrap(final io.xio.engine.memory.Slab slab, final io.xio.engine.protocol.Frame frame,
        final LeakTracker leaks)
    {
        message = pool == null ? Messages.of(slab, frame, leaks)
            : Messages.rewrap(message, slab, frame, leaks, messageClosed);
        return message;
    }

    /** One of the holds let go; the last one returns a pooled call to its pool. Any thread. */
    void release()
    {
        if (pool != null && (int)HELD.getAndAdd(this, -1) == 1)
        {
            answer = null;
            sendVia = null;
            pool.recycle(this);
        }
    }

    private int state()
    {
        return (int)((long)WORD.getVolatile(this) & STATE_MASK);
    }

    private boolean moveFrom(final int from, final int to)
    {
        return WORD.compareAndSet(this, id << STATE_BITS | from, id << STATE_BITS | to);
    }

    /** A retransmit of this call arrived on {@code lane}: send the answer there, if the call still is {@code id}. */
    void replyVia(final Lane lane, final long expectedId)
    {
        // A pooled call reused meanwhile at worst answers on another live lane of the same session, which the
        // client accepts: answers are found across a session's lanes.
        if ((long)WORD.getVolatile(this) >>> STATE_BITS == expectedId)
        {
            replyVia = lane;
        }
    }

    /** Where the answer goes: the lane of the latest retransmit, else the lane the request came in on. */
    Lane replyLane()
    {
        final Lane via = replyVia;
        return via != null ? via : lane;
    }

    @Override
    public Message message()
    {
        return message;
    }

    @Override
    public Session session()
    {
        return context().session();
    }

    @Override
    public long requestId()
    {
        return id;
    }

    @Override
    public boolean isOneWay()
    {
        return (flags & FrameFlags.ONE_WAY) != 0;
    }

    @Override
    public void respond(final Outbound response)
    {
        if (isOneWay())
        {
            throw new IllegalStateException("message " + id + " is one-way: it takes no response");
        }
        answer(Status.OK, response);
    }

    @Override
    public void fail(final String type, final String message)
    {
        if (isOneWay())
        {
            return;
        }
        final String text = type + "\n" + message;
        answer(Status.APPLICATION_ERROR, Outbound.of(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8))));
    }

    private void answer(final int status, final Outbound response)
    {
        if (moveFrom(EXECUTING, ANSWERED))
        {
            context().answers().answered(this, status, response);
            return;
        }
        response.released();
        if (!answeredAfterCancel())
        {
            throw new IllegalStateException("request " + id + " was already answered");
        }
    }

    /**
     * The handler answered a cancelled call, which sends nothing; this was the answer hold, let go now or, while
     * the cancel still runs, by the cancel when it ends. False when the call was not cancelled.
     */
    private boolean answeredAfterCancel()
    {
        while (true)
        {
            final int state = state();
            if (state == CANCELLING && moveFrom(CANCELLING, CANCELLING_ANSWERED))
            {
                return true;
            }
            if (state == CANCELLED && moveFrom(CANCELLED, CANCELLED_ANSWERED))
            {
                release();
                return true;
            }
            if (state == CANCELLING_ANSWERED || state == CANCELLED_ANSWERED)
            {
                return true; // answered again after the cancel: still nothing to send
            }
            if (state == EXECUTING || state == ANSWERED || state == TAKEN)
            {
                return false;
            }
        }
    }

    @Override
    public void refuse()
    {
        if (isOneWay())
        {
            context().rejected().run(); // its receipt, if asked for, left before the handler ran: nothing to send
            return;
        }
        if (moveFrom(EXECUTING, ANSWERED))
        {
            context().rejected().run();
            context().answers().answered(this, Status.BACK_PRESSURE, Outbound.empty());
            return;
        }
        if (!answeredAfterCancel())
        {
            throw new IllegalStateException("request " + id + " was already answered");
        }
    }

    /**
     * Answers with a bare status (no handler ran); false when the call had been answered already (not cancelled).
     */
    boolean refuse(final int status)
    {
        if (moveFrom(EXECUTING, ANSWERED))
        {
            context().answers().answered(this, status, isOneWay() ? null : Outbound.empty());
            return true;
        }
        return answeredAfterCancel(); // cancelled first: this was its answer hold, let go (the cancel sent nothing)
    }

    /** The one-way message was handed to the handler: nothing more to answer. */
    void delivered()
    {
        if (moveFrom(EXECUTING, ANSWERED))
        {
            context().answers().answered(this, Status.OK, null);
        }
        else
        {
            answeredAfterCancel();
        }
    }

    /** The sender cancelled request {@code expectedId}: true when this call was it and not answered yet. */
    boolean cancel(final long expectedId)
    {
        if (!WORD.compareAndSet(this, expectedId << STATE_BITS | EXECUTING, expectedId << STATE_BITS | CANCELLING))
        {
            return false;
        }
        // While we hold CANCELLING, nobody can answer and complete the id, so the window still names the call
        // executing it. If it does not, this is not that execution (a guard: claimed() should make that
        // impossible): give the state back, unless a reuse has overwritten it already.
        if (context().window().call(expectedId) != this)
        {
            WORD.compareAndSet(this, expectedId << STATE_BITS | CANCELLING, expectedId << STATE_BITS | EXECUTING);
            return false;
        }
        try
        {
            context().answers().cancelled(expectedId);
            final Runnable action = (Runnable)ON_CANCEL.getAndSet(this, RAN);
            if (action != null)
            {
                action.run();
            }
        }
        finally
        {
            if (!moveFrom(CANCELLING, CANCELLED) && moveFrom(CANCELLING_ANSWERED, CANCELLED_ANSWERED))
            {
                release(); // the handler answered while we cancelled
            }
        }
        return true;
    }

    @Override
    public boolean isCancelled()
    {
        final int state = state();
        return state != EXECUTING && state != ANSWERED && state != TAKEN;
    }

    @Override
    public void onCancel(final Runnable action)
    {
        if (!ON_CANCEL.compareAndSet(this, null, action) && ON_CANCEL.getVolatile(this) == RAN)
        {
            action.run(); // cancelled already
        }
    }

    // ---- sending the answer (the answer hold) ----

    /** Hands the answer to {@code via}'s context, which sends it there. */
    void sendOn(final Lane via, final int status, final Outbound response)
    {
        sendVia = via;
        answerStatus = status;
        answer = response;
        via.loop.execute(this);
    }

    /** On {@code sendVia}'s context: send the answer handed over by {@link #sendOn}. */
    @Override
    public void run()
    {
        sendVia.sendResponse(this, answerStatus, answer);
    }

    /** The answer is in a link, which calls {@link #onSendComplete} when it is done with its buffers. */
    void sending(final Outbound response)
    {
        answer = response;
    }

    @Override
    public void onSendComplete(final boolean written)
    {
        final Outbound sent = answer;
        answer = null;
        try
        {
            sent.released();
        }
        finally
        {
            release();
        }
    }

    /** What the call needs of its session: the same for every call of the session. */
    private ServerCallContext context()
    {
        return lane.calls;
    }
}
