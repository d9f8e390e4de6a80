package io.xio.engine;

import java.time.Duration;

/**
 * How one request or message is sent. Immutable and thread-safe.
 *
 * @param timeout the deadline from the call; null means the session's default
 * @param receipt ask the receiver for a delivery receipt
 * @param waitWhenFull when the session has its limit of requests in flight, wait (up to the deadline)
 *                     instead of failing at once with {@link BackPressureException}
 */
public record CallOptions(Duration timeout, boolean receipt, boolean waitWhenFull)
{
    public static final CallOptions DEFAULT = new CallOptions(null, false, false);

    public static CallOptions timeout(final Duration timeout)
    {
        return new CallOptions(timeout, false, false);
    }

    public CallOptions withTimeout(final Duration value)
    {
        return new CallOptions(value, receipt, waitWhenFull);
    }

    public CallOptions withReceipt(final boolean value)
    {
        return new CallOptions(timeout, value, waitWhenFull);
    }

    public CallOptions withWaitWhenFull(final boolean value)
    {
        return new CallOptions(timeout, receipt, value);
    }
}
