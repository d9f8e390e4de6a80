package io.xio.engine.session;

import io.xio.engine.Outbound;
import io.xio.engine.XioFuture;

/**
 * A request or one-way message this side sent and has not finished with: kept until its response, receipt
 * or write completes it, and retransmitted from here after a connection failure. Owned by the lane that
 * holds it (one context thread); it moves between lanes only through their command queues.
 */
final class PendingRequest implements Runnable
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
    final Runnable sent = this::sent;
    volatile Lane lane;
    long timer = NO_TIMER;
    boolean sentOnce;
    private boolean finished;

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

    private void sent()
    {
        lane.sent(this);
    }

    boolean isFinished()
    {
        return finished;
    }

    void complete(final Object value)
    {
        if (finish())
        {
            if (!future.complete(value) && value instanceof AutoCloseable closeable)
            {
                closeQuietly(closeable); // the caller cancelled meanwhile: nobody will release it
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
            future.completeExceptionally(cause);
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
        try
        {
            message.released();
        }
        catch (final RuntimeException ex)
        {
            future.completeExceptionally(ex);
        }
        return true;
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
