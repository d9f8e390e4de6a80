package io.xio.engine;

/**
 * A request's deadline passed before its response arrived: here (the peer was told to cancel it), or at the peer
 * before the request ran there (cause: a {@link RemoteException} with status DEADLINE_EXCEEDED).
 */
public final class XioTimeoutException extends XioException
{
    private static final long serialVersionUID = 1L;

    public XioTimeoutException(final String message)
    {
        super(message);
    }

    public XioTimeoutException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
