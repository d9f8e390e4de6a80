package io.xio.engine;

/**
 * The peer answered with a failure: its handler threw, it had no handler, or it could not execute the
 * request. {@link #remoteType()} names the remote exception class when the handler threw.
 */
public final class RemoteException extends XioException
{
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String remoteType;
    private final String remoteMessage;

    public RemoteException(final String uri, final int status, final String remoteType, final String remoteMessage)
    {
        super("remote failure from " + uri + ": " +
            (remoteType == null ? io.xio.engine.protocol.Status.describe(status) : remoteType) +
            (remoteMessage == null || remoteMessage.isEmpty() ? "" : ": " + remoteMessage));
        this.status = status;
        this.remoteType = remoteType;
        this.remoteMessage = remoteMessage;
    }

    /** The wire status code, one of {@link io.xio.engine.protocol.Status}. */
    public int status()
    {
        return status;
    }

    /**
     * Whether the peer turned the request away unrun for lack of room (status BACK_PRESSURE): too many of the
     * session's requests executing there, or its handler {@link InboundRequest#refuse refused} it. Retrying later
     * is safe. Callers get such a refusal as a {@link BackPressureException} with this as its cause.
     */
    public boolean isBackPressure()
    {
        return status == io.xio.engine.protocol.Status.BACK_PRESSURE;
    }

    /**
     * Whether the request ran at the peer but its answer was lost with a connection (status RESPONSE_LOST): it
     * was too large to keep for a resend (beyond the peer's retained budget). It may have had its effect: only an
     * idempotent call may be sent again.
     */
    public boolean isResponseLost()
    {
        return status == io.xio.engine.protocol.Status.RESPONSE_LOST;
    }

    /** Class name of the exception the remote handler threw, or null when the failure was not a throw. */
    public String remoteType()
    {
        return remoteType;
    }

    public String remoteMessage()
    {
        return remoteMessage;
    }
}
