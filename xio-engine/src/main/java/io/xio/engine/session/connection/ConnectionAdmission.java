package io.xio.engine.session.connection;

import io.xio.engine.Limits;
import io.xio.engine.PeerRefusal;
import io.xio.engine.session.EngineCore;
import io.xio.engine.session.admission.AuthenticationFailures;
import io.xio.engine.session.admission.PeerCounts;
import io.xio.engine.session.admission.Refusals;

/**
 * Whether an accepted connection may stay: its host must not have failed too many TLS handshakes lately, and it
 * takes a place among its portal's and its host's connections, given back when it closes. Server side; owned by
 * the connection's context thread.
 */
final class ConnectionAdmission
{
    private final Limits limits;
    private final Refusals refusals;
    private final PeerCounts connectionsByPeer;
    private final AuthenticationFailures tlsHandshakeFailures;
    private final PortalImpl portal;
    private final String remoteAddress;
    private final String peerHost;
    /** Whether the connection holds its places in the portal's and the host's shares. */
    private boolean counted;

    /**
     * @param connectionsByPeer the engine's count of connections by peer host
     * @param tlsHandshakeFailures the engine's record of failed TLS handshakes by portal and host
     * @param peerHost the peer's host, as {@link PeerCounts#hostOf} makes it
     */
    ConnectionAdmission(final Limits limits, final Refusals refusals, final PeerCounts connectionsByPeer,
        final AuthenticationFailures tlsHandshakeFailures, final PortalImpl portal, final String remoteAddress,
        final String peerHost)
    {
        this.limits = limits;
        this.refusals = refusals;
        this.connectionsByPeer = connectionsByPeer;
        this.tlsHandshakeFailures = tlsHandshakeFailures;
        this.portal = portal;
        this.remoteAddress = remoteAddress;
        this.peerHost = peerHost;
    }

    /**
     * Takes the connection's place among its portal's and its host's connections; false (and the connection is to
     * be closed) when its host failed too many TLS handshakes lately, or either share is full.
     */
    boolean admit()
    {
        if (!handshakesAllowed())
        {
            return false;
        }
        if (!portal.tryAddConnection(limits.maxConnectionsPerPortal()))
        {
            refusals.refused(PeerRefusal.CONNECTION_LIMIT, remoteAddress, "connection over the limit of " +
                limits.maxConnectionsPerPortal() + " on " + portal.uri());
            return false;
        }
        if (!connectionsByPeer.tryAcquire(peerHost, limits.maxConnectionsPerPeer()))
        {
            portal.removeConnection();
            refusals.refused(PeerRefusal.CONNECTION_LIMIT, remoteAddress, "connection over the limit of " +
                limits.maxConnectionsPerPeer() + " from " + peerHost);
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
        final AuthenticationFailures.Verdict verdict = tlsHandshakeFailures.check(handshakeFailuresKey());
        if (verdict == AuthenticationFailures.Verdict.REFUSE_FIRST)
        {
            refusals.refused(PeerRefusal.TLS_HANDSHAKE, remoteAddress, "connection closed before its " +
                "handshake: " + peerHost + " failed " + EngineCore.TLS_HANDSHAKE_FAILURES + " TLS handshakes at " +
                portal.uri().endpoint() + " within " + EngineCore.TLS_HANDSHAKE_FAILURE_INTERVAL_NANOS /
                1_000_000_000L + " s (further ones not logged)");
        }
        else if (verdict == AuthenticationFailures.Verdict.REFUSE)
        {
            refusals.counted(PeerRefusal.TLS_HANDSHAKE);
        }
        return verdict == AuthenticationFailures.Verdict.ASK;
    }

    /** The peer failed its TLS handshake: counted against its host, and refused like the other refusals. */
    void handshakeFailed(final String why)
    {
        tlsHandshakeFailures.failed(handshakeFailuresKey());
        refusals.refused(PeerRefusal.TLS_HANDSHAKE, remoteAddress, why);
    }

    /** Failed handshakes count per portal and host (an IPv6 host as its /64), as failed authentications do. */
    private String handshakeFailuresKey()
    {
        return AuthenticationFailures.key(portal.uri().endpoint().toString(), peerHost);
    }

    /** The connection closed: its places in the shares are free again. */
    void release()
    {
        if (counted)
        {
            counted = false;
            portal.removeConnection();
            connectionsByPeer.release(peerHost);
        }
    }
}
