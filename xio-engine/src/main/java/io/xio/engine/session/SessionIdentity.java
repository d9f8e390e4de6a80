package io.xio.engine.session;

import io.xio.engine.PeerIdentity;
import io.xio.engine.session.admission.Principals;
import io.xio.engine.session.connection.PortalImpl;

import java.security.MessageDigest;
import java.security.Principal;
import java.util.List;

/**
 * Who is on the other side of a session, and what proves that a connection belongs to it: the secret the server
 * issues with its SETUP_ACCEPT and the client shows in every ATTACH. On the server, also what the set-up came with:
 * the peer's host, what the transport proved about it, the portal, the principal its acceptor named. Written once,
 * on the context that set the session up (a server's before the session is published to others; a client's secret,
 * volatile, when the SETUP_ACCEPT arrives); read from any thread.
 */
public final class SessionIdentity
{
    /** Never logged. */
    private volatile byte[] secret;
    /** The host that set this (server) session up: its share of {@link io.xio.engine.Limits#maxSessionsPerPeer()}. */
    public String peerHost;
    /** What the transport proved about the client of this (server) session, at set-up. */
    public PeerIdentity peerIdentity;
    /** The portal this (server) session was set up through: its attaches must come through it too. */
    public PortalImpl portal;
    /**
     * Server side: the portals besides {@link #portal} the client may attach through, as its acceptor named them
     * ({@link io.xio.engine.SetupDecision.Accept#withConnectionPortals}); empty for none.
     */
    public List<PortalImpl> connectionPortals = List.of();
    /** Who this (server) session belongs to, as its acceptor said; null for an anonymous one. */
    public Principal principal;
    /** That principal's share of the per-principal limits; null for an anonymous session. */
    public Principals.Share principalShare;
    /** Whether the peer announced streams at set-up (both sides did, then): the session may carry them. */
    public volatile boolean streams;

    public byte[] secret()
    {
        return secret;
    }

    void secret(final byte[] value)
    {
        secret = value;
    }

    /** Whether {@code proof} is this session's secret; in constant time, so timing tells an attacker nothing. */
    public boolean provenBy(final byte[] proof)
    {
        final byte[] expected = secret;
        return expected != null && MessageDigest.isEqual(expected, proof);
    }
}
