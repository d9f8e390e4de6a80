package io.xio.engine;

import javax.net.ssl.SSLContext;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * How the {@code tls} transport secures its connections: {@code tls://host:port/resource} is tcp with TLS, the
 * portal or session taking these options (the engine's default from {@code XioEngine.Builder.tls}, or a portal's or
 * session's own). The context supplier is asked for every new connection, so a reloaded key or trust store applies
 * to the connections made after the reload and leaves open ones alone. Immutable and thread-safe.
 *
 * @param context the keys and trust material; called on a context thread once per connection, must not block
 * @param clientAuth whether a server asks for, or requires, a client certificate (a client ignores it)
 * @param protocols the protocols allowed, TLSv1.3 only unless set
 * @param cipherSuites the cipher suites allowed; empty for the provider's defaults for those protocols
 * @param verifyHostname whether a client checks that the server's certificate names the host it dialled
 */
public record TlsOptions(Supplier<SSLContext> context, ClientAuth clientAuth, List<String> protocols,
    List<String> cipherSuites, boolean verifyHostname)
{
    /** Whether a server asks for a client certificate. */
    public enum ClientAuth
    {
        /** Does not ask. */
        NONE,
        /** Asks; a client without a certificate is still let in (the acceptor may decide). */
        WANT,
        /** Asks, and ends the handshake of a client without a trusted certificate (mutual TLS). */
        REQUIRE
    }

    public TlsOptions
    {
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(clientAuth, "clientAuth");
        protocols = List.copyOf(protocols);
        cipherSuites = List.copyOf(cipherSuites);
        if (protocols.isEmpty())
        {
            throw new IllegalArgumentException("at least one TLS protocol must be allowed");
        }
    }

    /** TLS 1.3 with these keys and trust material, no client certificate asked for, host names verified. */
    public static TlsOptions of(final SSLContext context)
    {
        Objects.requireNonNull(context, "context");
        return of(() -> context);
    }

    /** As {@link #of(SSLContext)}, asking {@code context} again for every new connection. */
    public static TlsOptions of(final Supplier<SSLContext> context)
    {
        return new TlsOptions(context, ClientAuth.NONE, List.of("TLSv1.3"), List.of(), true);
    }

    public TlsOptions withClientAuth(final ClientAuth value)
    {
        return new TlsOptions(context, value, protocols, cipherSuites, verifyHostname);
    }

    public TlsOptions withProtocols(final List<String> value)
    {
        return new TlsOptions(context, clientAuth, value, cipherSuites, verifyHostname);
    }

    public TlsOptions withCipherSuites(final List<String> value)
    {
        return new TlsOptions(context, clientAuth, protocols, value, verifyHostname);
    }

    public TlsOptions withVerifyHostname(final boolean value)
    {
        return new TlsOptions(context, clientAuth, protocols, cipherSuites, value);
    }
}
