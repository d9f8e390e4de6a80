package io.xio.engine;

/** A request's deadline passed before its response arrived; the peer was told to cancel it. */
public final class XioTimeoutException extends XioException
{
    private static final long serialVersionUID = 1L;

    public XioTimeoutException(final String message)
    {
        super(message);
    }
}
