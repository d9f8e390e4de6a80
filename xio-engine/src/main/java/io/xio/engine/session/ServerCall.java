package io.xio.engine.session;

import io.xio.engine.InboundRequest;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.Status;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A request being executed by this side's handler. Answered once from any thread; the answer is recorded in
 * the session's deduplication window and sent on the lane that received the request, or on another lane of
 * the session when that one's connection is gone.
 */
final class ServerCall implements InboundRequest
{
    private static final int EXECUTING = 0;
    private static final int ANSWERED = 1;
    private static final int CANCELLED = 2;

    final Lane lane;
    final long id;
    final int flags;
    Message message;
    private final AtomicInteger state = new AtomicInteger(EXECUTING);
    private static final Runnable RAN = () -> { };
    private final java.util.concurrent.atomic.AtomicReference<Runnable> onCancel =
        new java.util.concurrent.atomic.AtomicReference<>();
    private volatile Lane replyVia;

    ServerCall(final Lane lane, final long id, final int flags)
    {
        this.lane = lane;
        this.id = id;
        this.flags = flags;
    }

    /** A retransmit of this call arrived on {@code lane}: send the answer there. */
    void replyVia(final Lane lane)
    {
        replyVia = lane;
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
        return lane.session;
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
    public void fail(final Throwable error)
    {
        if (isOneWay())
        {
            return;
        }
        final String text = error.getClass().getName() + "\n" + (error.getMessage() == null ? "" : error.getMessage());
        answer(Status.APPLICATION_ERROR, Outbound.of(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8))));
    }

    private void answer(final int status, final Outbound response)
    {
        if (!state.compareAndSet(EXECUTING, ANSWERED))
        {
            response.released();
            if (state.get() == CANCELLED)
            {
                return;
            }
            throw new IllegalStateException("request " + id + " was already answered");
        }
        lane.session.answered(this, status, response);
    }

    /** Answers with a bare status (no handler ran). */
    void refuse(final int status)
    {
        if (state.compareAndSet(EXECUTING, ANSWERED))
        {
            lane.session.answered(this, status, isOneWay() ? null : Outbound.empty());
        }
    }

    /** The one-way message was handed to the handler: nothing more to answer. */
    void delivered()
    {
        if (state.compareAndSet(EXECUTING, ANSWERED))
        {
            lane.session.answered(this, Status.OK, null);
        }
    }

    /** The sender cancelled: true when this call had not been answered yet. Context thread. */
    boolean cancel()
    {
        if (!state.compareAndSet(EXECUTING, CANCELLED))
        {
            return false;
        }
        lane.session.cancelled(this);
        final Runnable action = onCancel.getAndSet(RAN);
        if (action != null)
        {
            action.run();
        }
        return true;
    }

    @Override
    public boolean isCancelled()
    {
        return state.get() == CANCELLED;
    }

    @Override
    public void onCancel(final Runnable action)
    {
        if (!onCancel.compareAndSet(null, action) && onCancel.get() == RAN)
        {
            action.run(); // cancelled already
        }
    }
}
