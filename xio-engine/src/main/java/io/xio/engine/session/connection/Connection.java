package io.xio.engine.session.connection;

import io.xio.engine.ConnectionException;
import io.xio.engine.Outbound;
import io.xio.engine.PeerRefusal;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.SessionEvent;
import io.xio.engine.XioUri;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.session.EngineCore;
import io.xio.engine.session.admission.ByteBudget;
import io.xio.engine.session.admission.PeerCounts;
import io.xio.engine.session.admission.Refusals;
import io.xio.engine.session.admission.StreamAdmission;
import io.xio.engine.transport.LinkHandler;
import io.xio.engine.transport.TransportLink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One transport link carrying frames for one or more sessions (sessions to the same peer share it).
 * Dispatches each inbound frame to the session lane it belongs to ({@link CarriedLane}; set-ups and attaches to
 * its server handshake, {@link ServerSetups}, on the server side); its {@link ConnectionOutput} writes the outbound
 * ones. Owned by one context: only its thread touches it.
 */
public final class Connection implements LinkHandler
{
    private static final Logger LOG = LoggerFactory.getLogger(Connection.class);
    public static final byte[] NO_BODY = new byte[0];

    /** A client-side set-up or attach waiting for its answer. */
    public interface Call
    {
        void onAnswer(Connection connection, Frame frame);

        void onFailed(Connection connection, Throwable cause);
    }

    public final EngineCore engine;
    public final Peers peers;
    public final TransportLink link;
    private final XioUri endpoint;
    private final String key;
    private final PortalImpl portal;
    /** Answers set-ups and attaches: server side only. */
    private final ServerSetups handshake;
    private final CarriedSessions lanes;
    private final HandshakeCalls calls = new HandshakeCalls();
    private final Frame frame = new Frame();
    private final ConnectionOutput output;
    /** Server side: whether a set-up or attach succeeded here; until then only those may come. */
    private boolean handshaken;
    /** When the connection last carried no session (server side): what the handshake timeout measures. */
    private long lanelessSince;
    private long lastReceived;
    private String peerHost;
    /** Frames for sessions never carried here since the last sweep: a few are a race, thousands are a probe. */
    private int strangeFrames;
    static final int MAX_STRANGE_FRAMES = 4096;
    /** Whether this accepted connection may stay, and its place in its portal's and its host's shares. */
    private final ConnectionAdmission admission;
    /** The streams the peer opened on this connection and that are still open: their count is bounded. */
    public final ByteBudget peerStreams;

    /**
     * @param endpoint the address dialled (client side), or null
     * @param key the key the context's registry knows this outbound connection by, or null
     * @param portal the portal (server side), or null
     */
    Connection(final EngineCore engine, final Peers peers, final TransportLink link, final XioUri endpoint,
        final String key, final PortalImpl portal)
    {
        this.engine = engine;
        this.peers = peers;
        this.link = link;
        this.endpoint = endpoint;
        this.key = key;
        this.portal = portal;
        this.handshake = portal == null ? null : engine.serverHandshake(this, portal);
        this.lanes = new CarriedSessions(engine.limits.maxSessionsPerConnection());
        this.admission = portal == null ? null : new ConnectionAdmission(engine.limits, engine.refusals,
            engine.connectionsByPeer, engine.tlsHandshakeFailures, portal, link.remoteAddress(), peerHost());
        this.output = new ConnectionOutput(link, engine.limits, peers.loop, this::refuse);
        this.peerStreams = StreamAdmission.connectionStreams(engine.limits.streams());
        lastReceived = lanelessSince = peers.loop.nanoTime();
    }

    /**
     * Takes this accepted connection's place among its portal's and its host's connections; false (and the
     * connection is to be closed) when either has all the limits allow.
     */
    boolean admit()
    {
        return admission.admit();
    }

    /** The peer's host: what per-peer limits count by. */
    public String peerHost()
    {
        if (peerHost == null)
        {
            peerHost = PeerCounts.hostOf(link.remoteAddress());
        }
        return peerHost;
    }

    void start()
    {
        peers.added(this);
        if (portal != null)
        {
            // A stranger may send only a SETUP or an ATTACH: no frame of it can be larger than a control frame.
            link.limitFrames(io.xio.engine.protocol.Frame.HEADER_LENGTH + engine.limits.maxHeaderBytes());
        }
        link.start(this);
    }

    XioUri endpoint()
    {
        return endpoint;
    }

    String key()
    {
        return key;
    }

    boolean isOpen()
    {
        return output.isOpen();
    }

    long lastReceived()
    {
        return lastReceived;
    }

    long lastSent()
    {
        return output.lastSent();
    }

    /** Whether keepalives go out: not to a peer that has not set up (it has earned no traffic). */
    boolean keptAlive()
    {
        return portal == null || handshaken;
    }

    public String remoteAddress()
    {
        return link.remoteAddress();
    }

    /** How many sessions this connection carries. */
    public int laneCount()
    {
        return lanes.count();
    }

    /** Whether this connection carries session {@code sessionId}. */
    public boolean carries(final long sessionId)
    {
        return lanes.carries(sessionId);
    }

    public void addLane(final long sessionId, final CarriedLane lane)
    {
        lanes.add(sessionId, lane);
        if (!handshaken)
        {
            handshaken = true;
            link.limitFrames(engine.limits.maxMessageBytes());
        }
    }

    public void removeLane(final long sessionId, final CarriedLane lane)
    {
        lanes.remove(sessionId, lane);
        if (lanes.isEmpty())
        {
            lanelessSince = peers.loop.nanoTime();
        }
        releaseIfUnused();
    }

    /**
     * The limits on time, checked by the context's sweep: an accepted connection that carries no session within
     * the handshake timeout, a peer that reads nothing for the write-stall timeout, a frame arriving too slowly.
     */
    void checkTimeouts(final long now)
    {
        link.trim();
        strangeFrames = 0;
        if (handshake != null)
        {
            handshake.newPeriod();
        }
        final io.xio.engine.Limits limits = engine.limits;
        if (portal != null && lanes.isEmpty() && now - lanelessSince > limits.handshakeTimeout().toNanos())
        {
            refuse(PeerRefusal.HANDSHAKE_TIMEOUT, (handshaken ? "no session left on the connection" :
                "no session set up") + " within " + limits.handshakeTimeout());
            return;
        }
        final LinkTimeouts.Violation violation = LinkTimeouts.check(link, limits, now);
        if (violation != null)
        {
            refuse(violation.kind(), violation.why());
        }
    }

    public void refuse(final PeerRefusal kind, final String why)
    {
        close(refusal(kind, why));
    }

    /** Counts and logs (rate-limited) a refusal that closes this connection: the close is not logged again. */
    private Refused refusal(final PeerRefusal kind, final String why)
    {
        engine.refusals.refused(kind, remoteAddress(), why);
        return new Refused("closed connection " + remoteAddress() + ": " + why);
    }

    /** Why a connection was cut off for its peer's behaviour; logged once, by {@link Refusals}. */
    static final class Refused extends ConnectionException
    {
        private static final long serialVersionUID = 1L;

        Refused(final String message)
        {
            super(message);
        }
    }

    /** Whether new frames may be written now (open, and the backlog under the limit). */
    public boolean writable()
    {
        return output.writable();
    }

    /** Encodes a message frame: {@link ConnectionOutput#sendMessage}. */
    public int sendMessage(final int type, final int flags, final long sessionId, final long id, final int status,
        final Outbound message, final long remaining, final io.xio.engine.transport.SendCompletion completion,
        final boolean always)
    {
        return output.sendMessage(type, flags, sessionId, id, status, message, remaining, completion, always);
    }

    /** What streams write on this connection. */
    public StreamOutput streamOutput()
    {
        return output;
    }

    /** Offers {@code into} for the response to request {@code id}; the bytes offered, or -1 (not offered). */
    public int exposeOutput(final int flags, final long sessionId, final long id, final java.nio.ByteBuffer into)
    {
        return output.exposeOutput(flags, sessionId, id, into);
    }

    /** A RESPONSE whose data goes straight into the requester's region: {@link ConnectionOutput#sendInto}. */
    public int sendInto(final int flags, final long sessionId, final long id, final int status, final Outbound message,
        final long address, final int key, final int length, final io.xio.engine.transport.SendCompletion completion)
    {
        return output.sendInto(flags, sessionId, id, status, message, address, key, length, completion);
    }

    /** Answers the CANCEL in {@code cancel}: its range, and how many of its calls were aborted. */
    public void sendCancelResult(final Frame cancel, final int aborted)
    {
        output.sendCancelResult(cancel, aborted);
    }

    /** Whether the frame was queued: not on a closed link, or one without room. */
    public boolean sendControl(final int type, final int flags, final long sessionId, final long id, final int status,
        final byte[] body)
    {
        return output.sendControl(type, flags, sessionId, id, status, body);
    }

    /** Closes an outbound connection nothing uses any more, after writing what is queued (a CLOSE, say). */
    public void releaseIfUnused()
    {
        if (lanes.isEmpty() && calls.onlyLate() && endpoint != null && output.isOpen())
        {
            close(null);
        }
    }

    /** Waits for the answer to a set-up or attach: the token its frame carries. */
    public long call(final Call call)
    {
        return calls.add(call);
    }

    /** A call that timed out: its late answer is ignored (a late acceptance is closed again at once). */
    public void forget(final long token)
    {
        calls.forget(token);
    }

    /** The server accepted a set-up or attach this side no longer wants: close that session there, then let go. */
    public void closeUnwanted(final long sessionId)
    {
        sendControl(FrameType.CLOSE, 0, sessionId, 0, 0,
            new SetupCodec.Writer().string("set-up answered after the client gave up").toBytes());
        releaseIfUnused();
    }

    /** Closes the link; an orderly close (no cause) first writes what is queued, as far as it goes now. */
    public void close(final Throwable cause)
    {
        if (cause == null)
        {
            link.flush();
        }
        link.close(cause);
    }

    @Override
    public void onFrame(final Slab slab, final int offset, final int length)
    {
        lastReceived = peers.loop.nanoTime();
        frame.wrap(slab.buffer(), offset);
        final int type = frame.type();
        if (!handshaken && portal != null && type != FrameType.SETUP && type != FrameType.ATTACH &&
            !FrameType.isHandshakeAnswer(type))
        {
            throw refusal(PeerRefusal.BEFORE_HANDSHAKE, FrameType.name(type) + " before a set-up or attach");
        }
        switch (type)
        {
            case FrameType.REQUEST, FrameType.RESPONSE, FrameType.RECEIPT, FrameType.CANCEL,
                FrameType.CANCEL_RESULT, FrameType.DATA_DESCRIPTOR, FrameType.RESPONSE_ACK, FrameType.STREAM_DATA,
                FrameType.CREDIT -> toLane(type, slab);
            case FrameType.KEEPALIVE ->
            {
            }
            case FrameType.CLOSE -> onSessionClose();
            case FrameType.GOAWAY -> onGoAway();
            case FrameType.SETUP -> serverHandshake().onSetup(frame);
            case FrameType.ATTACH -> serverHandshake().onAttach(frame);
            case FrameType.SETUP_ACCEPT, FrameType.SETUP_REJECT, FrameType.SETUP_REDIRECT,
                FrameType.ATTACH_ACCEPT, FrameType.ATTACH_REJECT -> onAnswer();
            default -> throw new ProtocolViolationException(
                "frame type " + FrameType.name(type) + " is not used on " + engineScheme() + " connections");
        }
    }

    private String engineScheme()
    {
        final String remote = link.remoteAddress();
        final int colon = remote.indexOf(':');
        return colon > 0 ? remote.substring(0, colon) : remote;
    }

    private void toLane(final int type, final Slab slab)
    {
        final CarriedLane lane = lanes.get(frame.sessionId());
        if (lane == null)
        {
            if (!lanes.leftLately(frame.sessionId()))
            {
                // Not a session that ended a moment ago: a confused or probing peer. Dropped, and not for ever.
                if (++strangeFrames > MAX_STRANGE_FRAMES)
                {
                    throw refusal(PeerRefusal.UNKNOWN_SESSION, strangeFrames + " frames for sessions this " +
                        "connection never carried");
                }
                return;
            }
            // A frame for a session closed a moment ago: harmless, dropped. A CANCEL is answered (nothing aborted):
            // nothing of a closed session writes into the canceller's buffers any more, which it waits to hear.
            LOG.debug("dropping {} for unknown session from {}", frame, remoteAddress());
            if (type == FrameType.CANCEL)
            {
                sendCancelResult(frame, 0);
            }
            return;
        }
        lane.onFrame(type, frame, slab);
    }

    private void onAnswer()
    {
        if (portal != null)
        {
            throw new ProtocolViolationException(FrameType.name(frame.type()) + " sent to a server");
        }
        final Call call = calls.take(frame.requestId());
        if (call == null)
        {
            throw new ProtocolViolationException(FrameType.name(frame.type()) + " answers unknown token " +
                frame.requestId());
        }
        call.onAnswer(this, frame);
    }

    private ServerSetups serverHandshake()
    {
        if (handshake == null)
        {
            throw new ProtocolViolationException(FrameType.name(frame.type()) + " sent to a client");
        }
        return handshake;
    }

    private void onSessionClose()
    {
        final CarriedLane lane = lanes.get(frame.sessionId());
        if (lane != null)
        {
            final SetupCodec.Reader body = new SetupCodec.Reader(frame.buffer(), frame.headerOffset(),
                frame.headerLength());
            lane.closedByPeer(body.string());
        }
    }

    /**
     * The server asks a session to go away: read (a malformed body is a violation even for a session not carried
     * here), then the session hears it. A server is never sent one.
     */
    private void onGoAway()
    {
        if (portal != null)
        {
            throw new ProtocolViolationException("GOAWAY sent to a server");
        }
        final io.xio.engine.GoAway goAway = new SetupCodec.Reader(frame.buffer(), frame.headerOffset(),
            frame.headerLength()).goAway();
        final CarriedLane lane = lanes.get(frame.sessionId());
        if (lane != null)
        {
            lane.goAwayArrived(goAway, endpoint);
        }
    }

    @Override
    public void onWritable()
    {
        for (final CarriedLane lane : lanes.lanes())
        {
            lane.drainWaiting();
        }
    }

    @Override
    public void onClosed(final Throwable cause)
    {
        output.closed();
        peers.removed(this);
        if (admission != null)
        {
            admission.release();
        }
        if (admission != null && cause instanceof io.xio.engine.TlsHandshakeException)
        {
            // a stranger that failed the TLS handshake: counted and logged like the other refusals, rate-limited,
            // and against its host's budget of failed handshakes
            admission.handshakeFailed(cause.getMessage());
        }
        else if (cause instanceof ProtocolViolationException)
        {
            LOG.warn("closed connection {}: protocol violation: {}", remoteAddress(), cause.getMessage());
            engine.fire(engine.listener, new SessionEvent(SessionEvent.Type.ERROR, null,
                "closed connection " + remoteAddress() + ": protocol violation: " + cause.getMessage(), cause));
        }
        else if (cause != null && !(cause instanceof Refused) && (!lanes.isEmpty() || !calls.isEmpty()))
        {
            LOG.info("connection {} closed: {}", remoteAddress(), cause.toString());
        }
        else if (cause != null && !(cause instanceof Refused))
        {
            LOG.debug("idle connection {} closed: {}", remoteAddress(), cause.toString());
        }
        final Throwable reason = cause != null ? cause : new ConnectionException("connection to " + remoteAddress() +
            " closed");
        calls.failAll(this, reason);
        for (final CarriedLane lane : lanes.takeAll())
        {
            try
            {
                lane.onConnectionLost(this, reason);
            }
            catch (final RuntimeException ex)
            {
                // one session's failure must not keep the others on this connection from hearing of the loss
                LOG.error("session {} failed on the loss of connection {}", lane.describeSession(), remoteAddress(),
                    ex);
            }
        }
    }
}
