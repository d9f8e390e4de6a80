package io.xio.engine.transport.tls;

import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;

/**
 * Says in words why a TLS handshake failed, from the JDK's exception and its causes, whose own messages (a PKIX
 * path building failure, an alert's name) say it only to those who know TLS. Stateless.
 */
final class TlsFailures
{
    private TlsFailures()
    {
    }

    /**
     * @param client whether this end dialled (the peer is then the server)
     * @param presented whether this end presented a certificate
     */
    static String describe(final Throwable failure, final boolean client, final boolean presented)
    {
        final String peers = client ? "the server's certificate" : "the client's certificate";
        final String message = String.valueOf(failure.getMessage());
        for (Throwable cause = failure; cause != null; cause = cause.getCause())
        {
            final String text = String.valueOf(cause.getMessage());
            if (cause instanceof CertificateExpiredException)
            {
                return peers + " has expired (" + text + ")";
            }
            if (cause instanceof CertificateNotYetValidException)
            {
                return peers + " is not valid yet (" + text + ")";
            }
            if (text.contains("No subject alternative") || text.contains("No name matching"))
            {
                return peers + " does not name the host dialled (" + text + ")";
            }
            if (cause instanceof CertPathBuilderException || text.contains("PKIX path building failed") ||
                text.contains("unable to find valid certification path"))
            {
                return peers + " is not trusted: no trusted certificate authority issued it";
            }
            if (text.contains("validity check failed"))
            {
                return peers + " has expired or is not valid yet (" + text + ")";
            }
        }
        if (message.contains("Unsupported or unrecognized SSL message") || message.contains("plaintext"))
        {
            return "plaintext peer on a TLS port (it does not speak TLS: a tcp:// client?)";
        }
        if (message.contains("Empty client certificate chain"))
        {
            return "the client presented no certificate, and this portal requires one";
        }
        if (message.contains("certificate_required") || message.contains("bad_certificate") ||
            message.contains("certificate_unknown") || message.contains("unknown_ca"))
        {
            return client && !presented ? "the server requires a client certificate, and this client presented " +
                "none (" + message + ")" : "the peer did not accept this end's certificate (" + message + ")";
        }
        if (client && !presented && message.contains("handshake_failure"))
        {
            // Under TLS 1.2 a server that requires a client certificate answers its absence with handshake_failure
            // (Java 25 does; Java 17 sends bad_certificate), the alert a missing common cipher suite gets too.
            return "the server refused the handshake: it requires a client certificate, and this client presented " +
                "none, or it has no protocol or cipher suite in common with this client (" + message + ")";
        }
        if (message.contains("protocol_version") || message.contains("No appropriate protocol") ||
            message.contains("handshake_failure") || message.contains("no cipher suites in common"))
        {
            return "no protocol or cipher suite in common with the peer (" + message + ")";
        }
        return message;
    }
}
