package io.xio.engine;

import java.time.Duration;

/**
 * How one request or message is sent. Immutable and thread-safe.
 *
 * @param timeout the deadline from the call; null means the session's default
 * @param receipt ask the receiver for a delivery receipt
 * @param waitWhenFull when the session has its limit of requests in flight, wait (up to the deadline)
 *                     instead of failing at once with {@link BackPressureException}
 * @param idempotent the call may run twice without harm, and its caller would rather send it elsewhere than wait:
 *                   when the session has no connection up (it lost its last one with the call in flight, or the call
 *                   comes while it reconnects), the call fails at once with a {@link ConnectionException} instead of
 *                   waiting for the re-attach (its server may be gone for good), so a
 *                   {@link io.xio.engine.cluster.ServiceClient} (or the Spring client) sends it to another server; a
 *                   session itself never sends a call twice. A {@code ServiceClient} with one endpoint only lets its
 *                   calls wait instead
 */
public record CallOptions(Duration timeout, boolean receipt, boolean waitWhenFull, boolean idempotent)
{
    public static final CallOptions DEFAULT = new CallOptions(null, false, false, false);

    public CallOptions(final Duration timeout, final boolean receipt, final boolean waitWhenFull)
    {
        this(timeout, receipt, waitWhenFull, false);
    }

    public static CallOptions timeout(final Duration timeout)
    {
        return new CallOptions(timeout, false, false, false);
    }

    public CallOptions withTimeout(final Duration value)
    {
        return new CallOptions(value, receipt, waitWhenFull, idempotent);
    }

    public CallOptions withReceipt(final boolean value)
    {
        return new CallOptions(timeout, value, waitWhenFull, idempotent);
    }

    public CallOptions withWaitWhenFull(final boolean value)
    {
        return new CallOptions(timeout, receipt, value, idempotent);
    }

    public CallOptions withIdempotent(final boolean value)
    {
        return new CallOptions(timeout, receipt, waitWhenFull, value);
    }

    /**
     * Whether an idempotent call that failed with {@code failure} may be sent again: its connection or server went
     * away (a {@link ConnectionException}) or its answer was too large to keep for a resend (a
     * {@link RemoteException#isResponseLost() RESPONSE_LOST} answer). Not after an application error, a timeout, a
     * cancel, a rejected session or back-pressure.
     */
    public static boolean mayRetryIdempotent(final Throwable failure)
    {
        return failure instanceof ConnectionException ||
            failure instanceof RemoteException remote && remote.isResponseLost();
    }
}
