package io.xio.spring.client;

import io.xio.engine.ConnectionException;

/**
 * An exactly-once call ({@code @XioMethod(exactlyOnce = true)}) ended without its answer, and may have run: an
 * attempt was written to a server that may have run it (or is running it now: one that held it past the call's
 * deadline, say), the last server turned it away because another attempt of its idempotency key holds that key,
 * possibly committing this moment, the server ran it and lost its answer (RESPONSE_LOST), or its caller was
 * interrupted while waiting for it. Calling again with a new key could run it twice; calling again with
 * {@link #idempotencyKey()}, set by {@link io.xio.spring.call.XioClientCall#idempotencyKey(String)}, runs it at most
 * once and gets its answer if it ran. {@link #mayHaveRun()} is always true; the cause is the last attempt's failure: a
 * call whose deadline passed has its {@link io.xio.engine.XioTimeoutException} there. Immutable; any thread.
 */
public final class ExactlyOnceUnsettledException extends ConnectionException
{
    private static final long serialVersionUID = 1L;

    private final String idempotencyKey;

    /** The call with {@code idempotencyKey} whose last attempt failed with {@code last}. */
    public ExactlyOnceUnsettledException(final String idempotencyKey, final Throwable last)
    {
        super("the exactly-once call with idempotency key " + idempotencyKey + " ended unsettled: it may have run " +
            "(or be running); call again with that key (XioClientCall.idempotencyKey) to run it at most once and " +
            "get its answer, never with a new one. Last failure: " + last.getMessage(), last, true);
        this.idempotencyKey = idempotencyKey;
    }

    /** The call's idempotency key: the one a later call must carry to resume it. */
    public String idempotencyKey()
    {
        return idempotencyKey;
    }

    /** This one: it is a single call's already, and says it may have run. */
    @Override
    public ConnectionException forCall(final boolean written)
    {
        return this;
    }
}
