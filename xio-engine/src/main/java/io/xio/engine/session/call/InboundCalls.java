package io.xio.engine.session.call;

import io.xio.engine.Limits;
import io.xio.engine.Outbound;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.RequestHandler;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.CallContext;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameEncoder;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.protocol.Status;
import io.xio.engine.session.LeakTracker;
import io.xio.engine.session.admission.DedupWindow;
import io.xio.engine.session.admission.HeldResponse;
import io.xio.engine.session.connection.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The peer's requests arriving on one lane: deduplication through the session's window, dispatch to the
 * handler, receipts, refusals, cancels, resending a retained answer to a retransmit, and sending answers on
 * this lane's connection. Owned by the lane's context thread (answers come from any thread through
 * {@link ServerCall}, which hands them to the right lane's context).
 */
final class InboundCalls
{
    private static final Logger LOG = LoggerFactory.getLogger(InboundCalls.class);

    private final Lane lane;
    /** The session, its answering part, window and refusal counter, as the lane's calls have them. */
    private final ServerCallContext session;
    private final RequestHandler handler;
    /** The session's lanes: an answer goes out on another when this one is down. */
    private final LaneRing lanes;
    private final LeakTracker leaks;
    private final Limits limits;
    private final AtomicLong requestsReceived;
    private final CallPool calls;
    /**
     * Calls accepted while the connection held more unsent bytes for the peer than it may: they start once the
     * peer has read enough, so a peer that asks and does not read cannot make us pile up answers for it. Reading
     * goes on meanwhile (answers to our own requests must get through: two peers flooding each other must not
     * deadlock), and the peer's in-flight limit bounds how many wait here.
     */
    private final ArrayDeque<ServerCall> parked = new ArrayDeque<>();

    /**
     * @param reuseCalls whether calls are pooled ({@link io.xio.engine.RequestReuse#AFTER_ANSWER})
     * @param requestsReceived the session's count of the peer's calls
     */
    InboundCalls(final Lane lane, final ServerCallContext session, final RequestHandler handler,
        final LaneRing lanes, final LeakTracker leaks, final Limits limits, final AtomicLong requestsReceived,
        final boolean reuseCalls)
    {
        this.lane = lane;
        this.session = session;
        this.handler = handler;
        this.lanes = lanes;
        this.leaks = leaks;
        this.limits = limits;
        this.requestsReceived = requestsReceived;
        this.calls = reuseCalls ? new CallPool(lane, limits.maxInFlight()) : null;
    }

    void onRequest(final Frame frame, final Slab slab)
    {
        final int flags = frame.flags();
        if ((flags & FrameFlags.STREAM) != 0)
        {
            lane.streams.opens.onOpen(frame, slab, this);
            return;
        }
        final long id = DedupWindow.checkedId(frame.requestId());
        final boolean oneWay = (flags & FrameFlags.ONE_WAY) != 0;
        final boolean receipt = (flags & FrameFlags.RECEIPT_REQUESTED) != 0;
        final ServerCall call = calls != null ? calls.take(id, flags) : new ServerCall(lane, id, flags);
        lane.fence.takeDescriptor(call, id, oneWay, lane.connection());
        switch (session.window().begin(id, call))
        {
            case NEW ->
            {
                call.claimed();
                if (!session.answers().startedExecuting())
                {
                    if (call.abandon())
                    {
                        session.answers().stoppedExecuting();
                        session.window().abandon(id);
                        call.unused();
                    }
                    session.rejected().run();
                    answerStatus(id, flags, Status.BACK_PRESSURE);
                    return;
                }
                requestsReceived.incrementAndGet();
                if (receipt)
                {
                    sendReceipt(id, flags);
                }
                call.wrap(slab, frame, leaks);
                call.deadline(lane.loop.nanoTime(), frame.contextLength() == 0 ? CallContext.NO_DEADLINE :
                    CallContext.remaining(frame.buffer(), frame.headerOffset()));
                if (!parked.isEmpty() || !lane.connection().writable())
                {
                    parked.add(call);
                    return;
                }
                dispatch(call, oneWay);
            }
            case EXECUTING ->
            {
                call.unused();
                if (receipt)
                {
                    sendReceipt(id, flags);
                }
                // The original connection may look alive here yet be dead: answer where the retransmit came
                // from. Re-check afterwards, since the answer may have been routed meanwhile.
                final Object running = session.window().awaitCall(id);
                if (running instanceof ServerCall executing)
                {
                    executing.replyVia(lane, id);
                    unparkElsewhere(executing);
                }
                if (!oneWay && session.window().isDone(id))
                {
                    resend(id, flags);
                }
            }
            case DONE ->
            {
                call.unused();
                if (receipt)
                {
                    sendReceipt(id, flags);
                }
                if (!oneWay)
                {
                    resend(id, flags);
                }
            }
            case TOO_OLD ->
            {
                call.unused();
                answerStatus(id, flags, Status.OUTSIDE_WINDOW);
            }
            case FULL ->
            {
                call.unused();
                session.rejected().run();
                answerStatus(id, flags, Status.BACK_PRESSURE);
            }
        }
    }

    /** Starts the parked calls while the connection has room. */
    void startParked()
    {
        ServerCall call;
        while (lane.isUp() && lane.connection().writable() && (call = parked.poll()) != null)
        {
            dispatch(call, (call.flags & FrameFlags.ONE_WAY) != 0);
        }
    }

    /**
     * A retransmit of {@code call} came on this lane: its client gave up on the connection the call is parked on,
     * which may be dead, so the call starts now instead of waiting for that connection's room or end.
     */
    private void unparkElsewhere(final ServerCall call)
    {
        final Lane holder = call.lane;
        if (holder == lane)
        {
            return;
        }
        if (holder.loop == lane.loop)
        {
            holder.inbound.unpark(call);
        }
        else
        {
            holder.loop.execute(() -> holder.inbound.unpark(call));
        }
    }

    private void unpark(final ServerCall call)
    {
        if (parked.remove(call))
        {
            dispatch(call, (call.flags & FrameFlags.ONE_WAY) != 0);
        }
    }

    /**
     * The lane is down or closed: its parked calls never ran, so they are given back (the window forgets them)
     * for a retransmit to run once, with an answer that has somewhere to go. One that a cancel reached first
     * runs, as any cancelled call does, so that its answer settles the window; so does a one-way message.
     */
    void dropParked()
    {
        ServerCall call;
        while ((call = parked.poll()) != null)
        {
            // A one-way message may have had its receipt: its sender does not send it again, so it runs here.
            if ((call.flags & FrameFlags.ONE_WAY) == 0 && call.abandon())
            {
                session.answers().stoppedExecuting();
                session.window().abandon(call.id);
                call.message.close(); // a pooled call is then left to the collector: it holds the window no more
            }
            else
            {
                dispatch(call, (call.flags & FrameFlags.ONE_WAY) != 0);
            }
        }
    }

    private void dispatch(final ServerCall call, final boolean oneWay)
    {
        try
        {
            if (handler == null)
            {
                call.message.close();
                call.refuse(Status.NO_HANDLER);
                return;
            }
            if (call.expiredAtDispatch(lane.loop.nanoTime()))
            {
                call.message.close(); // it waited here past its caller's deadline: nobody waits for its answer
                call.refuse(Status.DEADLINE_EXCEEDED);
                return;
            }
            try
            {
                handler.onRequest(call);
            }
            catch (final Throwable ex)
            {
                call.message.close(); // a handler that threw is not going to release it
                if (ex instanceof VirtualMachineError error)
                {
                    throw error; // out of memory or stack: not the call's failure but the context's (EventLoop)
                }
                if (oneWay)
                {
                    LOG.warn("handler of {} failed on one-way message {}", session.session(), call.id, ex);
                }
                else
                {
                    try
                    {
                        call.fail(ex); // sends nothing when cancelled, but counts as the answer a reused call awaits
                    }
                    catch (final IllegalStateException alreadyAnswered)
                    {
                        // it threw after answering: the answer stands
                    }
                }
            }
            if (oneWay)
            {
                call.delivered();
            }
        }
        finally
        {
            call.release(); // the handler's hold
        }
    }

    /** A refusal: requests and one-way messages that asked for a receipt hear of it; fire-and-forget does not. */
    void answerStatus(final long id, final int flags, final int status)
    {
        final boolean silent = (flags & FrameFlags.ONE_WAY) != 0 && (flags & FrameFlags.RECEIPT_REQUESTED) == 0;
        if (!silent && lane.isUp())
        {
            lane.connection().sendMessage(FrameType.RESPONSE, flags & FrameFlags.FROM_ACCEPTOR, sessionId(), id,
                status, Outbound.empty(), CallContext.NO_DEADLINE, null, false);
        }
    }

    private void sendReceipt(final long id, final int flags)
    {
        lane.connection().sendControl(FrameType.RECEIPT, flags & FrameFlags.FROM_ACCEPTOR, sessionId(), id, 0,
            Connection.NO_BODY);
    }

    /** A retransmit of a call answered already: the answer again, from the window, or RESPONSE_LOST. */
    private void resend(final long id, final int flags)
    {
        final HeldResponse held = session.window().held(id);
        final Outbound again = held == null ? null : held.share();
        if (again != null)
        {
            final int result = lane.connection().sendMessage(FrameType.RESPONSE, flags & FrameFlags.FROM_ACCEPTOR |
                FrameFlags.ACK_REQUESTED, sessionId(), id, held.status, again, CallContext.NO_DEADLINE,
                written -> again.released(), true);
            if (result != FrameEncoder.QUEUED)
            {
                again.released(); // copied, or no room: no link reads it
            }
            return;
        }
        final DedupWindow.Retained kept = session.window().retained(id);
        if (kept == null)
        {
            answerStatus(id, flags, Status.RESPONSE_LOST);
            return;
        }
        final ByteBuffer all = ByteBuffer.wrap(kept.bytes());
        final ByteBuffer[] segments = new ByteBuffer[kept.segmentLengths().length];
        int at = kept.headerLength();
        for (int i = 0; i < segments.length; i++)
        {
            segments[i] = all.slice(at, kept.segmentLengths()[i]);
            at += kept.segmentLengths()[i];
        }
        lane.connection().sendMessage(FrameType.RESPONSE, flags & FrameFlags.FROM_ACCEPTOR, sessionId(), id,
            kept.status(), Outbound.of(all.slice(0, kept.headerLength()), segments).metadata(kept.trailers()),
            CallContext.NO_DEADLINE, null, false);
    }

    /** The peer has the whole response to its request: a copy held for a retransmit of it goes. */
    void onResponseAck(final Frame frame)
    {
        session.window().acknowledge(DedupWindow.checkedId(frame.requestId()));
    }

    void onCancel(final Frame frame)
    {
        lane.fence.cancelSeen(); // an answer not sent yet must not write into a cancelled call's output any more
        final long first = DedupWindow.checkedId(frame.requestId());
        final long last = DedupWindow.checkedId(new SetupCodec.Reader(frame.buffer(), frame.headerOffset(),
            frame.headerLength()).i64());
        if (last < first)
        {
            throw new ProtocolViolationException("CANCEL range " + first + ".." + last + " is empty");
        }
        // Bounded by the window: ids outside it are not executing here.
        final long span = Math.min(last - first, limits.dedupWindow() - 1);
        int aborted = 0;
        for (long i = 0; i <= span; i++)
        {
            final Object call = session.window().call(first + i);
            if (call instanceof ServerCall serverCall && serverCall.cancel(first + i))
            {
                aborted++;
            }
        }
        aborted += lane.streams.onCancel(first, last);
        lane.connection().sendCancelResult(frame, aborted);
    }

    /** Sends a call's response here, or on another lane of the session when this one is down. */
    void sendResponse(final ServerCall call, final int status, final Outbound response)
    {
        if (!lane.isUp())
        {
            final Lane other = lanes.open(lane);
            if (other == null)
            {
                response.released(); // kept in the window (when small) for the retransmit to come
                call.release();
                return;
            }
            if (other.loop == lane.loop)
            {
                other.inbound.sendResponse(call, status, response);
            }
            else
            {
                call.sendOn(other, status, response);
            }
            return;
        }
        final Connection connection = lane.connection();
        // The call is the completion: it releases the response once the link is done with its buffers.
        final boolean completion = response.hasReleaseAfterSend();
        if (completion)
        {
            call.sending(response);
        }
        final int flags = call.flags & FrameFlags.FROM_ACCEPTOR | (call.ackRequested ? FrameFlags.ACK_REQUESTED : 0);
        int result = FrameEncoder.NOT_WRITABLE;
        if (call.lane == lane && lane.fence.mayWriteInto(call, connection) && status == Status.OK)
        {
            result = connection.sendInto(flags, sessionId(), call.id, status, response, call.outputAddress,
                call.outputKey, call.outputLength, completion ? call : null);
        }
        if (result == FrameEncoder.NOT_WRITABLE)
        {
            result = connection.sendMessage(FrameType.RESPONSE, flags, sessionId(), call.id, status, response,
                CallContext.NO_DEADLINE, completion ? call : null, true);
        }
        if (result == FrameEncoder.NO_ROOM)
        {
            response.released();
            call.release();
        }
        else if (!completion)
        {
            call.release();
        }
    }

    private long sessionId()
    {
        return session.session().id();
    }
}
