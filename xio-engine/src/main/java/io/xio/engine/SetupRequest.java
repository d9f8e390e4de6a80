package io.xio.engine;

import java.util.Map;

/**
 * A client's session set-up request as the server's {@link SessionAcceptor} sees it.
 *
 * @param resource the resource the client asked for (the URI's path)
 * @param attributes application-supplied attributes (Accelio's private data); credentials belong in
 * {@code credentials}, which is never logged
 * @param clientAddress the client's transport address
 * @param portal the portal the request arrived at
 * @param redirects how many times the client was already redirected on the way here
 * @param credentials what the client presented to prove who it is; {@link Credentials#NONE} when nothing
 * @param peer what the transport proved about the client (its TLS certificate, its local user)
 */
public record SetupRequest(String resource, Map<String, String> attributes, String clientAddress, XioUri portal,
    int redirects, Credentials credentials, PeerIdentity peer)
{
    /**
     * What a log line may show: the attributes' names but not their values (older clients put tokens there), the
     * credentials' kind only (their own {@code toString} redacts the secret), the peer's address, not its
     * certificate chain.
     */
    @Override
    public String toString()
    {
        return "SetupRequest[resource=" + resource + ", attributes=" + (attributes == null ? "{}" :
            attributes.keySet()) + ", clientAddress=" + clientAddress + ", portal=" + portal + ", redirects=" +
            redirects + ", credentials=" + credentials + ", peer=" + (peer == null ? null : peer.address() +
            (peer.localUser() != null ? " user " + peer.localUser().getName() : "") +
            (peer.certificate() != null ? " certificate " + peer.certificate().getSubjectX500Principal() : "")) +
            "]";
    }
}
