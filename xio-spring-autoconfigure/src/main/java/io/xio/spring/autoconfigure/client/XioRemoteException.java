package io.xio.spring.autoconfigure.client;

/**
 * A service method threw an exception whose class the caller cannot recreate (not on its class path, or
 * without a constructor taking a message): it carries the remote class name and message.
 */
public class XioRemoteException extends RuntimeException
{
    private static final long serialVersionUID = 1L;
    private final String remoteType;

    public XioRemoteException(final String remoteType, final String message)
    {
        super(remoteType + ": " + message);
        this.remoteType = remoteType;
    }

    public String remoteType()
    {
        return remoteType;
    }
}
