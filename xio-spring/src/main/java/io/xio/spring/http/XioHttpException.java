package io.xio.spring.http;

import io.xio.spring.error.XioErrorCode;

/**
 * A call refused before it reached its service, in xio's own words: the route names nothing, the body does not
 * decode or is too large, a header is malformed. Answered with {@link #status()} and a problem carrying
 * {@link #code()}. No stack trace: it is an answer, not a fault of this server.
 */
public final class XioHttpException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final int status;
    private final XioErrorCode code;

    /** With the status {@code code} maps to. */
    public XioHttpException(final XioErrorCode code, final String message)
    {
        this(XioHttpStatus.of(code), code, message);
    }

    /** With a status of its own (413, 415), {@code code} the nearest xio code. */
    public XioHttpException(final int status, final XioErrorCode code, final String message)
    {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
    }

    /** The HTTP status to answer with. */
    public int status()
    {
        return status;
    }

    /** The xio error code the problem carries. */
    public XioErrorCode code()
    {
        return code;
    }
}
