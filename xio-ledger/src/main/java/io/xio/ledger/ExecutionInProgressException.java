package io.xio.ledger;

/**
 * Another attempt of this call is still running: it holds the call's idempotency key in a transaction that neither
 * committed nor rolled back within the time this attempt could wait. This attempt changed nothing (its work did not
 * run, or rolled back), so it may be tried again later with the same key, when the other's outcome is known: a
 * caller maps it to a retryable answer (the engine's back-pressure, say), as any {@link ExecutionUnsettledException}.
 * Thrown by {@link ExecutionLedger#claim}, {@link ExecutionLedger#record} and {@link ExactlyOnceExecution#execute}.
 */
public final class ExecutionInProgressException extends ExecutionUnsettledException
{
    private static final long serialVersionUID = 1L;

    public ExecutionInProgressException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
