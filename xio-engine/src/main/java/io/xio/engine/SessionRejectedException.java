package io.xio.engine;

/** The server's acceptor rejected the session; {@link #reason()} is what it said. */
public final class SessionRejectedException extends XioException
{
    private static final long serialVersionUID = 1L;
    private final String reason;

    public SessionRejectedException(final String uri, final String reason)
    {
        super("session to " + uri + " rejected: " + reason);
        this.reason = reason;
    }

    public String reason()
    {
        return reason;
    }
}
