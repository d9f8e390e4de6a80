package io.xio.engine.session;

import io.xio.engine.Outbound;
import io.xio.engine.XioFuture;
import io.xio.engine.transport.SendCompletion;

/**
 * A request or one-way message this side sent and has not finished with: kept until its response, receipt
 * or write completes it, and retransmitted from here after a connection failure. Owned by the lane that
 * holds it (one context thread); it moves between lanes only through their command queues, and only once
 * no link references its buffers any more.
 *
 * <p>Its future completes only once no link still references its buffers, so a caller may reuse them as
 * soon as the future is done (a cancelled one: once {@link XioFuture#cancelOutcome()} is).
 */
final class PendingRequest implements Runnable, SendCompletion
{
    static final long NO_TIMER = -1;

    final SessionImpl session;
    final long id;
    final int flags;
    final Outbound message;
    final XioFuture<Object> future;
    final long deadline;
    final boolean oneWay;
    final boolean receipt;
    final Runnable expire = this::expire;
    volatile Lane lane;
    long timer = NO_TIMER;
    boolean sentOnce;
    private boolean finished;
    private int inLinks;
    private Object outcome;
    private Throwable failure;

    PendingRequest(final SessionImpl session, final long id, final int flags, final Outbound message,
        final XioFuture<Object> future, final long deadline, final boolean oneWay, final boolean receipt)
    {
        this.session = session;
        this.id = id;
        this.flags = flags;
        this.message = message;
        this.future = future;
        this.deadline = deadline;
        this.oneWay = oneWay;
        this.receipt = receipt;
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

    void fail(final Throwable cause)
    {
        if (finish())
        {
            failure = cause;
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
        session.sentIds.finished(id);
        session.permits.release();
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
        future.buffersReleased();
        if (failure != null)
        {
            future.completeExceptionally(failure);
            if (outcome instanceof AutoCloseable closeable)
            {
                closeQuietly(closeable);
            }
        }
        else if (!future.complete(outcome) && outcome instanceof AutoCloseable closeable)
        {
            closeQuietly(closeable); // the caller cancelled meanwhile: nobody will release it
        }
        outcome = null;
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
