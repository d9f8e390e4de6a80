package io.xio.spring.client;

import io.xio.spring.error.XioErrorCode;
import org.jspecify.annotations.Nullable;

/**
 * A service method failed with an exception this side does not rebuild (its type is not on the call's allow-list,
 * or cannot be made from a message): carries the remote class name, the error code and the message. It is also
 * the cause (or a suppressed exception) of an exception that is rebuilt, saying where that one came from.
 */
public class XioRemoteException extends RuntimeException
{
    private static final long serialVersionUID = 1L;
    private final String remoteType;
    private final XioErrorCode code;
    private final String remoteMessage;

    /** A failure with no code: {@link XioErrorCode#UNKNOWN}. */
    public XioRemoteException(final String remoteType, final String message)
    {
        this(remoteType, XioErrorCode.UNKNOWN, message, null);
    }

    /** The failure the server answered with; {@code cause} is the engine's report of it, or null. */
    public XioRemoteException(final String remoteType, final XioErrorCode code, final String message,
        final @Nullable Throwable cause)
    {
        super(code + " " + remoteType + ": " + message, cause);
        this.remoteType = remoteType;
        this.code = code;
        this.remoteMessage = message;
    }

    /** The class name of the exception the service threw. */
    public String remoteType()
    {
        return remoteType;
    }

    /** What kind of failure the service reported: its exception handler's code, else UNKNOWN. */
    public XioErrorCode code()
    {
        return code;
    }

    /** The service's message, without the type and code this exception's message adds. */
    public String remoteMessage()
    {
        return remoteMessage;
    }
}
