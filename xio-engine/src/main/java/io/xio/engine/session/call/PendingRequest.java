package io.xio.engine.session.call;

import io.xio.engine.ConnectionException;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.ResponseListener;
import io.xio.engine.XioFuture;
import io.xio.engine.session.Futures;
import io.xio.engine.transport.SendCompletion;
import org.slf4j.LoggerFactory;

/**
 * A request or one-way message this side sent and has not finished with: kept until its response, receipt
 * or write completes it, and retransmitted from here after a connection failure. Owned by the lane that
 * holds it (one context thread); it moves between lanes only through their command queues, and only once
 * no link references its buffers any more.
 *
 * <p>Its future (or listener) hears the outcome only once no link still references its buffers, so a caller
 * may reuse them as soon as it did (a cancelled future: once {@link XioFuture#cancelOutcome()} is done).
 *
 * <p>A request comes from its session's pool and goes back there once its future or listener was told, when
 * nothing can reach it any more: not the lane's map (removed before it finishes), not a timer (cancelled before),
 * not a link (no buffers referenced), not the queue of requests waiting for room (one that ever waited there is
 * left to the garbage collector instead, as the queue drops finished requests lazily), not its future (which
 * holds its owner and id only: a cancel of the future is a cancel of that id, {@link CallSubmission#cancel}). A
 * cancel finds the request by id in the lane's map, and one it travels with ({@link #rangeCancel}) is consumed
 * when it arrives, so no cancel can reach it late.
 */
final class PendingRequest implements Runnable, SendCompletion
{
    static final long NO_TIMER = -1;

    /** The pool it comes from and goes back to: its session's calls. */
    private final CallSubmission calls;
    final Runnable expire = this::expire;
    long id;
    int flags;
    Outbound message;
    XioFuture<Object> future;
    ResponseListener listener;
    long deadline;
    boolean oneWay;
    boolean receipt;
    /** The caller may run it again elsewhere: it fails at once when the session loses its last connection. */
    boolean idempotent;
    volatile Lane lane;
    long timer = NO_TIMER;
    boolean sentOnce;
    /** Ever queued in a lane's waiting queue, which may still hold it after it finished. */
    boolean waited;
    /**
     * Bytes of the output buffer offered to the peer for a one-sided write, -1 when not offered. While offered,
     * the peer may write there, so the request counts as held by a link until its lane sees a fence: the
     * response, the peer's answer to a cancel, or the connection's end ({@link #outputFenced}).
     */
    int exposedLength = -1;
    /** Where the offered bytes start in the output buffer. */
    int exposedAt;
    /** CANCELs its lane had sent on the connection before the offer: the answer to a later one fences it. */
    long exposedEpoch;
    /**
     * A range cancel its old lane had still to pass when it handed the request over: the new lane cancels it on
     * arrival, as a part of that cancel. Null otherwise.
     */
    RangeCancel rangeCancel;
    private boolean finished;
    private int inLinks;
    private Object outcome;
    private Throwable failure;

    /** A request for the session's pool, readied by {@link #reset} before each use. */
    PendingRequest(final CallSubmission calls)
    {
        this.calls = calls;
    }

    PendingRequest reset(final long id, final int flags, final Outbound message, final XioFuture<Object> future,
        final ResponseListener listener, final long deadline, final boolean oneWay, final boolean receipt)
    {
        this.id = id;
        this.flags = flags;
        this.message = message;
        this.future = future;
        this.listener = listener;
        this.deadline = deadline;
        this.oneWay = oneWay;
        this.receipt = receipt;
        this.idempotent = false;
        this.timer = NO_TIMER;
        this.sentOnce = false;
        this.waited = false;
        this.exposedLength = -1;
        this.rangeCancel = null;
        this.finished = false;
        this.inLinks = 0;
        this.outcome = null;
        this.failure = null;
        return this;
    }

    /** Submission on the target lane's thread. */
    @Override
    public void run()
    {
        lane.submit(this);
    }

    private void expire()
    {
        timer = NO_TIMER;
        lane.expire(this);
    }

    /** Fire-and-forget one-way messages are done once written, so they always want to hear of the write. */
    boolean wantsWriteCompletion()
    {
        return oneWay && !receipt;
    }

    /** Whether an outcome given now reaches the listener at once, so a response may be a borrowed view. */
    boolean deliversNow()
    {
        return !finished && inLinks == 0;
    }

    /** A link now references this request's buffers until it calls {@link #onSendComplete}. */
    void queuedInLink()
    {
        inLinks++;
    }

    @Override
    public void onSendComplete(final boolean written)
    {
        if (written && wantsWriteCompletion())
        {
            lane.sent(this);
        }
        if (--inLinks == 0 && finished)
        {
            deliver();
        }
    }

    /** The output buffer was offered to the peer: held until {@link #outputFenced}. */
    void outputExposed(final int length, final int at, final long epoch)
    {
        exposedLength = length;
        exposedAt = at;
        exposedEpoch = epoch;
        inLinks++;
    }

    /** The peer can no longer write into the output buffer. */
    void outputFenced()
    {
        exposedLength = -1;
        if (--inLinks == 0 && finished)
        {
            deliver();
        }
    }

    boolean isFinished()
    {
        return finished;
    }

    void complete(final Object value)
    {
        if (finish())
        {
            outcome = value;
            if (inLinks == 0)
            {
                deliver();
            }
        }
        else if (value instanceof AutoCloseable closeable)
        {
            closeQuietly(closeable);
        }
    }

    /**
     * Fails the call with {@code cause}; a {@link ConnectionException} (which may fail many calls) becomes this
     * call's own, saying whether the request was ever written.
     */
    void fail(final Throwable cause)
    {
        if (finish())
        {
            failure = cause instanceof ConnectionException lost ? lost.forCall(sentOnce) : cause;
            if (inLinks == 0)
            {
                deliver();
            }
        }
    }

    private boolean finish()
    {
        if (finished)
        {
            return false;
        }
        finished = true;
        calls.finished(id);
        return true;
    }

    /** No link holds the buffers any more: release them and tell the caller. */
    private void deliver()
    {
        try
        {
            message.released();
        }
        catch (final RuntimeException ex)
        {
            failure = failure == null ? ex : failure;
        }
        calls.outcome(id, outcome instanceof Message response ? response : null, failure);
        if (listener != null)
        {
            deliverToListener();
            return;
        }
        final XioFuture<Object> told = future;
        final Object value = outcome;
        final Throwable cause = failure;
        recycle(); // before the future hears: its caller may send the next request from there
        Futures.buffersReleased(told);
        if (cause != null)
        {
            told.completeExceptionally(cause);
            if (value instanceof AutoCloseable closeable)
            {
                closeQuietly(closeable);
            }
        }
        else if (!told.complete(value) && value instanceof AutoCloseable closeable)
        {
            closeQuietly(closeable); // the caller cancelled meanwhile: nobody will release it
        }
    }

    /** Back to the session's pool, unless a queue or timer may still reach it. */
    private void recycle()
    {
        if (!waited && timer == NO_TIMER)
        {
            reset(0, 0, null, null, null, 0, false, false);
            calls.recycle(this);
        }
        else
        {
            outcome = null;
        }
    }

    private void deliverToListener()
    {
        final ResponseListener target = listener;
        final Object value = outcome;
        final Throwable cause = failure;
        final long requestId = id;
        try
        {
            if (cause != null)
            {
                target.onFailure(requestId, cause);
            }
            else
            {
                target.onResponse(requestId, (Message)value);
            }
        }
        catch (final Throwable ex)
        {
            if (ex instanceof VirtualMachineError error)
            {
                throw error; // out of memory or stack: on a context's thread, it fails the context (EventLoop)
            }
            // Whatever else it threw, the frame that delivered this is mid-way on a transport's read loop: log, go on.
            LoggerFactory.getLogger(PendingRequest.class).warn("response listener of request {} on {} failed",
                requestId, calls.describe(), ex);
        }
        finally
        {
            if (value instanceof AutoCloseable closeable)
            {
                closeQuietly(closeable); // the response was lent for the call only
            }
            recycle();
        }
    }

    private static void closeQuietly(final AutoCloseable closeable)
    {
        try
        {
            closeable.close();
        }
        catch (final Exception ignore)
        {
            // releasing a message does not fail
        }
    }
}
