package io.xio.engine;

/** A peer sent something the wire protocol does not allow; the connection that carried it is closed. */
public final class ProtocolViolationException extends XioException
{
    private static final long serialVersionUID = 1L;

    public ProtocolViolationException(final String message)
    {
        super(message);
    }
}
