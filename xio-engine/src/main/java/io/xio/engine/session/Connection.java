package io.xio.engine.session;

import io.xio.engine.ConnectionException;
import io.xio.engine.Outbound;
import io.xio.engine.PeerRefusal;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.SessionEvent;
import io.xio.engine.XioUri;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameEncoder;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.transport.LinkHandler;
import io.xio.engine.transport.TransportLink;
import org.agrona.collections.Long2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * One transport link carrying frames for one or more sessions (sessions to the same peer share it).
 * Dispatches each inbound frame to the session lane it belongs to (set-ups and attaches to its
 * {@link ServerHandshake} on the server side), and encodes outbound frames. Owned by one context: only its thread
 * touches it.
 */
final class Connection implements LinkHandler
{
    private static final Logger LOG = LoggerFactory.getLogger(Connection.class);
    static final byte[] NO_BODY = new byte[0];

    /** A client-side set-up or attach waiting for its answer. */
    interface Call
    {
        void onAnswer(Connection connection, Frame frame);

        void onFailed(Connection connection, Throwable cause);
    }

    final EngineCore engine;
    final Peers peers;
    final TransportLink link;
    private final XioUri endpoint;
    private final String key;
    private final PortalImpl portal;
    /** Answers set-ups and attaches: server side only. */
    private final ServerHandshake handshake;
    private final Long2ObjectHashMap<Lane> lanes = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<Call> calls = new Long2ObjectHashMap<>();
    private final Frame frame = new Frame();
    private final FrameEncoder encoder = new FrameEncoder();
    private long nextToken;
    private boolean open = true;
    /** Too much unsent for the peer: closing at the next turn, sends refused until then. */
    private boolean overflowed;
    /** Server side: whether a set-up or attach succeeded here; until then only those may come. */
    private boolean handshaken;
    /** When the connection last carried no session (server side): what the handshake timeout measures. */
    private long lanelessSince;
    private long lastReceived;
    private long lastSent;
    private String peerHost;
    /**
     * The sessions that left this connection last, as many as it may carry (allocated when the first one leaves):
     * their late frames are expected, others' are not. Session ids are positive, so -1 marks an empty slot.
     */
    private long[] ended;
    private int endedNext;
    /** Frames for sessions never carried here since the last sweep: a few are a race, thousands are a probe. */
    private int strangeFrames;
    static final int MAX_STRANGE_FRAMES = 4096;
    /** How long a peer over the unsent limit may go without reading anything before it is cut off. */
    static final long UNSENT_GRACE_NANOS = 1_000_000_000L;
    /** Whether this accepted connection counts against its portal's and its host's shares. */
    private boolean counted;

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
        this.handshake = portal == null ? null : new ServerHandshake(this, portal);
        lastReceived = lastSent = lanelessSince = peers.loop.nanoTime();
    }

    /**
     * Takes this accepted connection's place among its portal's and its host's connections; false (and the
     * connection is to be closed) when either has all the limits allow.
     */
    boolean admit()
    {
        if (!handshakesAllowed())
        {
            return false;
        }
        final io.xio.engine.Limits limits = engine.limits;
        if (!portal.tryAddConnection(limits.maxConnectionsPerPortal()))
        {
            engine.refusals.refused(PeerRefusal.CONNECTION_LIMIT, remoteAddress(), "connection over the limit of " +
                limits.maxConnectionsPerPortal() + " on " + portal.uri());
            return false;
        }
        if (!engine.connectionsByPeer.tryAcquire(peerHost(), limits.maxConnectionsPerPeer()))
        {
            portal.removeConnection();
            engine.refusals.refused(PeerRefusal.CONNECTION_LIMIT, remoteAddress(), "connection over the limit of " +
                limits.maxConnectionsPerPeer() + " from " + peerHost());
            return false;
        }
        counted = true;
        return true;
    }

    /**
     * Whether the peer's host may have this connection, as far as its failed TLS handshakes go: a host that failed
     * too many lately is closed before any handshake work, and counted as {@link PeerRefusal#TLS_HANDSHAKE} (logged
     * once an interval).
     */
    private boolean handshakesAllowed()
    {
        final AuthenticationFailures.Verdict verdict = engine.tlsHandshakeFailures.check(handshakeFailuresKey());
        if (verdict == AuthenticationFailures.Verdict.REFUSE_FIRST)
        {
            engine.refusals.refused(PeerRefusal.TLS_HANDSHAKE, remoteAddress(), "connection closed before its " +
                "handshake: " + peerHost() + " failed " + EngineCore.TLS_HANDSHAKE_FAILURES + " TLS handshakes at " +
                portal.uri().endpoint() + " within " + EngineCore.TLS_HANDSHAKE_FAILURE_INTERVAL_NANOS /
                1_000_000_000L + " s (further ones not logged)");
        }
        else if (verdict == AuthenticationFailures.Verdict.REFUSE)
        {
            engine.refusals.counted(PeerRefusal.TLS_HANDSHAKE);
        }
        return verdict == AuthenticationFailures.Verdict.ASK;
    }

    /** Failed handshakes count per portal and host (an IPv6 host as its /64), as failed authentications do. */
    private String handshakeFailuresKey()
    {
        return AuthenticationFailures.key(portal.uri().endpoint().toString(), peerHost());
    }

    /** The peer's host: what per-peer limits count by. */
    String peerHost()
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
        return open;
    }

    long lastReceived()
    {
        return lastReceived;
    }

    long lastSent()
    {
        return lastSent;
    }

    /** Whether keepalives go out: not to a peer that has not set up (it has earned no traffic). */
    boolean keptAlive()
    {
        return portal == null || handshaken;
    }

    String remoteAddress()
    {
        return link.remoteAddress();
    }

    /** Whether new frames may be written now (open, and the backlog under the limit). */
    boolean writable()
    {
        if (!open || overflowed)
        {
            return false;
        }
        if (link.backlog() <= engine.limits.maxQueuedBytes())
        {
            return true;
        }
        link.notifyWhenWritable();
        return false;
    }

    /** How many sessions this connection carries. */
    int laneCount()
    {
        return lanes.size();
    }

    /** Whether this connection carries session {@code sessionId}, or did until a moment ago. */
    private boolean carried(final long sessionId)
    {
        if (ended == null)
        {
            return false;
        }
        for (final long id : ended)
        {
            if (id == sessionId)
            {
                return true;
            }
        }
        return false;
    }

    /** Whether this connection carries session {@code sessionId}. */
    boolean carries(final long sessionId)
    {
        return lanes.containsKey(sessionId);
    }

    void addLane(final long sessionId, final Lane lane)
    {
        lanes.put(sessionId, lane);
        if (!handshaken)
        {
            handshaken = true;
            link.limitFrames(engine.limits.maxMessageBytes());
        }
    }

    void removeLane(final long sessionId, final Lane lane)
    {
        if (lanes.remove(sessionId, lane))
        {
            if (ended == null)
            {
                ended = new long[engine.limits.maxSessionsPerConnection()];
                java.util.Arrays.fill(ended, -1);
            }
            ended[endedNext] = sessionId;
            endedNext = (endedNext + 1) % ended.length;
        }
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
        final long stalled = now - link.lastWriteProgressNanos();
        if (link.backlog() > 0 && stalled > limits.writeStallTimeout().toNanos())
        {
            refuse(PeerRefusal.WRITE_STALL, "the peer read nothing of " + link.backlog() + " unsent bytes for " +
                limits.writeStallTimeout());
            return;
        }
        if (link.releasesStuck())
        {
            refuse(PeerRefusal.SHARED_RELEASE, "the peer read none of our last releases of its shared memory");
            return;
        }
        final long lent = link.lentSince(now);
        if (lent != 0 && now - lent > limits.writeStallTimeout().toNanos())
        {
            refuse(PeerRefusal.SHARED_RELEASE, "the peer kept a message in our shared memory open for over " +
                limits.writeStallTimeout());
            return;
        }
        final long since = link.incompleteFrameSince();
        final long age = now - since;
        if (since != 0 && age > limits.incompleteFrameTimeout().toNanos() &&
            link.incompleteFrameBytes() * 1_000_000_000L / age < limits.minReceiveRate())
        {
            refuse(PeerRefusal.SLOW_FRAME, "a frame arriving at " + link.incompleteFrameBytes() * 1_000_000_000L / age +
                " bytes/s after " + java.time.Duration.ofNanos(age) + ", under the minimum of " +
                limits.minReceiveRate());
        }
    }

    void refuse(final PeerRefusal kind, final String why)
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

    /**
     * Before a send: a peer that lets more than the limit pile up and reads nothing for a while is cut off (at the
     * next turn, not mid-send). The largest message waiting does not count (one message of any legal size always
     * fits), nor does a backlog the peer is reading: answers to calls started before the backlog grew may exceed
     * the limit for a moment when they are large; it is a peer that stops reading that must not cost more.
     */
    private void checkUnsent()
    {
        final long limit = engine.limits.maxUnsentBytes();
        final long backlog = link.backlog();
        if (!overflowed && backlog > limit &&
            peers.loop.nanoTime() - link.lastWriteProgressNanos() > UNSENT_GRACE_NANOS &&
            backlog - link.largestPending() > limit)
        {
            overflowed = true;
            peers.loop.execute(() -> refuse(PeerRefusal.UNSENT_LIMIT, link.backlog() + " bytes unsent, over " +
                "the limit of " + engine.limits.maxUnsentBytes() + ": the peer reads too slowly"));
        }
    }

    /** Closes an outbound connection nothing uses any more, after writing what is queued (a CLOSE, say). */
    void releaseIfUnused()
    {
        if (lanes.isEmpty() && onlyLateCalls() && endpoint != null && open)
        {
            close(null);
        }
    }

    private boolean onlyLateCalls()
    {
        for (final Call call : calls.values())
        {
            if (call != LATE)
            {
                return false;
            }
        }
        return true;
    }

    long call(final Call call)
    {
        final long token = ++nextToken;
        calls.put(token, call);
        return token;
    }

    /** A call that timed out: its late answer is ignored (a late acceptance is closed again at once). */
    void forget(final long token)
    {
        if (calls.containsKey(token))
        {
            calls.put(token, LATE);
        }
    }

    /** The server accepted a set-up or attach this side no longer wants: close that session there, then let go. */
    void closeUnwanted(final long sessionId)
    {
        sendControl(FrameType.CLOSE, 0, sessionId, 0, 0,
            new SetupCodec.Writer().string("set-up answered after the client gave up").toBytes());
        releaseIfUnused();
    }

    private static final Call LATE = new Call()
    {
        @Override
        public void onAnswer(final Connection connection, final Frame frame)
        {
            if (frame.type() == FrameType.SETUP_ACCEPT || frame.type() == FrameType.ATTACH_ACCEPT)
            {
                connection.closeUnwanted(frame.sessionId());
                return;
            }
            connection.releaseIfUnused();
        }

        @Override
        public void onFailed(final Connection connection, final Throwable cause)
        {
        }
    };

    /**
     * Encodes a message frame, with a call context when {@code remaining} (a REQUEST's deadline, else
     * {@code CallContext.NO_DEADLINE}) or the message's metadata ask for one; returns {@link FrameEncoder#NO_ROOM},
     * {@code QUEUED} or {@code COPIED}.
     */
    int sendMessage(final int type, final int flags, final long sessionId, final long id, final int status,
        final Outbound message, final long remaining, final io.xio.engine.transport.SendCompletion completion,
        final boolean always)
    {
        if (!open || overflowed)
        {
            return FrameEncoder.NO_ROOM;
        }
        checkUnsent();
        lastSent = peers.loop.nanoTime();
        return encoder.encode(link, type, flags, sessionId, id, status, message, remaining, completion, always);
    }

    /** Offers {@code output} for the response to request {@code id}; the bytes offered, or -1 (not offered). */
    int exposeOutput(final int flags, final long sessionId, final long id, final java.nio.ByteBuffer output)
    {
        return open ? encoder.exposeOutput(link, flags, sessionId, id, output) : -1;
    }

    /** A RESPONSE whose data goes straight into the requester's region: {@link FrameEncoder#encodeInto}. */
    int sendInto(final int flags, final long sessionId, final long id, final int status, final Outbound message,
        final long address, final int key, final int length, final io.xio.engine.transport.SendCompletion completion)
    {
        if (!open || overflowed)
        {
            return FrameEncoder.NO_ROOM;
        }
        checkUnsent();
        final int result = encoder.encodeInto(link, flags, sessionId, id, status, message, address, key, length,
            completion);
        if (result != FrameEncoder.NOT_WRITABLE)
        {
            lastSent = peers.loop.nanoTime();
        }
        return result;
    }

    /** Answers the CANCEL in {@code cancel}: its range, and how many of its calls were aborted. */
    void sendCancelResult(final Frame cancel, final int aborted)
    {
        final long last = new SetupCodec.Reader(cancel.buffer(), cancel.headerOffset(), cancel.headerLength()).i64();
        sendControl(FrameType.CANCEL_RESULT, cancel.flags() & FrameFlags.FROM_ACCEPTOR, cancel.sessionId(),
            cancel.requestId(), 0, new SetupCodec.Writer().i64(last).i32(aborted).toBytes());
    }

    /** Whether the frame was queued: not on a closed link, or one without room. */
    boolean sendControl(final int type, final int flags, final long sessionId, final long id, final int status,
        final byte[] body)
    {
        if (open && !overflowed)
        {
            checkUnsent();
            lastSent = peers.loop.nanoTime();
            return encoder.encodeControl(link, type, flags, sessionId, id, status, body);
        }
        return false;
    }

    /** Closes the link; an orderly close (no cause) first writes what is queued, as far as it goes now. */
    void close(final Throwable cause)
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
                FrameType.CANCEL_RESULT, FrameType.DATA_DESCRIPTOR, FrameType.RESPONSE_ACK -> toLane(type, slab);
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
        final Lane lane = lanes.get(frame.sessionId());
        if (lane == null)
        {
            if (!carried(frame.sessionId()))
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
        final Call call = calls.remove(frame.requestId());
        if (call == null)
        {
            throw new ProtocolViolationException(FrameType.name(frame.type()) + " answers unknown token " +
                frame.requestId());
        }
        call.onAnswer(this, frame);
    }

    private ServerHandshake serverHandshake()
    {
        if (handshake == null)
        {
            throw new ProtocolViolationException(FrameType.name(frame.type()) + " sent to a client");
        }
        return handshake;
    }

    private void onSessionClose()
    {
        final Lane lane = lanes.get(frame.sessionId());
        if (lane != null)
        {
            final SetupCodec.Reader body = new SetupCodec.Reader(frame.buffer(), frame.headerOffset(),
                frame.headerLength());
            lane.session.closedByPeer(body.string());
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
        final Lane lane = lanes.get(frame.sessionId());
        if (lane != null)
        {
            lane.session.drain.arrived(goAway, endpoint);
        }
    }

    @Override
    public void onWritable()
    {
        for (final Lane lane : lanes.values())
        {
            lane.drainWaiting();
        }
    }

    @Override
    public void onClosed(final Throwable cause)
    {
        open = false;
        peers.removed(this);
        if (counted)
        {
            counted = false;
            portal.removeConnection();
            engine.connectionsByPeer.release(peerHost());
        }
        if (portal != null && cause instanceof io.xio.engine.TlsHandshakeException)
        {
            // a stranger that failed the TLS handshake: counted and logged like the other refusals, rate-limited,
            // and against its host's budget of failed handshakes
            engine.tlsHandshakeFailures.failed(handshakeFailuresKey());
            engine.refusals.refused(PeerRefusal.TLS_HANDSHAKE, remoteAddress(), cause.getMessage());
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
        final List<Call> waiting = new ArrayList<>(calls.values());
        calls.clear();
        waiting.forEach(call -> call.onFailed(this, reason));
        final List<Lane> carried = new ArrayList<>(lanes.values());
        lanes.clear();
        for (final Lane lane : carried)
        {
            try
            {
                lane.onConnectionLost(this, reason);
            }
            catch (final RuntimeException ex)
            {
                // one session's failure must not keep the others on this connection from hearing of the loss
                LOG.error("session {} failed on the loss of connection {}", lane.session.describe(), remoteAddress(),
                    ex);
            }
        }
    }
}
