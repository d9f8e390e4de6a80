package io.xio.engine;

/**
 * Why an engine refused a peer something or cut it off: what {@link XioEngine#refusals()} counts. A growing count
 * is a misbehaving or hostile peer (or limits set too tight for a legitimate one); the server's log names the peer.
 */
public enum PeerRefusal
{
    /** An ATTACH without the session's secret, or for a session that does not exist. */
    ATTACH_PROOF,
    /** Too many failed set-ups or attaches on one connection within a sweep of the connections. */
    FAILED_HANDSHAKES,
    /** A set-up for a service the engine does not serve. */
    UNKNOWN_SERVICE,
    /** A set-up over the limit of sessions per connection, per peer or per engine. */
    SESSION_LIMIT,
    /** A connection over the limit of connections per portal or per peer. */
    CONNECTION_LIMIT,
    /** A frame other than SETUP or ATTACH on a connection that carries no session yet. */
    BEFORE_HANDSHAKE,
    /** Too many frames for sessions the connection never carried. */
    UNKNOWN_SESSION,
    /** A connection that carried no session within the handshake timeout. */
    HANDSHAKE_TIMEOUT,
    /** A peer that read nothing for the write-stall timeout while we had bytes for it. */
    WRITE_STALL,
    /** A peer that let more than the unsent-bytes limit pile up for it. */
    UNSENT_LIMIT,
    /** A frame that arrived slower than the minimum receive rate. */
    SLOW_FRAME,
    /**
     * A shm peer that kept a message whose data lay in our shared buffer ({@code XioEngine.allocateShared}) open
     * for the write-stall timeout, or stopped reading the releases of its own: the connection closes.
     */
    SHARED_RELEASE,
    /**
     * A large response not kept for a retransmit: the requester's unacknowledged responses fill its session's (or
     * the engine's) retained-bytes budget. A retransmit of it gets RESPONSE_LOST.
     */
    RETAINED_LIMIT,
    /** A set-up whose credentials or certificate the acceptor did not accept, or refused as its peer failed often. */
    AUTHENTICATION,
    /** A local connection from a user the portal does not admit (shm: the peer's uid). */
    PEER_CREDENTIALS,
    /**
     * A TLS handshake that failed: a client certificate missing where the portal requires one, or not trusted, a
     * plaintext peer on a TLS port, a protocol or cipher suite in common with none, a TLS 1.2 renegotiation. Only that
     * connection closes; a host that failed 16 within 10 s at a portal has its next connections there closed before
     * any handshake work for the rest of that interval, each counted here too.
     */
    TLS_HANDSHAKE,
    /**
     * A stream the peer opened over the limits on open streams or on their windows' bytes ({@link StreamLimits}): its
     * open is answered BACK_PRESSURE, nothing is set aside for it.
     */
    STREAM_LIMIT
}
