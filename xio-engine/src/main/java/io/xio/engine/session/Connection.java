package io.xio.engine.session;

import io.xio.engine.ConnectionException;
import io.xio.engine.Outbound;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.SessionEvent;
import io.xio.engine.SetupDecision;
import io.xio.engine.SetupRequest;
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
import java.util.Map;

/**
 * One transport link carrying frames for one or more sessions (S3: sessions to the same peer share it).
 * Dispatches each inbound frame to the session lane it belongs to, answers set-up and attach requests on
 * the server side, and encodes outbound frames. Owned by one context: only its thread touches it.
 */
final class Connection implements LinkHandler
{
    private static final Logger LOG = LoggerFactory.getLogger(Connection.class);
    static final byte[] NO_BODY = new byte[0];
    /** Sessions one connection may carry: bounds what a flood of set-ups can make a server hold. */
    static final int MAX_SESSIONS = 4096;

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
    private final Long2ObjectHashMap<Lane> lanes = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<Call> calls = new Long2ObjectHashMap<>();
    private final Frame frame = new Frame();
    private final FrameEncoder encoder = new FrameEncoder();
    private long nextToken;
    private boolean open = true;
    private long lastReceived;
    private long lastSent;

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
        lastReceived = lastSent = peers.loop.nanoTime();
    }

    void start()
    {
        peers.added(this);
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

    String remoteAddress()
    {
        return link.remoteAddress();
    }

    /** Whether new frames may be written now (open, and the backlog under the limit). */
    boolean writable()
    {
        if (!open)
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

    void addLane(final long sessionId, final Lane lane)
    {
        lanes.put(sessionId, lane);
    }

    void removeLane(final long sessionId, final Lane lane)
    {
        lanes.remove(sessionId, lane);
        releaseIfUnused();
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

    private static final Call LATE = new Call()
    {
        @Override
        public void onAnswer(final Connection connection, final Frame frame)
        {
            if (frame.type() == FrameType.SETUP_ACCEPT || frame.type() == FrameType.ATTACH_ACCEPT)
            {
                connection.sendControl(FrameType.CLOSE, 0, frame.sessionId(), 0, 0,
                    new SetupCodec.Writer().string("set-up answered after the client gave up").toBytes());
            }
            connection.releaseIfUnused();
        }

        @Override
        public void onFailed(final Connection connection, final Throwable cause)
        {
        }
    };

    /** Encodes a message frame; returns {@link FrameEncoder#NO_ROOM}, {@code QUEUED} or {@code COPIED}. */
    int sendMessage(final int type, final int flags, final long sessionId, final long id, final int status,
        final Outbound message, final io.xio.engine.transport.SendCompletion completion, final boolean always)
    {
        if (!open)
        {
            return FrameEncoder.NO_ROOM;
        }
        lastSent = peers.loop.nanoTime();
        return encoder.encode(link, type, flags, sessionId, id, status, message, completion, always);
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
        if (!open)
        {
            return FrameEncoder.NO_ROOM;
        }
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
        if (open)
        {
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
        switch (type)
        {
            case FrameType.REQUEST, FrameType.RESPONSE, FrameType.RECEIPT, FrameType.CANCEL,
                FrameType.CANCEL_RESULT, FrameType.DATA_DESCRIPTOR -> toLane(type, slab);
            case FrameType.KEEPALIVE ->
            {
            }
            case FrameType.CLOSE -> onSessionClose();
            case FrameType.SETUP -> onSetup();
            case FrameType.ATTACH -> onAttach();
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

    private void requireServer()
    {
        if (portal == null)
        {
            throw new ProtocolViolationException(FrameType.name(frame.type()) + " sent to a client");
        }
    }

    private void onSetup()
    {
        requireServer();
        final long token = frame.requestId();
        final SetupCodec.Reader body = new SetupCodec.Reader(frame.buffer(), frame.headerOffset(), frame.headerLength());
        final int hops = body.u8();
        final String resource = body.string();
        final Map<String, String> attributes = body.map();
        final int clientMaxInFlight = body.i32();
        final int clientDedupWindow = body.i32();
        final SetupRequest request = new SetupRequest(resource, attributes, remoteAddress(), portal.uri(), hops);
        SetupDecision decision;
        try
        {
            decision = portal.acceptor().onSetup(request);
            if (decision == null)
            {
                decision = SetupDecision.reject("the acceptor of " + portal.uri() + " gave no decision");
            }
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("acceptor of {} failed on {}", portal.uri(), request, ex);
            decision = SetupDecision.reject("the acceptor of " + portal.uri() + " failed: " + ex);
        }
        if (decision instanceof SetupDecision.Accept && lanes.size() >= MAX_SESSIONS)
        {
            reject(token, "connection from " + remoteAddress() + " carries " + MAX_SESSIONS +
                " sessions already, the most one connection may");
        }
        else if (decision instanceof SetupDecision.Accept accept)
        {
            final io.xio.engine.RequestHandler handler = engine.services.get(resource);
            if (handler == null)
            {
                reject(token, "no service '" + resource + "' at " + portal.uri() + "; it has " +
                    engine.services.keySet());
                return;
            }
            final SessionImpl session = SessionImpl.accepted(engine, engine.newSessionId(),
                portal.uri().withResource(resource), resource, attributes, handler);
            session.limitTo(clientMaxInFlight, clientDedupWindow);
            engine.accepted.put(session.id(), session);
            final Lane lane = session.newServerLane(peers);
            lane.attach(this);
            sendControl(FrameType.SETUP_ACCEPT, 0, session.id(), token, 0,
                new SetupCodec.Writer().map(accept.attributes()).i32(engine.limits.maxInFlight())
                    .i32(engine.limits.dedupWindow()).toBytes());
            engine.fire(engine.listener, new SessionEvent(SessionEvent.Type.ESTABLISHED, session,
                "accepted session " + session.id() + " for '" + resource + "' from " + remoteAddress(), null));
        }
        else if (decision instanceof SetupDecision.Reject reject)
        {
            reject(token, reject.reason());
        }
        else if (decision instanceof SetupDecision.Redirect redirect)
        {
            final List<String> uris = new ArrayList<>();
            redirect.portals().forEach(p -> uris.add(p.endpoint().toString()));
            sendControl(FrameType.SETUP_REDIRECT, 0, 0, token, 0, new SetupCodec.Writer().strings(uris).toBytes());
        }
    }

    private void reject(final long token, final String reason)
    {
        sendControl(FrameType.SETUP_REJECT, 0, 0, token, 0, new SetupCodec.Writer().string(reason).toBytes());
    }

    private void onAttach()
    {
        requireServer();
        final long token = frame.requestId();
        final SessionImpl session = engine.accepted.get(frame.sessionId());
        if (lanes.containsKey(frame.sessionId()))
        {
            throw new ProtocolViolationException("ATTACH of session " + frame.sessionId() +
                " on a connection that carries it already");
        }
        final Lane lane = session == null ? null : session.newServerLane(peers);
        if (lane == null)
        {
            sendControl(FrameType.ATTACH_REJECT, 0, frame.sessionId(), token, 0,
                new SetupCodec.Writer().string("no session " + frame.sessionId() + " at " + portal.uri() +
                    " (the server restarted, or the session expired)").toBytes());
            return;
        }
        lane.attach(this);
        sendControl(FrameType.ATTACH_ACCEPT, 0, session.id(), token, 0, NO_BODY);
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
        if (cause instanceof ProtocolViolationException)
        {
            LOG.warn("closed connection {}: protocol violation: {}", remoteAddress(), cause.getMessage());
            engine.fire(engine.listener, new SessionEvent(SessionEvent.Type.ERROR, null,
                "closed connection " + remoteAddress() + ": protocol violation: " + cause.getMessage(), cause));
        }
        else if (cause != null && (!lanes.isEmpty() || !calls.isEmpty()))
        {
            LOG.info("connection {} closed: {}", remoteAddress(), cause.toString());
        }
        else if (cause != null)
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
        carried.forEach(lane -> lane.onConnectionLost(this, reason));
    }
}
