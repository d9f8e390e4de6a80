package io.xio.engine;

import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;

/**
 * How a client session is opened. Immutable and thread-safe.
 *
 * @param attributes sent with the set-up request for the server's acceptor (visible to it and its logs):
 *                   application settings, never secrets (credentials go with {@link #withCredentials})
 * @param connections parallel connections, one per context; 0 means one per engine context
 * @param timeout default deadline of a request on this session
 * @param handler receives requests the server sends on this session (requests go both ways); may be null
 * @param listener receives this session's lifecycle events
 * @param credentials asked for the credentials of each set-up (a reconnect asks again, so a refreshed token
 * is sent); called on a context thread, must not block
 * @param tls how a {@code tls://} session secures its connections; null for the engine's default
 * @param credentialsOnRedirect whether credentials (other than {@link Credentials#NONE}) follow a redirect that
 *                              weakens their protection: from {@code tls} to a plaintext network scheme, from a local
 *                              scheme ({@code shm}, {@code local}) to a network one, or to another host than the
 *                              session was opened at. Off by default: such a redirect fails the opening, since a
 *                              server (or whoever answers in its place) could otherwise send the client's token in
 *                              the clear or to a host of its choosing
 */
public record SessionOptions(Map<String, String> attributes, int connections, Duration timeout,
    RequestHandler handler, SessionListener listener, Supplier<Credentials> credentials, TlsOptions tls,
    boolean credentialsOnRedirect)
{
    public static final SessionOptions DEFAULT =
        new SessionOptions(Map.of(), 0, Duration.ofSeconds(5), null, SessionListener.NONE, () -> Credentials.NONE,
            null, false);

    public SessionOptions
    {
        attributes = Map.copyOf(attributes);
        if (connections < 0)
        {
            throw new IllegalArgumentException("connections must be >= 0, was " + connections);
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero())
        {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        listener = listener == null ? SessionListener.NONE : listener;
        credentials = credentials == null ? DEFAULT_CREDENTIALS : credentials;
    }

    private static final Supplier<Credentials> DEFAULT_CREDENTIALS = () -> Credentials.NONE;

    public SessionOptions withAttributes(final Map<String, String> value)
    {
        return new SessionOptions(value, connections, timeout, handler, listener, credentials, tls,
            credentialsOnRedirect);
    }

    public SessionOptions withConnections(final int value)
    {
        return new SessionOptions(attributes, value, timeout, handler, listener, credentials, tls,
            credentialsOnRedirect);
    }

    public SessionOptions withTimeout(final Duration value)
    {
        return new SessionOptions(attributes, connections, value, handler, listener, credentials, tls,
            credentialsOnRedirect);
    }

    public SessionOptions withHandler(final RequestHandler value)
    {
        return new SessionOptions(attributes, connections, timeout, value, listener, credentials, tls,
            credentialsOnRedirect);
    }

    public SessionOptions withListener(final SessionListener value)
    {
        return new SessionOptions(attributes, connections, timeout, handler, value, credentials, tls,
            credentialsOnRedirect);
    }

    /** Sends these credentials at every set-up. */
    public SessionOptions withCredentials(final Credentials value)
    {
        java.util.Objects.requireNonNull(value, "credentials");
        return withCredentials(() -> value);
    }

    /** Asks {@code value} for the credentials of each set-up, such as a token source that refreshes. */
    public SessionOptions withCredentials(final Supplier<Credentials> value)
    {
        return new SessionOptions(attributes, connections, timeout, handler, listener, value, tls,
            credentialsOnRedirect);
    }

    public SessionOptions withTls(final TlsOptions value)
    {
        return new SessionOptions(attributes, connections, timeout, handler, listener, credentials, value,
            credentialsOnRedirect);
    }

    /** See {@link #credentialsOnRedirect()}: true lets credentials follow any redirect. */
    public SessionOptions withCredentialsOnRedirect(final boolean value)
    {
        return new SessionOptions(attributes, connections, timeout, handler, listener, credentials, tls, value);
    }

    /** Whether credentials were given ({@link #withCredentials}); false for an anonymous session. */
    public boolean hasCredentials()
    {
        return credentials != DEFAULT_CREDENTIALS && credentials != DEFAULT.credentials;
    }

    /** Names the attributes but not their values, and the credentials by their supplier only (never asked here). */
    @Override
    public String toString()
    {
        return "SessionOptions[attributes=" + attributes.keySet() + ", connections=" + connections + ", timeout=" +
            timeout + ", handler=" + handler + ", listener=" + listener + ", credentials=" +
            (credentials == DEFAULT_CREDENTIALS || credentials == DEFAULT.credentials ? "none" : "supplied") +
            ", tls=" + tls + ", credentialsOnRedirect=" + credentialsOnRedirect + "]";
    }
}
