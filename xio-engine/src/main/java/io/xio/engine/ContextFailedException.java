package io.xio.engine;

/**
 * The context that carried a session failed ({@link ContextState#FAILED}): the session was closed with this,
 * its calls failed with it, and its cause is what stopped the context (an {@link Error}, say).
 */
public class ContextFailedException extends ConnectionException
{
    private static final long serialVersionUID = 1L;

    public ContextFailedException(final String message, final Throwable cause)
    {
        super(message, cause);
    }

    /** The failure of one call: {@code mayHaveRun} whether its request was written ({@link #mayHaveRun()}). */
    public ContextFailedException(final String message, final Throwable cause, final boolean mayHaveRun)
    {
        super(message, cause, mayHaveRun);
    }

    @Override
    public ContextFailedException forCall(final boolean written)
    {
        return new ContextFailedException(callMessage(written), callCause(), written);
    }
}
