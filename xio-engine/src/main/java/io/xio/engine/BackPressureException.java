package io.xio.engine;

/** Too many requests are in flight or queued; the caller asked not to wait. Retry later or slow down. */
public final class BackPressureException extends XioException
{
    private static final long serialVersionUID = 1L;

    public BackPressureException(final String message)
    {
        super(message);
    }
}
