package io.xio.engine;

/** A connection could not be made, or was lost and not re-established in time. */
public class ConnectionException extends XioException
{
    private static final long serialVersionUID = 1L;

    public ConnectionException(final String message)
    {
        super(message);
    }

    public ConnectionException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
