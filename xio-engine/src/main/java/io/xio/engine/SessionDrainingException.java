package io.xio.engine;

/**
 * A call refused on the client side, before it was sent, because the server asked its session to go away
 * ({@link GoAway}): it never reached the server, so it may be sent anywhere else whether or not it is idempotent.
 * A {@code ServiceClient} (module xio-cluster) does so by itself.
 */
public final class SessionDrainingException extends ConnectionException
{
    private static final long serialVersionUID = 1L;

    private final transient GoAway goAway;

    public SessionDrainingException(final String message, final GoAway goAway)
    {
        super(message);
        this.goAway = goAway;
    }

    /** What the server said when it asked the session to go away. */
    public GoAway goAway()
    {
        return goAway;
    }
}
