package io.xio.spring.security;

import io.xio.engine.SetupRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.security.core.Authentication;
import org.springframework.security.web.authentication.preauth.PreAuthenticatedAuthenticationToken;
import org.springframework.security.web.authentication.preauth.x509.SubjectX500PrincipalExtractor;
import org.springframework.security.web.authentication.preauth.x509.X509PrincipalExtractor;

import java.security.cert.X509Certificate;

/**
 * The client certificate the TLS handshake verified (mutual TLS: {@code xio.portals[n].ssl.client-auth}) as a
 * {@link PreAuthenticatedAuthenticationToken} whose principal is the certificate's subject CN (or what another
 * {@link X509PrincipalExtractor} reads) and whose credentials are the certificate: a
 * {@code PreAuthenticatedAuthenticationProvider} then loads the user's authorities, as Spring Security's
 * {@code x509()} does for web requests. The certificate was checked against the portal's trust material during
 * the handshake; this only names its owner. Needs spring-security-web. Stateless.
 */
public final class CertificateAuthenticationExtractor implements XioAuthenticationExtractor, Ordered
{
    private final X509PrincipalExtractor principals;

    /** Names the owner by the subject's CN. */
    public CertificateAuthenticationExtractor()
    {
        this(new SubjectX500PrincipalExtractor());
    }

    public CertificateAuthenticationExtractor(final X509PrincipalExtractor principals)
    {
        this.principals = principals;
    }

    @Override
    public @Nullable Authentication extract(final SetupRequest request)
    {
        final X509Certificate certificate = request.peer() == null ? null : request.peer().certificate();
        if (certificate == null)
        {
            return null;
        }
        final Object principal = principals.extractPrincipal(certificate);
        return principal == null ? null : new PreAuthenticatedAuthenticationToken(principal, certificate);
    }

    @Override
    public int getOrder()
    {
        return CERTIFICATE_ORDER;
    }
}
