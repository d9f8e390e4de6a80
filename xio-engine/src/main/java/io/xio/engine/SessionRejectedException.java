package io.xio.engine;

/**
 * The server refused to set the session up: its acceptor rejected it, the service does not exist there, the server
 * takes no more sessions, or the client's credentials did not authenticate it ({@link #isAuthenticationFailure()}).
 * The reason is the server's, written for the client to read; it names nothing of the server's internals.
 */
public final class SessionRejectedException extends XioException
{
    private static final long serialVersionUID = 1L;
    private final String reason;
    private final boolean authenticationFailure;
    private final boolean draining;

    public SessionRejectedException(final String uri, final String reason)
    {
        this(uri, reason, false);
    }

    /** @param authenticationFailure whether the server said the credentials (or certificate) did not authenticate */
    public SessionRejectedException(final String uri, final String reason, final boolean authenticationFailure)
    {
        super("session to " + uri + " rejected: " + reason);
        this.reason = reason;
        this.authenticationFailure = authenticationFailure;
        this.draining = false;
    }

    private SessionRejectedException(final String uri, final String reason, final Void drainingMarker)
    {
        super("session to " + uri + " rejected: " + reason);
        this.reason = reason;
        this.authenticationFailure = false;
        this.draining = true;
    }

    /** A refusal by a server that is draining ({@link XioEngine#drain}): it takes no new sessions, others may. */
    public static SessionRejectedException draining(final String uri, final String reason)
    {
        return new SessionRejectedException(uri, reason, (Void)null);
    }

    public String reason()
    {
        return reason;
    }

    /**
     * Whether the server refused the client's credentials, or refused to look at them because its host failed too
     * often of late: opening again with the same credentials is refused again, so a client should get new ones (or
     * give up) rather than retry in a loop.
     */
    public boolean isAuthenticationFailure()
    {
        return authenticationFailure;
    }

    /**
     * Whether the server refused because it is draining (shutting down or handing its sessions over): the same
     * set-up may succeed at once at another server of the service, and will not here.
     */
    public boolean isDraining()
    {
        return draining;
    }
}
