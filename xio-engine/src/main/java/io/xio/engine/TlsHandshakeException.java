package io.xio.engine;

/**
 * A TLS handshake failed, so the connection was closed before any frame crossed it. The message names the reason
 * in words (the peer's certificate is not trusted, has expired or does not name the host dialled; a plaintext
 * peer on a TLS port; the peer refused ours), the cause is the {@link javax.net.ssl.SSLException}. On a server
 * the engine counts it as {@link PeerRefusal#TLS_HANDSHAKE}.
 */
public class TlsHandshakeException extends ConnectionException
{
    private static final long serialVersionUID = 1L;

    public TlsHandshakeException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
