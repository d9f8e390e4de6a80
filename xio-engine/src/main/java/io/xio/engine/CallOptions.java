package io.xio.engine;

import java.time.Duration;

/**
 * How one request or message is sent. Immutable and thread-safe.
 *
 * @param timeout the deadline from the call; null means the session's default
 * @param receipt ask the receiver for a delivery receipt
 * @param waitWhenFull when the session has its limit of requests in flight, wait (up to the deadline)
 *                     instead of failing at once with {@link BackPressureException}
 * @param idempotent the call may run twice without harm: a {@link io.xio.engine.cluster.ServiceClient} tries it
 *                   again on another server when its connection or server went away. A session never sends it
 *                   twice itself, but when it loses its last connection it fails such a call in flight at once
 *                   with {@link ConnectionException} instead of keeping it for a re-attach (which may never come
 *                   if the server died), so that whoever routes the call can send it elsewhere; other calls wait
 *                   for the re-attach, where the server's deduplication keeps them from running twice
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
}
