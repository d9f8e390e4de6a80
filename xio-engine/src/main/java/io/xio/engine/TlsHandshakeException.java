package io.xio.engine;

/**
 * A TLS handshake failed, so the connection was closed before any frame was answered over it (a TLS 1.3 client
 * hears that the server refused its certificate only after its own part of the handshake, in an alert), or the peer
 * asked for a renegotiation, which xio refuses. The message names the reason in words (the peer's certificate is
 * not trusted, has expired or does not name the host dialled; a plaintext peer on a TLS port; the peer refused
 * ours), the cause is the {@link javax.net.ssl.SSLException} when there is one. On a server the engine counts it as
 * {@link PeerRefusal#TLS_HANDSHAKE}.
 */
public class TlsHandshakeException extends ConnectionException
{
    private static final long serialVersionUID = 1L;

    public TlsHandshakeException(final String message, final Throwable cause)
    {
        super(message, cause);
    }

    /** The failure of one call: {@code mayHaveRun} whether its request was written ({@link #mayHaveRun()}). */
    public TlsHandshakeException(final String message, final Throwable cause, final boolean mayHaveRun)
    {
        super(message, cause, mayHaveRun);
    }

    @Override
    public TlsHandshakeException forCall(final boolean written)
    {
        return new TlsHandshakeException(callMessage(written), callCause(), written);
    }
}
