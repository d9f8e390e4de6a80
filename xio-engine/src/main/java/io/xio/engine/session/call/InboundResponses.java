package io.xio.engine.session.call;

import io.xio.engine.BackPressureException;
import io.xio.engine.Message;
import io.xio.engine.RemoteException;
import io.xio.engine.Session;
import io.xio.engine.XioException;
import io.xio.engine.XioFuture;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.XioUri;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.protocol.Status;
import io.xio.engine.session.Futures;
import io.xio.engine.session.LeakTracker;
import io.xio.engine.session.Messages;
import io.xio.engine.session.connection.Connection;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The peer's answers to this side's requests arriving on one lane: responses, receipts and cancel results.
 * Settles the request this lane holds, or (after a failover, when the answer came on another connection than
 * the one holding the request) passes the answer around the session's lanes until one claims it. Owned by the
 * lane's context thread.
 */
final class InboundResponses
{
    private static final Object RECEIPT = new Object();

    private final Lane lane;
    /** The session as the application sees it: its id, for the CANCELs that go back. */
    private final Session session;
    /** The session's lanes, round which an answer that arrived on the wrong one is passed. */
    private final LaneRing lanes;
    private final LeakTracker leaks;
    /** The session's address with its resource, for the failures of calls. */
    private final XioUri address;
    private final OutboundCalls outbound;
    private final Message responseView = Messages.released();

    InboundResponses(final Lane lane, final OutboundCalls outbound, final Session session, final LaneRing lanes,
        final LeakTracker leaks, final XioUri address)
    {
        this.lane = lane;
        this.session = session;
        this.lanes = lanes;
        this.leaks = leaks;
        this.address = address;
        this.outbound = outbound;
    }

    void onResponse(final Frame frame, final Slab slab)
    {
        final long id = frame.requestId();
        if ((frame.flags() & FrameFlags.ACK_REQUESTED) != 0)
        {
            // The whole response is here: the responder may let go of its copy, even if this one is a duplicate.
            lane.connection().sendControl(FrameType.RESPONSE_ACK, frame.flags() & FrameFlags.FROM_ACCEPTOR,
                session.id(), id, 0, Connection.NO_BODY);
        }
        final boolean written = (frame.flags() & FrameFlags.DATA_WRITTEN) != 0;
        final int writtenAt = lane.fence.onResponse(frame, written);
        final PendingRequest request = outbound.get(id);
        if (request == null && (lanes.count() < 2 || written))
        {
            return; // answered already (a duplicate after failover), cancelled or timed out
        }
        final int status = frame.status();
        final Message message;
        if (status != Status.OK)
        {
            message = null;
        }
        else if (request != null && request.listener != null && request.deliversNow() && responseView.isReleased())
        {
            // The listener reads it during its call and xio closes it after: lend the lane's view, no allocation.
            message = Messages.rewrap(responseView, slab, frame, null, null);
        }
        else if (request != null && request.future != null && Futures.response(request.future) != null)
        {
            // A recycled future: its own message, which goes back with it when the caller closes it.
            final XioFuture<Object> future = request.future;
            message = Messages.rewrap(Futures.response(future), slab, frame, leaks,
                Futures.onResponseClosed(future));
        }
        else
        {
            message = Messages.of(slab, frame, leaks);
        }
        if (written)
        {
            Messages.placeIn(message, request.message.output(), writtenAt);
        }
        final Object outcome = message != null ? message : remoteFailure(frame, status);
        if (request != null)
        {
            settle(request, outcome);
        }
        else
        {
            // After a failover the peer may answer on another connection than the one holding the request.
            forward(id, outcome, lanes.count() - 1);
        }
    }

    void onReceipt(final Frame frame)
    {
        final PendingRequest request = outbound.get(frame.requestId());
        if (request != null)
        {
            settle(request, RECEIPT);
        }
        else if (lanes.count() > 1)
        {
            forward(frame.requestId(), RECEIPT, lanes.count() - 1);
        }
    }

    void onCancelResult(final Frame frame)
    {
        final SetupCodec.Reader body = new SetupCodec.Reader(frame.buffer(), frame.headerOffset(),
            frame.headerLength());
        final long last = body.i64();
        final int aborted = body.i32();
        lane.fence.onCancelAnswered();
        lane.cancels.answered(frame.requestId(), last, aborted);
    }

    /** An answer that arrived on another lane of the session; passed around the lanes until one holds it. */
    void claim(final long id, final Object outcome, final int hopsLeft)
    {
        final PendingRequest request = outbound.get(id);
        if (request != null)
        {
            settle(request, outcome);
        }
        else if (hopsLeft > 0)
        {
            forward(id, outcome, hopsLeft - 1);
        }
        else if (outcome instanceof Message message)
        {
            message.close(); // nobody waits for it: a duplicate
        }
    }

    private void forward(final long id, final Object outcome, final int hopsLeft)
    {
        final Lane next = lanes.after(lane);
        if (next == null || next.loop.isClosed())
        {
            if (outcome instanceof Message message)
            {
                message.close();
            }
            return;
        }
        next.loop.execute(() -> next.responses.claim(id, outcome, hopsLeft));
    }

    private void settle(final PendingRequest request, final Object outcome)
    {
        if (outcome == RECEIPT)
        {
            if (request.oneWay)
            {
                outbound.answered(request);
                Futures.receiptArrived(request.future);
                request.complete(null);
            }
            else if (request.future != null)
            {
                Futures.receiptArrived(request.future);
            }
            return;
        }
        outbound.answered(request);
        if (outcome instanceof Message message)
        {
            final ByteBuffer output = request.message.output();
            if (output != null && !message.inOutput())
            {
                copyIntoOutput(message, output);
            }
            if (request.future != null)
            {
                Futures.receiptArrived(request.future);
            }
            request.complete(message);
        }
        else
        {
            request.fail((Throwable)outcome);
        }
    }

    /** Response data that arrived in the frame goes into the request's output buffer, when it fits there. */
    private static void copyIntoOutput(final Message message, final ByteBuffer output)
    {
        long total = 0;
        for (int i = 0; i < message.segmentCount(); i++)
        {
            total += message.segmentLength(i);
        }
        if (total > output.remaining())
        {
            return; // stays in the receive buffer: the message says so with inOutput()
        }
        int at = output.position();
        for (int i = 0; i < message.segmentCount(); i++)
        {
            final int length = message.segmentLength(i);
            message.segmentBuffer(i).getBytes(message.segmentOffset(i), output, at, length);
            at += length;
        }
        Messages.placeIn(message, output, output.position());
    }

    /**
     * What a non-OK status tells the caller: a refusal for lack of room is a {@link BackPressureException} (the
     * call never ran, retrying later is safe), with the peer's answer as its cause, as a refusal on this side is.
     */
    private XioException remoteFailure(final Frame frame, final int status)
    {
        return remoteFailure(frame, status, address);
    }

    /** {@link #remoteFailure(Frame, int)} for an answer from {@code address}: a stream's end reads the same way. */
    static XioException remoteFailure(final Frame frame, final int status, final Object address)
    {
        final RemoteException remote = remoteException(frame, status, address);
        if (status == Status.BACK_PRESSURE)
        {
            return new BackPressureException("turned away unrun by " + address +
                ": too busy now; retry later or slow down", remote);
        }
        if (status == Status.DEADLINE_EXCEEDED)
        {
            return new XioTimeoutException("not run by " + address +
                ": the call's deadline passed while it waited there", remote, false);
        }
        return remote;
    }

    private static RemoteException remoteException(final Frame frame, final int status, final Object address)
    {
        String type = null;
        String text = null;
        if (status == Status.APPLICATION_ERROR)
        {
            final byte[] bytes = new byte[frame.applicationHeaderLength()];
            frame.buffer().getBytes(frame.applicationHeaderOffset(), bytes);
            final String body = new String(bytes, StandardCharsets.UTF_8);
            final int newline = body.indexOf('\n');
            type = newline < 0 ? body : body.substring(0, newline);
            text = newline < 0 ? "" : body.substring(newline + 1);
        }
        return new RemoteException(address.toString(), status, type, text);
    }
}
