package io.xio.engine;

/**
 * A request's deadline passed before its response arrived: here (the peer was told to cancel it), or at the peer
 * before the request ran there (cause: a {@link RemoteException} with status DEADLINE_EXCEEDED). {@link #mayHaveRun()}
 * says whether the call may have run all the same, as {@link ConnectionException#mayHaveRun()} does for a lost
 * connection: a request written and then timed out here may be running at its server, or have run; one that timed out
 * before it was written, or that its server turned away unrun, did not run. Immutable; any thread.
 */
public final class XioTimeoutException extends XioException
{
    private static final long serialVersionUID = 1L;
    private static final String EARLIER_WRITTEN = " (an earlier attempt was written: it may have run)";

    private final boolean mayHaveRun;

    /** A timeout that does not say whether its call ran: {@link #mayHaveRun()} is true, the cautious answer. */
    public XioTimeoutException(final String message)
    {
        super(message);
        this.mayHaveRun = true;
    }

    /** A timeout that does not say whether its call ran: {@link #mayHaveRun()} is true, the cautious answer. */
    public XioTimeoutException(final String message, final Throwable cause)
    {
        super(message, cause);
        this.mayHaveRun = true;
    }

    /**
     * The timeout of one call.
     *
     * @param cause may be null
     * @param mayHaveRun whether the call may have run: its request was written (and not turned away unrun)
     */
    public XioTimeoutException(final String message, final Throwable cause, final boolean mayHaveRun)
    {
        super(message, cause);
        this.mayHaveRun = mayHaveRun;
    }

    /**
     * Whether the call this ended may have run: its request was written to a connection and its server did not say it
     * turned it away unrun, so the server may be running it still, or have run it. False when it was never written,
     * or its server answered that the deadline passed before it ran (a DEADLINE_EXCEEDED answer). True also for a
     * timeout that does not say.
     */
    public boolean mayHaveRun()
    {
        return mayHaveRun;
    }

    /**
     * This timeout as the failure of a call that made attempts before the one it ended: {@code earlierWritten} says
     * whether one of them may have run. This one when it says it may have run already, or when none did; else an
     * instance of its own saying it may have run (its message says why), with this one as its cause.
     */
    public XioTimeoutException forCall(final boolean earlierWritten)
    {
        return mayHaveRun || !earlierWritten ? this :
            new XioTimeoutException(getMessage() + EARLIER_WRITTEN, this, true);
    }
}
