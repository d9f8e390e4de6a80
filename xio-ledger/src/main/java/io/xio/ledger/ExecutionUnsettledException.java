package io.xio.ledger;

import io.xio.engine.XioException;

/**
 * This attempt did not settle its call, and the call's next attempt with the same idempotency key will: nothing of
 * this attempt committed (another attempt held the key, or a transient database failure such as a deadlock, a
 * serialization failure, a lock timeout, a cancelled statement or a lost connection rolled it back), or its commit
 * failed and whether it committed is unknown. Either way a retry with the same key is safe: it runs the work if
 * nothing committed, or gets the answer that did. A caller maps it to a retryable answer (the engine's back-pressure,
 * as {@link ExactlyOnceRequests} does), never to a final error. Thrown by {@link ExactlyOnceExecution}; the cause is
 * what failed.
 */
public class ExecutionUnsettledException extends XioException
{
    private static final long serialVersionUID = 1L;

    public ExecutionUnsettledException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
