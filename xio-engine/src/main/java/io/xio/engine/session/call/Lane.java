package io.xio.engine.session.call;

import io.xio.engine.ConnectionException;
import io.xio.engine.Outbound;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.SessionEvent;
import io.xio.engine.XioUri;
import io.xio.engine.context.EventLoop;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.CallContext;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.session.connection.CarriedLane;
import io.xio.engine.session.connection.Connection;
import io.xio.engine.session.connection.Peers;

import java.util.List;

/**
 * A session's presence on one context: the connection it uses there, its {@link LaneState}, and the parts that
 * do the work, to which it routes the session's frames: the client {@link Handshake} (client lanes), this side's
 * requests ({@link OutboundCalls}), their cancels ({@link SentCancels}) and the answers to them
 * ({@link InboundResponses}), the peer's requests ({@link InboundCalls}) and the {@link OutputFence} of one-sided
 * writes. Owned by that context's thread;
 * other threads reach it only through the context's command queue ({@link #isUp} and {@link #remoteAddress}
 * excepted).
 */
public final class Lane implements CarriedLane
{
    /**
     * The client side of a lane's connection life as the lane drives it: the set-up, the first attach, and the
     * reconnects after a loss. The client handshake implements it, made for each client lane by its session
     * ({@link LaneContext#client}), so that a lane (below the handshake) names none of its. Owner context thread.
     */
    public interface Handshake
    {
        /** Where the lane connects (the endpoint that accepted the session); null before the set-up succeeded. */
        XioUri target();

        /** Sets the session up at {@code address}, trying {@code alternatives} in turn when it cannot. */
        void setup(XioUri address, int hops, List<XioUri> alternatives);

        /** Attaches the lane's first connection at {@code address}, else at the alternatives; {@code done} then. */
        void connectFirst(XioUri address, List<XioUri> alternatives, Runnable done);

        /** The lane is up: the next loss starts its backoff afresh. */
        void connected();

        /** The connection was lost (or an attach failed): try again after the backoff. */
        void scheduleReconnect(Throwable cause);
    }

    /** Its session, as a lane sees it. */
    final LaneHost session;
    public final Peers peers;
    /** The session's lanes, this one among them. */
    final LaneRing ring;
    /** The flag that marks this side's request ids, and the metadata bound: the session's, read per frame. */
    private final int mineFlag;
    private final int maxMetadataBytes;
    public final EventLoop loop;
    /** Which of the context's connections to the peer this lane uses (see the constructor). */
    public final int slot;
    final OutputFence fence = new OutputFence();
    final SentCancels cancels;
    public final OutboundCalls outbound;
    final InboundResponses responses;
    final InboundCalls inbound;
    /** What the peer's calls on this lane need of their session ({@link ServerCall}). */
    final ServerCallContext calls;
    /** The streams on this lane, either side's. */
    final LaneStreams streams;
    private final Handshake handshake;
    private volatile LaneState state = LaneState.CONNECTING;
    private Connection connection;
    private Throwable lastFailure;

    /**
     * @param slot which of the context's connections to the peer this lane uses: 0 unless a session has more
     *             connections than the engine has contexts, since one connection carries one lane per session
     */
    public Lane(final LaneContext context, final Peers peers, final int slot)
    {
        this.session = context.session();
        this.peers = peers;
        this.ring = context.ring();
        this.mineFlag = session.mineFlag();
        this.maxMetadataBytes = context.limits().maxMetadataBytes();
        this.loop = peers.loop;
        this.slot = slot;
        this.calls = context.calls();
        this.cancels = new SentCancels(this, mineFlag, session::id);
        this.outbound = new OutboundCalls(this);
        this.responses = new InboundResponses(this, outbound, context.api(), ring, context.leaks(), context.target());
        this.inbound = new InboundCalls(this, calls, context.handler(), ring, context.leaks(), context.limits(),
            context.requestsReceived(), context.reuseCalls());
        this.streams = new LaneStreams(this, context);
        this.handshake = context.client() == null ? null : context.client().apply(this);
    }

    // ---- state ----

    public LaneState state()
    {
        return state;
    }

    /** Whether the caller may touch the lane: its context's thread (or nobody's, once the context stopped). */
    private boolean owned()
    {
        return loop.inContextThread() || !loop.isRunning();
    }

    private void moveTo(final LaneState next)
    {
        assert owned() : "lane of " + session.describe() + " moved off its context's thread";
        if (!state.canMoveTo(next))
        {
            throw new IllegalStateException("lane of session " + session.describe() + " cannot go from " + state +
                " to " + next);
        }
        state = next;
    }

    /** Whether a connection carries the lane. Any thread (may be stale). */
    public boolean isUp()
    {
        return state == LaneState.UP;
    }

    public boolean isClosed()
    {
        return state.isClosed();
    }

    /** The current connection, or null. */
    Connection connection()
    {
        return connection;
    }

    /** The remote address of the current connection, for monitoring from any thread (may be stale). */
    String remoteAddress()
    {
        final Connection current = connection;
        return current == null ? null : current.remoteAddress();
    }

    /** Where a client lane connects; null on the server side or before the set-up. */
    XioUri target()
    {
        return handshake == null ? null : handshake.target();
    }

    /** Why the connection was last lost or could not be made, or null. */
    Throwable lastFailure()
    {
        return lastFailure;
    }

    public void failed(final Throwable cause)
    {
        lastFailure = cause;
    }

    // ---- connection life ----

    /** Sets the session up (the session's first lane). */
    public void setup(final XioUri address, final int hops, final List<XioUri> alternatives)
    {
        handshake.setup(address, hops, alternatives);
    }

    /**
     * First connection of a lane other than the first: attach to the session at {@code address}, else at the
     * {@code alternatives} in turn; {@code done} either way.
     */
    public void connectFirst(final XioUri address, final List<XioUri> alternatives, final Runnable done)
    {
        handshake.connectFirst(address, alternatives, done);
    }

    /** {@code c} carries the lane from now on (set up, attached or reconnected). */
    public void attach(final Connection c)
    {
        assert owned() : "lane of " + session.describe() + " used off its context's thread";
        if (!state.canMoveTo(LaneState.UP))
        {
            throw new IllegalStateException("lane of session " + session.describe() + " cannot attach when " + state);
        }
        connection = c;
        fence.reset();
        c.addLane(session.id(), this);
        moveTo(LaneState.UP);
        if (handshake != null)
        {
            handshake.connected();
        }
        outbound.drainWaiting();
        streams.moves.attached();
        session.laneUp(this);
    }

    /**
     * Another lane of the session is up while this one is not: give it the requests waiting here. A parked server
     * lane has done its job then and leaves the session.
     */
    public void handOver(final Lane target)
    {
        if (!isUp() && !isClosed())
        {
            outbound.handOver(target);
            streams.moves.handOver(target);
            if (state == LaneState.PARKED)
            {
                moveTo(LaneState.CLOSED);
                session.removeServerLane(this);
            }
        }
    }

    /** Whether this (server) lane holds its session's requests while no connection is up. Any thread. */
    boolean isParked()
    {
        return state == LaneState.PARKED;
    }

    @Override
    public void onConnectionLost(final Connection c, final Throwable cause)
    {
        assert owned() : "lane of " + session.describe() + " used off its context's thread";
        if (connection != c)
        {
            return;
        }
        connection = null;
        if (state == LaneState.CLOSING)
        {
            moveTo(LaneState.CLOSED);
            fence.fenceAll(); // the connection's end: the peer can no longer write into our output buffers
            c.removeLane(session.id(), this); // was kept for the fence of offered outputs
            return;
        }
        lastFailure = cause;
        // A server lane parks first and looks for another lane after: an attach on another context marks its lane
        // up before it looks for parked ones (laneUp), so one of the two sees the other and nothing stays parked.
        final LaneState down = session.initiator() ? LaneState.RECONNECTING :
            session.isOpen() ? LaneState.PARKED : LaneState.CLOSED;
        moveTo(down);
        // Down before anyone hears of it: the calls the fence releases may close the session or send again.
        fence.fenceAll();
        inbound.dropParked(); // never started: a retransmit on another connection runs them
        if (state != down)
        {
            return; // closed by one of those callbacks
        }
        final Lane other = ring.open(this);
        outbound.connectionLost(other, cause);
        streams.moves.connectionLost(other, state != LaneState.CLOSED, cause);
        if (session.initiator())
        {
            session.fire(SessionEvent.Type.RECONNECTING, "connection of session " + session.describe() + " to " +
                target() + " lost; reconnecting", cause);
            handshake.scheduleReconnect(cause);
            return;
        }
        session.fire(SessionEvent.Type.ERROR, "connection of session " + session.describe() + " from " +
            c.remoteAddress() + " lost", cause);
        if (state == LaneState.PARKED && other == null)
        {
            session.parked(this);
            return;
        }
        if (state == LaneState.PARKED)
        {
            moveTo(LaneState.CLOSED); // another connection took the requests over
        }
        session.removeServerLane(this);
    }

    public void abort()
    {
        if (connection != null)
        {
            connection.close(new ConnectionException("connection to " + connection.remoteAddress() +
                " aborted by the application"));
        }
    }

    public void close(final Throwable cause, final boolean tellPeer)
    {
        assert owned() : "lane of " + session.describe() + " used off its context's thread";
        if (isClosed())
        {
            return;
        }
        final Connection c = connection;
        final boolean fenceFirst = c != null && isUp() && fence.hasOffers();
        if (fenceFirst)
        {
            // The peer may still write into outputs it was offered: ask it to cancel them (its answer is the fence)
            // and keep hearing this session's frames on the connection until that answer or the connection's end.
            cancels.send(fence.firstOffered(), fence.lastOffered());
        }
        moveTo(fenceFirst ? LaneState.CLOSING : LaneState.CLOSED);
        if (c != null)
        {
            if (tellPeer)
            {
                c.sendControl(FrameType.CLOSE, 0, session.id(), 0, 0,
                    new SetupCodec.Writer().string("closed by the application").toBytes());
            }
            if (!fenceFirst)
            {
                connection = null;
                c.removeLane(session.id(), this);
            }
        }
        outbound.failAll(cause);
        inbound.dropParked();
        streams.moves.failAll(cause);
    }

    /** Server side: a GOAWAY of this lane's session on its connection, if it has one up. */
    public void sendGoAway(final byte[] body)
    {
        assert owned() : "lane of " + session.describe() + " used off its context's thread";
        final Connection c = connection;
        if (c != null && isUp())
        {
            c.sendControl(FrameType.GOAWAY, 0, session.id(), 0, 0, body);
        }
    }

    // ---- this side's requests (from the session and its requests) ----

    void submit(final PendingRequest request)
    {
        assert owned() : "lane of " + session.describe() + " used off its context's thread";
        outbound.submit(request);
    }

    void sent(final PendingRequest request)
    {
        outbound.sent(request);
    }

    void expire(final PendingRequest request)
    {
        outbound.expire(request);
    }

    /** This lane's pass of an application's range cancel. */
    void cancelRange(final RangeCancel range)
    {
        assert owned() : "lane of " + session.describe() + " used off its context's thread";
        outbound.cancelRange(range);
    }

    @Override
    public void drainWaiting()
    {
        assert owned() : "lane of " + session.describe() + " used off its context's thread";
        outbound.drainWaiting();
        inbound.startParked();
        streams.drainWaiting();
    }

    /** Sends a call's answer on this lane (or another of the session when this one is down). */
    void sendResponse(final ServerCall call, final int status, final Outbound response)
    {
        assert owned() : "lane of " + session.describe() + " used off its context's thread";
        inbound.sendResponse(call, status, response);
    }

    @Override
    public void closedByPeer(final String reason)
    {
        session.closedByPeer(reason);
    }

    @Override
    public void goAwayArrived(final io.xio.engine.GoAway goAway, final XioUri contacted)
    {
        session.drain().arrived(goAway, contacted);
    }

    @Override
    public String describeSession()
    {
        return session.describe();
    }

    // ---- inbound frames ----

    @Override
    public void onFrame(final int type, final Frame frame, final Slab slab)
    {
        assert owned() : "lane of " + session.describe() + " used off its context's thread";
        final boolean peersIdSpace = (frame.flags() & FrameFlags.FROM_ACCEPTOR) != mineFlag;
        final boolean request = type == FrameType.REQUEST || type == FrameType.CANCEL ||
            type == FrameType.DATA_DESCRIPTOR || type == FrameType.RESPONSE_ACK;
        // A stream's frames carry its opener's id space, whichever side sends them.
        final boolean stream = type == FrameType.STREAM_DATA || type == FrameType.CREDIT;
        if (!stream && request != peersIdSpace)
        {
            throw new ProtocolViolationException(FrameType.name(type) + " with a request id of the wrong side " +
                "(flags " + frame.flags() + ") on session " + session.id());
        }
        if ((frame.flags() & FrameFlags.CONTEXT) != 0 &&
            (type == FrameType.REQUEST || type == FrameType.RESPONSE || type == FrameType.STREAM_DATA))
        {
            final String problem = CallContext.check(frame, maxMetadataBytes);
            if (problem != null)
            {
                throw new ProtocolViolationException(problem + " (" + FrameType.name(type) + " " +
                    frame.requestId() + " on session " + session.id() + ")");
            }
        }
        if (state.isClosed())
        {
            whileClosing(type, frame);
            return;
        }
        switch (type)
        {
            case FrameType.DATA_DESCRIPTOR -> fence.onDataDescriptor(frame);
            case FrameType.REQUEST -> inbound.onRequest(frame, slab);
            case FrameType.RESPONSE ->
            {
                if (!streams.onResponse(frame))
                {
                    responses.onResponse(frame, slab);
                }
            }
            case FrameType.STREAM_DATA -> streams.onData(frame, slab);
            case FrameType.CREDIT -> streams.onCredit(frame);
            case FrameType.RECEIPT -> responses.onReceipt(frame);
            case FrameType.CANCEL -> inbound.onCancel(frame);
            case FrameType.CANCEL_RESULT -> responses.onCancelResult(frame);
            case FrameType.RESPONSE_ACK -> inbound.onResponseAck(frame);
            default -> throw new IllegalStateException("not a lane frame: " + type);
        }
    }

    /** Closed but still registered on its connection: only the fences of offered outputs matter now. */
    private void whileClosing(final int type, final Frame frame)
    {
        if (type == FrameType.RESPONSE)
        {
            fence.onLateResponse(frame.requestId());
        }
        else if (type == FrameType.CANCEL_RESULT)
        {
            fence.onCancelAnswered();
        }
        else if (type == FrameType.CANCEL && connection != null)
        {
            // Nothing of a closed session runs any more; the peer may be waiting for this answer as its fence.
            fence.cancelSeen();
            connection.sendCancelResult(frame, 0);
        }
        final Connection c = connection;
        if (!fence.hasOffers() && c != null)
        {
            connection = null;
            if (state == LaneState.CLOSING)
            {
                moveTo(LaneState.CLOSED);
            }
            c.removeLane(session.id(), this);
        }
    }
}
