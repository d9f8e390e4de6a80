package io.xio.spring.security;

import io.xio.engine.SetupRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.security.core.Authentication;

/**
 * Reads what a session set-up presents to prove who its client is (the credentials it sent, the certificate the
 * TLS handshake verified) as an authentication request for the {@code AuthenticationManager}, as Spring gRPC's
 * {@code GrpcAuthenticationExtractor} does for a call's headers. Declare one as a bean to read credentials of
 * your own kind: the acceptor asks the extractors in {@code @Order}, and the first that returns an authentication
 * decides. xio's own, in this order: user name and password
 * ({@link #PASSWORD_ORDER}), bearer token ({@link #BEARER_ORDER}), TLS client certificate
 * ({@link #CERTIFICATE_ORDER}).
 *
 * <p>Called on the portal's context thread while the set-up waits: it must not block.
 */
@FunctionalInterface
public interface XioAuthenticationExtractor
{
    /** The order of the user name and password extractor. */
    int PASSWORD_ORDER = 100;

    /** The order of the bearer token extractor. */
    int BEARER_ORDER = 200;

    /** The order of the client certificate extractor: explicit credentials win over the connection's. */
    int CERTIFICATE_ORDER = 300;

    /** The authentication request {@code request} carries, not yet authenticated; null when it carries none. */
    @Nullable Authentication extract(SetupRequest request);
}
