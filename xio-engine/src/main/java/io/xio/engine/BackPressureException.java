package io.xio.engine;

/**
 * Too many requests are in flight or queued: here (the caller asked not to wait), or at the receiver, which
 * turned the request away unrun (then the cause is the peer's answer). Retry later or slow down.
 */
public final class BackPressureException extends XioException
{
    private static final long serialVersionUID = 1L;

    public BackPressureException(final String message)
    {
        super(message);
    }

    public BackPressureException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
