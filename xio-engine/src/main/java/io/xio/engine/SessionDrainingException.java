package io.xio.engine;

/**
 * A call refused on the client side, before it was sent, because the server asked its session to go away
 * ({@link GoAway}): it never reached the server, so it may be sent anywhere else whether or not it is idempotent.
 * A {@code ServiceClient} (module xio-cluster) does so by itself. {@link #mayHaveRun()} is false.
 */
public final class SessionDrainingException extends ConnectionException
{
    private static final long serialVersionUID = 1L;

    private final transient GoAway goAway;

    public SessionDrainingException(final String message, final GoAway goAway)
    {
        this(message, goAway, null);
    }

    private SessionDrainingException(final String message, final GoAway goAway, final Throwable cause)
    {
        super(message, cause, false);
        this.goAway = goAway;
    }

    /** One call's instance of this refusal; a request {@code written} is no longer one this type describes. */
    @Override
    public ConnectionException forCall(final boolean written)
    {
        return written ? super.forCall(true) : new SessionDrainingException(getMessage(), goAway, callCause());
    }

    /** What the server said when it asked the session to go away. */
    public GoAway goAway()
    {
        return goAway;
    }
}
