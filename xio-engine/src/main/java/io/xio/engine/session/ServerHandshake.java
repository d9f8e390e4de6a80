package io.xio.engine.session;

import io.xio.engine.ProtocolViolationException;
import io.xio.engine.RequestHandler;
import io.xio.engine.SessionEvent;
import io.xio.engine.SetupDecision;
import io.xio.engine.SetupRequest;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The server side of the handshake on one accepted connection: answers SETUP with the portal's acceptor
 * (accept, reject or redirect) and ATTACH of a further connection to a session accepted before. Its client
 * counterpart is {@link ClientHandshake}. Owned by the connection's context thread.
 */
final class ServerHandshake
{
    private static final Logger LOG = LoggerFactory.getLogger(ServerHandshake.class);
    /** Sessions one connection may carry: bounds what a flood of set-ups can make a server hold. */
    static final int MAX_SESSIONS = 4096;

    private final Connection connection;
    private final EngineCore engine;
    private final PortalImpl portal;

    ServerHandshake(final Connection connection, final PortalImpl portal)
    {
        this.connection = connection;
        this.engine = connection.engine;
        this.portal = portal;
    }

    void onSetup(final Frame frame)
    {
        final long token = frame.requestId();
        final SetupCodec.Reader body = new SetupCodec.Reader(frame.buffer(), frame.headerOffset(),
            frame.headerLength());
        final int hops = body.u8();
        final String resource = body.string();
        final Map<String, String> attributes = body.map();
        final int clientMaxInFlight = body.i32();
        final int clientDedupWindow = body.i32();
        final SetupRequest request = new SetupRequest(resource, attributes, connection.remoteAddress(), portal.uri(),
            hops);
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
        if (decision instanceof SetupDecision.Accept && connection.laneCount() >= MAX_SESSIONS)
        {
            reject(token, "connection from " + connection.remoteAddress() + " carries " + MAX_SESSIONS +
                " sessions already, the most one connection may");
        }
        else if (decision instanceof SetupDecision.Accept accept)
        {
            final RequestHandler handler = engine.services.get(resource);
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
            final Lane lane = session.newServerLane(connection.peers);
            lane.attach(connection);
            connection.sendControl(FrameType.SETUP_ACCEPT, 0, session.id(), token, 0,
                new SetupCodec.Writer().map(accept.attributes()).i32(engine.limits.maxInFlight())
                    .i32(engine.limits.dedupWindow()).toBytes());
            engine.fire(engine.listener, new SessionEvent(SessionEvent.Type.ESTABLISHED, session,
                "accepted session " + session.id() + " for '" + resource + "' from " + connection.remoteAddress(),
                null));
        }
        else if (decision instanceof SetupDecision.Reject reject)
        {
            reject(token, reject.reason());
        }
        else if (decision instanceof SetupDecision.Redirect redirect)
        {
            final List<String> uris = new ArrayList<>();
            redirect.portals().forEach(p -> uris.add(p.endpoint().toString()));
            connection.sendControl(FrameType.SETUP_REDIRECT, 0, 0, token, 0,
                new SetupCodec.Writer().strings(uris).toBytes());
        }
    }

    private void reject(final long token, final String reason)
    {
        connection.sendControl(FrameType.SETUP_REJECT, 0, 0, token, 0,
            new SetupCodec.Writer().string(reason).toBytes());
    }

    void onAttach(final Frame frame)
    {
        final long token = frame.requestId();
        final SessionImpl session = engine.accepted.get(frame.sessionId());
        if (connection.carries(frame.sessionId()))
        {
            throw new ProtocolViolationException("ATTACH of session " + frame.sessionId() +
                " on a connection that carries it already");
        }
        final Lane lane = session == null ? null : session.newServerLane(connection.peers);
        if (lane == null)
        {
            connection.sendControl(FrameType.ATTACH_REJECT, 0, frame.sessionId(), token, 0,
                new SetupCodec.Writer().string("no session " + frame.sessionId() + " at " + portal.uri() +
                    " (the server restarted, or the session expired)").toBytes());
            return;
        }
        lane.attach(connection);
        connection.sendControl(FrameType.ATTACH_ACCEPT, 0, session.id(), token, 0, Connection.NO_BODY);
    }
}
