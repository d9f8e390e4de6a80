package io.xio.engine.session.handshake;

import io.xio.engine.Credentials;
import io.xio.engine.Limits;
import io.xio.engine.PeerRefusal;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.RequestHandler;
import io.xio.engine.SessionEvent;
import io.xio.engine.SetupDecision;
import io.xio.engine.SetupRequest;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.session.EngineCore;
import io.xio.engine.session.SessionIdentity;
import io.xio.engine.session.SessionImpl;
import io.xio.engine.session.admission.AuthenticationFailures;
import io.xio.engine.session.admission.CallAdmission;
import io.xio.engine.session.admission.Principals;
import io.xio.engine.session.call.Lane;
import io.xio.engine.session.connection.Connection;
import io.xio.engine.session.connection.PortalImpl;
import io.xio.engine.session.connection.ServerSetups;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The server side of the handshake on one accepted connection: answers SETUP with the portal's acceptor
 * (accept, reject or redirect) within the engine's session limits, and ATTACH of a further connection to a
 * session accepted before, if it shows that session's secret. Reasons sent back say what went wrong but name
 * nothing of the server's (its resources, its limits); details go to the log. Its client counterpart is
 * {@link ClientHandshake}. Owned by the connection's context thread.
 */
public final class ServerHandshake implements ServerSetups
{
    private static final Logger LOG = LoggerFactory.getLogger(ServerHandshake.class);
    /** Longest reason sent back: an acceptor's reason is the application's, but it must not echo unbounded input. */
    static final int MAX_REASON_BYTES = 512;
    /** Failed set-ups and attaches one connection may make between two sweeps of the connections. */
    static final int MAX_FAILED = 16;
    /** Most connection portals a session is given: the client keeps them and tries them in turn. */
    static final int MAX_CONNECTION_PORTALS = 16;
    static final String NO_SERVICE = "no such service at this portal";
    static final String NO_SESSION = "no such session, or not yours (the server restarted, or the session expired)";
    static final String UNAUTHENTICATED = "authentication failed";
    static final String BUSY = "the server takes no more sessions from this peer now";
    static final String DRAINING = "the server is draining: it takes no new sessions";
    static final String PORTAL_CLOSED = "the portal is closed: it takes no new sessions";

    private final Connection connection;
    private final EngineCore engine;
    private final PortalImpl portal;
    private int failed;

    public ServerHandshake(final Connection connection, final PortalImpl portal)
    {
        this.connection = connection;
        this.engine = connection.engine;
        this.portal = portal;
    }

    @Override
    public void onSetup(final Frame frame)
    {
        final long token = frame.requestId();
        final SetupCodec.Reader body = new SetupCodec.Reader(frame.buffer(), frame.headerOffset(),
            frame.headerLength());
        final int hops = body.u8();
        final String resource = body.string();
        final Map<String, String> attributes = body.map();
        final int clientMaxInFlight = body.i32();
        final int clientDedupWindow = body.i32();
        final CallAdmission.Announced clientSizes = CallAdmission.Announced.read(body);
        // A SETUP of a client from before credentials ends here: it presents none.
        final Credentials credentials = body.remaining() > 0 ? body.credentials() : Credentials.NONE;
        // A SETUP of a client from before the features field ends here: it knows none of them (no GOAWAY).
        final int features = body.remaining() > 0 ? body.u8() : 0;
        if (!portal.isOpen())
        {
            // The connection came before the portal closed; the portal takes no session since. Answered as a
            // draining server is, so that the client looks elsewhere.
            connection.sendControl(FrameType.SETUP_REJECT, 0, 0, token, 0,
                new SetupCodec.Writer().string(PORTAL_CLOSED).u8(SetupCodec.REJECT_DRAINING).toBytes());
            return;
        }
        if (engine.drain.refuses(resource))
        {
            // Before the acceptor: a draining server spends nothing on a session it will not have. Not a failure of
            // the peer's (its retries elsewhere are what the code is for), so not counted toward closing it.
            connection.sendControl(FrameType.SETUP_REJECT, 0, 0, token, 0,
                new SetupCodec.Writer().string(DRAINING).u8(SetupCodec.REJECT_DRAINING).toBytes());
            return;
        }
        final String host = connection.peerHost();
        final String failuresKey = AuthenticationFailures.key(portal.uri().endpoint().toString(), host);
        final Limits limits = engine.limits;
        final AuthenticationFailures.Verdict verdict = engine.authenticationFailures.check(failuresKey);
        if (verdict != AuthenticationFailures.Verdict.ASK)
        {
            // Refused unasked: the acceptor (an identity provider's round trip, a password hash) is not a host's to
            // spend on guesses. Logged once an interval; the log is rate-limited per host besides.
            if (verdict == AuthenticationFailures.Verdict.REFUSE_FIRST)
            {
                engine.refusals.refused(PeerRefusal.AUTHENTICATION, connection.remoteAddress(), "set-up for '" +
                    excerpt(resource) + "' refused without asking the acceptor: " + host + " failed to " +
                    "authenticate " + limits.maxAuthenticationFailuresPerHost() + " times at " + portal.uri() +
                    " within " + limits.authenticationFailureInterval() + " (further ones not logged)");
            }
            else
            {
                engine.refusals.counted(PeerRefusal.AUTHENTICATION);
            }
            reject(token, UNAUTHENTICATED, SetupCodec.REJECT_AUTHENTICATION);
            return;
        }
        final SetupRequest request = new SetupRequest(resource, attributes, connection.remoteAddress(), portal.uri(),
            hops, credentials, connection.link.peerIdentity());
        SetupDecision decision;
        try
        {
            decision = portal.acceptor().onSetup(request);
            if (decision == null)
            {
                LOG.warn("the acceptor of {} gave no decision on {}", portal.uri(), request);
                decision = SetupDecision.reject("the server gave no decision");
            }
        }
        catch (final RuntimeException ex)
        {
            // Bad credentials (a JwtDecoder's BadJwtException) or a bug: either way it counts toward the host's
            // failures, or a throwing acceptor would let a host guess without limit; and its stack trace is logged
            // at most once a second per host, or a peer could flood the log with it.
            unauthenticated(token, resource, credentials, host, failuresKey, "the acceptor threw " + ex, ex);
            return;
        }
        if (decision instanceof SetupDecision.Accept accept)
        {
            accept(token, resource, attributes, accept, clientMaxInFlight, clientDedupWindow, clientSizes, features);
        }
        else if (decision instanceof SetupDecision.Unauthenticated unauthenticated)
        {
            unauthenticated(token, resource, credentials, host, failuresKey, unauthenticated.detail(), null);
        }
        else if (decision instanceof SetupDecision.Reject reject)
        {
            reject(token, bounded(reject.reason()));
        }
        else if (decision instanceof SetupDecision.Redirect redirect)
        {
            final List<String> uris = new ArrayList<>();
            redirect.portals().forEach(p -> uris.add(p.endpoint().toString()));
            connection.sendControl(FrameType.SETUP_REDIRECT, 0, 0, token, 0,
                new SetupCodec.Writer().strings(uris).toBytes());
        }
    }

    /** The acceptor said unauthenticated, or threw ({@code cause}): counted toward the host's failures, refused. */
    private void unauthenticated(final long token, final String resource, final Credentials credentials,
        final String host, final String failuresKey, final String detail, final Throwable cause)
    {
        final Limits limits = engine.limits;
        final boolean usedUp = engine.authenticationFailures.failed(failuresKey);
        engine.refusals.refused(PeerRefusal.AUTHENTICATION, connection.remoteAddress(), "set-up for '" +
            excerpt(resource) + "' at " + portal.uri() + " not authenticated (" + credentials + "): " + detail +
            (usedUp ? "; " + host + " failed " + limits.maxAuthenticationFailuresPerHost() + " times now, its " +
            "set-ups there are refused unasked for the rest of " + limits.authenticationFailureInterval() : ""),
            cause);
        reject(token, UNAUTHENTICATED, SetupCodec.REJECT_AUTHENTICATION);
    }

    private void accept(final long token, final String resource, final Map<String, String> attributes,
        final SetupDecision.Accept accept, final int clientMaxInFlight, final int clientDedupWindow,
        final CallAdmission.Announced clientSizes, final int features)
    {
        final RequestHandler handler = engine.services.get(resource);
        if (handler == null)
        {
            engine.refusals.refused(PeerRefusal.UNKNOWN_SERVICE, connection.remoteAddress(), "set-up for '" +
                excerpt(resource) + "', which " + portal.uri() + " does not serve; it has " +
                engine.services.keySet());
            reject(token, NO_SERVICE);
            return;
        }
        final Limits limits = engine.limits;
        final String host = connection.peerHost();
        final java.security.Principal principal = accept.principal();
        final String full = connection.laneCount() >= limits.maxSessionsPerConnection() ?
            limits.maxSessionsPerConnection() + " sessions on this connection" :
            engine.accepted.size() >= limits.maxSessions() ? limits.maxSessions() + " sessions in this engine" :
            null;
        if (full != null || !engine.sessionsByPeer.tryAcquire(host, limits.maxSessionsPerPeer()))
        {
            engine.refusals.refused(PeerRefusal.SESSION_LIMIT, connection.remoteAddress(), "set-up over the limit " +
                "of " + (full != null ? full : limits.maxSessionsPerPeer() + " sessions from " + host));
            reject(token, BUSY);
            return;
        }
        final String principalName;
        try
        {
            principalName = principal == null ? null : String.valueOf(principal.getName());
        }
        catch (final RuntimeException ex)
        {
            engine.sessionsByPeer.release(host); // the principal is the application's code: it may throw
            engine.refusals.refused(PeerRefusal.AUTHENTICATION, connection.remoteAddress(), "set-up for '" +
                excerpt(resource) + "' accepted with a principal whose getName() threw " + ex, ex);
            reject(token, "the server failed to decide");
            return;
        }
        final Principals.Share share = principalName == null ? null :
            engine.principals.tryAcquire(principalName, limits.maxSessionsPerPrincipal());
        if (principalName != null && share == null)
        {
            engine.sessionsByPeer.release(host);
            engine.refusals.refused(PeerRefusal.SESSION_LIMIT, connection.remoteAddress(), "set-up over the limit " +
                "of " + limits.maxSessionsPerPrincipal() + " sessions of principal '" + excerpt(principalName) + "'");
            reject(token, BUSY);
            return;
        }
        final SessionImpl session = SessionImpl.accepted(engine, engine.newSessionId(),
            portal.uri().withResource(resource), resource, attributes, handler);
        session.identity.peerHost = host;
        session.identity.peerIdentity = connection.link.peerIdentity();
        session.identity.portal = portal;
        session.identity.principal = principal;
        session.identity.principalShare = share;
        session.identity.connectionPortals = connectionPortals(accept.connectionPortals());
        session.limitTo(clientMaxInFlight, clientDedupWindow);
        session.admission.limitSizesTo(clientSizes);
        session.drain.peerUnderstandsGoAway((features & SetupCodec.FEATURE_GOAWAY) != 0);
        session.identity.streams = (features & SetupCodec.FEATURE_STREAMS) != 0;
        engine.accepted.put(session.id(), session);
        if (engine.drain.drainingAfterRegistering(resource))
        {
            // A drain began since the check above, perhaps already finding no session and completing: registered
            // first, so that either the drain saw this one or this sees the drain; refused like any set-up then.
            engine.forgetAccepted(session);
            connection.sendControl(FrameType.SETUP_REJECT, 0, 0, token, 0,
                new SetupCodec.Writer().string(DRAINING).u8(SetupCodec.REJECT_DRAINING).toBytes());
            return;
        }
        final Lane lane = session.newServerLane(connection.peers);
        lane.attach(connection);
        final List<String> portals = new ArrayList<>(session.identity.connectionPortals.size());
        session.identity.connectionPortals.forEach(p -> portals.add(p.uri().endpoint().toString()));
        connection.sendControl(FrameType.SETUP_ACCEPT, 0, session.id(), token, 0,
            CallAdmission.announce(new SetupCodec.Writer().map(accept.attributes()).i32(engine.limits.maxInFlight())
                .i32(engine.limits.dedupWindow()).bytes(session.identity.secret()), engine.limits).strings(portals)
                .u8(SetupCodec.SERVER_FEATURES).toBytes());
        engine.fire(engine.listener, new SessionEvent(SessionEvent.Type.ESTABLISHED, session,
            "accepted session " + session.id() + " for '" + resource + "' from " + connection.remoteAddress(),
            null));
        // Accepted while a drain began on another thread (after the check above): it missed this one.
        engine.drain.acceptedWhileDraining(session);
    }

    /**
     * The engine's open portals among {@code uris} that protect the session as the portal of this set-up does, at
     * most {@link #MAX_CONNECTION_PORTALS}.
     * The same scheme, and for tls the same {@link io.xio.engine.TlsOptions} (context, client authentication,
     * protocols, cipher suites): an ATTACH there proves the session with its secret and with what that transport
     * proves, so a plaintext or weaker portal would let the session's secret and calls go with less. A URI that names
     * none of them, or a weaker one, is logged and left out.
     */
    private List<PortalImpl> connectionPortals(final List<io.xio.engine.XioUri> uris)
    {
        if (uris.isEmpty())
        {
            return List.of();
        }
        final List<PortalImpl> found = new ArrayList<>(Math.min(uris.size(), MAX_CONNECTION_PORTALS));
        for (final io.xio.engine.XioUri uri : uris)
        {
            final PortalImpl named = engine.portal(uri);
            if (named == null)
            {
                LOG.warn("the acceptor of {} named {} as a connection portal, which is no open portal of this " +
                    "engine: left out", portal.uri(), uri);
            }
            else if (!named.uri().scheme().equals(portal.uri().scheme()) ||
                !java.util.Objects.equals(named.tls(), portal.tls()))
            {
                LOG.warn("the acceptor of {} named {} as a connection portal, which does not protect the session " +
                    "as {} does (another transport, or other TLS options): left out", portal.uri(), uri,
                    portal.uri().scheme());
            }
            else if (found.size() == MAX_CONNECTION_PORTALS)
            {
                LOG.warn("the acceptor of {} named more than {} connection portals: {} and the rest left out",
                    portal.uri(), MAX_CONNECTION_PORTALS, uri);
                break;
            }
            else if (!found.contains(named))
            {
                found.add(named);
            }
        }
        return List.copyOf(found);
    }

    private void reject(final long token, final String reason)
    {
        reject(token, reason, SetupCodec.REJECT_REFUSED);
    }

    private void reject(final long token, final String reason, final int code)
    {
        connection.sendControl(FrameType.SETUP_REJECT, 0, 0, token, 0,
            new SetupCodec.Writer().string(reason).u8(code).toBytes());
        failedOnce();
    }

    @Override
    public void onAttach(final Frame frame)
    {
        final long token = frame.requestId();
        final SetupCodec.Reader body = new SetupCodec.Reader(frame.buffer(), frame.headerOffset(),
            frame.headerLength());
        final byte[] proof = body.remaining() > 0 ? body.bytes() : Connection.NO_BODY;
        final SessionImpl session = engine.accepted.get(frame.sessionId());
        if (connection.carries(frame.sessionId()))
        {
            throw new ProtocolViolationException("ATTACH of session " + frame.sessionId() +
                " on a connection that carries it already");
        }
        if (connection.laneCount() >= engine.limits.maxSessionsPerConnection())
        {
            engine.refusals.refused(PeerRefusal.SESSION_LIMIT, connection.remoteAddress(), "attach over the limit " +
                "of " + engine.limits.maxSessionsPerConnection() + " sessions on this connection");
            connection.sendControl(FrameType.ATTACH_REJECT, 0, frame.sessionId(), token, 0,
                new SetupCodec.Writer().string(BUSY).toBytes());
            failedOnce();
            return;
        }
        // Unknown session, wrong secret and another peer get the same answer: it must not tell which ids exist.
        final boolean proven = session != null && session.identity.provenBy(proof);
        final boolean samePeer = proven && setUpBy(session);
        final Lane lane = samePeer ? session.newServerLane(connection.peers) : null;
        if (lane == null)
        {
            engine.refusals.refused(PeerRefusal.ATTACH_PROOF, connection.remoteAddress(), session == null ?
                "attach to session " + frame.sessionId() + ", which does not exist (any more)" :
                !proven ? "attach to session " + frame.sessionId() + " without its secret" :
                !samePeer ? "attach to session " + frame.sessionId() + " with its secret but not from its peer " +
                "(through another portal, or with another certificate or local user than at its set-up)" :
                "attach to session " + frame.sessionId() + ", which closed meanwhile");
            connection.sendControl(FrameType.ATTACH_REJECT, 0, frame.sessionId(), token, 0,
                new SetupCodec.Writer().string(NO_SESSION).toBytes());
            failedOnce();
            return;
        }
        // The acceptance first: what the lane writes as it comes up (what the session owes its peer about streams)
        // is for a session the client's connection carries only from the acceptance on.
        connection.sendControl(FrameType.ATTACH_ACCEPT, 0, session.id(), token, 0, Connection.NO_BODY);
        lane.attach(connection);
        final byte[] goAway = session.drain.bodyForAttach();
        if (goAway != null)
        {
            // Draining: the GOAWAY sent before may have gone down with the connection the client lost.
            lane.sendGoAway(goAway);
        }
    }

    /**
     * Whether this connection's peer is the one that set {@code session} up, as far as the transport proved it: the
     * same portal (or one of the connection portals its acceptor named), the same certificate chain (mutual TLS),
     * the same local user (shm). A secret alone is a bearer token; where the set-up proved more, a stolen secret
     * must not be enough.
     */
    private boolean setUpBy(final SessionImpl session)
    {
        final SessionIdentity identity = session.identity;
        final io.xio.engine.PeerIdentity first = identity.peerIdentity;
        final io.xio.engine.PeerIdentity now = connection.link.peerIdentity();
        return (identity.portal == portal || identity.connectionPortals.contains(portal)) && first != null &&
            first.certificates().equals(now.certificates()) && java.util.Objects.equals(first.localUser(),
            now.localUser());
    }

    /**
     * A peer that keeps failing its handshakes is probing, not setting up: a few per sweep are a client retrying,
     * more close the connection (each failure costs an acceptor call and an answer).
     */
    private void failedOnce()
    {
        if (++failed >= MAX_FAILED)
        {
            connection.link.flush(); // the answers so far still go: the peer hears why, then the close
            connection.refuse(PeerRefusal.FAILED_HANDSHAKES, failed + " failed set-ups or attaches");
        }
    }

    @Override
    public void newPeriod()
    {
        failed = 0;
    }

    /** {@code reason} cut to {@link #MAX_REASON_BYTES} of UTF-8. */
    public static String bounded(final String reason)
    {
        if (reason == null)
        {
            return "refused";
        }
        final byte[] bytes = reason.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= MAX_REASON_BYTES)
        {
            return reason;
        }
        int end = MAX_REASON_BYTES - 3;
        while (end > 0 && (bytes[end] & 0xC0) == 0x80)
        {
            end--; // not inside a character
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8) + "...";
    }

    /** The start of a peer-supplied name, for the log. */
    private static String excerpt(final String text)
    {
        return text.length() <= 64 ? text : text.substring(0, 64) + "...(" + text.length() + " chars)";
    }
}
