package io.xio.engine;

/**
 * Root of every error xio reports. Messages say what happened and, where one is involved, to which URI.
 * Subclasses say which kind of failure it was, so callers can branch on the type.
 */
public class XioException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public XioException(final String message)
    {
        super(message);
    }

    public XioException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
