package io.xio.engine;

import java.util.concurrent.CancellationException;

/** The request was cancelled by its sender; no response will be delivered for it. */
public final class RequestCancelledException extends CancellationException
{
    private static final long serialVersionUID = 1L;

    public RequestCancelledException(final String message)
    {
        super(message);
    }
}
