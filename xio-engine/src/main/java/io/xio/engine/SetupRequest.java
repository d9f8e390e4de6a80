package io.xio.engine;

import java.util.Map;

/**
 * A client's session set-up request as the server's {@link SessionAcceptor} sees it.
 *
 * @param resource the resource the client asked for (the URI's path)
 * @param attributes application-supplied attributes (Accelio's private data, e.g. credentials)
 * @param clientAddress the client's transport address
 * @param portal the portal the request arrived at
 * @param redirects how many times the client was already redirected on the way here
 * @param credentials what the client presented to prove who it is; {@link Credentials#NONE} when nothing
 * @param peer what the transport proved about the client (its TLS certificate, its local user)
 */
public record SetupRequest(String resource, Map<String, String> attributes, String clientAddress, XioUri portal,
    int redirects, Credentials credentials, PeerIdentity peer)
{
}
