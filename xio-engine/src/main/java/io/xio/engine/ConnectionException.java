package io.xio.engine;

/**
 * A connection could not be made, or was lost and not re-established in time. When it fails a call,
 * {@link #mayHaveRun()} says whether the call's request (or one-way message) was ever written to a connection: if
 * not, it ran nowhere and may be sent anywhere; if so, its server may have run it. Each call gets an instance of its
 * own ({@link #forCall}), even when one cause failed many. Immutable; any thread.
 */
public class ConnectionException extends XioException
{
    private static final long serialVersionUID = 1L;
    private static final String WRITTEN = " (the request was written: it may have run)";
    private static final String NEVER_WRITTEN = " (the request was never written: it did not run)";

    private final boolean mayHaveRun;

    /**
     * A failure not tied to one call (a connect that failed, say): {@link #mayHaveRun()} is true, the cautious
     * answer.
     */
    public ConnectionException(final String message)
    {
        super(message);
        this.mayHaveRun = true;
    }

    /** A failure not tied to one call: {@link #mayHaveRun()} is true, the cautious answer. */
    public ConnectionException(final String message, final Throwable cause)
    {
        super(message, cause);
        this.mayHaveRun = true;
    }

    /**
     * The failure of one call.
     *
     * @param cause may be null
     * @param mayHaveRun whether the call's request was written to a connection at least once
     */
    public ConnectionException(final String message, final Throwable cause, final boolean mayHaveRun)
    {
        super(message, cause);
        this.mayHaveRun = mayHaveRun;
    }

    /**
     * Whether the call this failed may have run: its request (or one-way message) was written to a connection at
     * least once, so its server may have run it (before it died, say). False when it was never written: it ran
     * nowhere, and sending it again, anywhere, runs it at most once. True also for a failure not tied to a call.
     */
    public boolean mayHaveRun()
    {
        return mayHaveRun;
    }

    /**
     * This failure as one call's, an instance of its own: the same message, saying whether the request was
     * {@code written} (in place of what it said before, if it did), and the same cause, or this failure itself when
     * it has none (so that the stack trace of where it happened is kept). Subclasses keep their type.
     */
    public ConnectionException forCall(final boolean written)
    {
        return new ConnectionException(callMessage(written), callCause(), written);
    }

    /** What a call's instance of this failure ({@link #forCall}) gives as its cause: this one's, else this one. */
    final Throwable callCause()
    {
        return getCause() != null ? getCause() : this;
    }

    /** The message, saying whether the request was {@code written} (in place of what it said before, if it did). */
    final String callMessage(final boolean written)
    {
        String message = String.valueOf(getMessage());
        for (final String said : new String[] {WRITTEN, NEVER_WRITTEN})
        {
            if (message.endsWith(said))
            {
                message = message.substring(0, message.length() - said.length());
            }
        }
        return message + (written ? WRITTEN : NEVER_WRITTEN);
    }
}
