package io.xio.engine;

import java.nio.file.attribute.UserPrincipal;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * What the transport itself proved about the peer of a connection, before any credentials were read: the
 * certificate chain it presented in a TLS handshake, or the local user that owns the process on the other end of
 * a shared-memory portal's socket. A {@link SessionAcceptor} sees it in {@link SetupRequest#peer()}, a service in
 * {@link Session#peer()}. Immutable.
 *
 * @param address the peer's transport address, such as {@code tcp://10.0.0.5:51812}
 * @param certificates the peer's certificate chain, its own first; empty when the transport has no TLS or the
 * peer presented none
 * @param localUser the user the peer process runs as, when the transport can tell (shm); null otherwise
 * @param tlsProtocol the negotiated TLS protocol, such as {@code TLSv1.3}; null without TLS
 */
public record PeerIdentity(String address, List<X509Certificate> certificates, UserPrincipal localUser,
    String tlsProtocol)
{
    public PeerIdentity
    {
        certificates = List.copyOf(certificates);
    }

    /** A peer known by its address only. */
    public static PeerIdentity of(final String address)
    {
        return new PeerIdentity(address, List.of(), null, null);
    }

    /** The peer's own certificate; null when it presented none. */
    public X509Certificate certificate()
    {
        return certificates.isEmpty() ? null : certificates.get(0);
    }

    /** Whether the connection is TLS-protected. */
    public boolean isTls()
    {
        return tlsProtocol != null;
    }
}
