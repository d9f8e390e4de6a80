package io.xio.engine;

import java.time.Duration;

/**
 * How one request or message is sent. Immutable and thread-safe; a {@code with} method returns these options
 * themselves when they already have the value it sets.
 *
 * @param timeout the deadline from the call; null means the session's default
 * @param receipt ask the receiver for a delivery receipt
 * @param waitWhenFull when the session has its limit of requests in flight, wait (up to the deadline)
 *                     instead of failing at once with {@link BackPressureException}
 * @param idempotent the call may run twice without harm, and its caller would rather send it elsewhere than wait:
 *                   when the session has no connection up (it lost its last one with the call in flight, or the call
 *                   comes while it reconnects), the call fails at once with a {@link ConnectionException} instead of
 *                   waiting for the re-attach (its server may be gone for good), so a
 *                   {@code ServiceClient} (module xio-cluster, or the Spring client) sends it to another server; a
 *                   session itself never sends a call twice. A {@code ServiceClient} with one endpoint only lets its
 *                   calls wait instead
 * @param recycledFuture the request's {@link XioFuture} and its response {@link Message} come from a pool and go back
 *                       to it when the response is closed (see {@link #withRecycledFuture()}): the garbage-free
 *                       future. Neither may be touched after that close
 * @param exactlyOnce the call carries an idempotency key that every attempt of it keeps ({@link IdempotencyKeys}),
 *                    so that a server keeping an execution ledger runs it once, whatever server each attempt
 *                    reaches: the application's own, set in its metadata under {@link IdempotencyKeys#METADATA_KEY},
 *                    else one made when it is sent, once the client interceptors ran (an interceptor may set this
 *                    option too); the message's metadata is then replaced by a copy carrying it. An invalid key is
 *                    refused at the call: {@link Session#request} and {@link Session#send} throw an
 *                    {@link IllegalArgumentException}, while a {@code ServiceClient}'s future fails with it. A key
 *                    made for a call is that call's only: the same message or metadata sent again, as it is or
 *                    copied, is another call and gets a new key. To send the call again with its key (after a
 *                    {@link ConnectionException} whose {@link ConnectionException#mayHaveRun()} is true, say), send
 *                    its data with {@link IdempotencyKeys#forRetry} of the metadata it sent. It does not change how
 *                    the call waits: on a session with no connection up it waits for the re-attach like any call
 *                    (the server's deduplication window keeps it once meanwhile), unless it is also
 *                    {@code idempotent}, which makes it fail at once so it may be sent elsewhere with its key; a
 *                    {@code ServiceClient} with other endpoints sends its attempts so and tries it again on another
 *                    itself, with its key
 */
public record CallOptions(Duration timeout, boolean receipt, boolean waitWhenFull, boolean idempotent,
    boolean recycledFuture, boolean exactlyOnce)
{
    public static final CallOptions DEFAULT = new CallOptions(null, false, false, false, false, false);

    public CallOptions(final Duration timeout, final boolean receipt, final boolean waitWhenFull)
    {
        this(timeout, receipt, waitWhenFull, false, false, false);
    }

    public CallOptions(final Duration timeout, final boolean receipt, final boolean waitWhenFull,
        final boolean idempotent)
    {
        this(timeout, receipt, waitWhenFull, idempotent, false, false);
    }

    public CallOptions(final Duration timeout, final boolean receipt, final boolean waitWhenFull,
        final boolean idempotent, final boolean recycledFuture)
    {
        this(timeout, receipt, waitWhenFull, idempotent, recycledFuture, false);
    }

    public static CallOptions timeout(final Duration timeout)
    {
        return new CallOptions(timeout, false, false, false, false, false);
    }

    public CallOptions withTimeout(final Duration value)
    {
        return new CallOptions(value, receipt, waitWhenFull, idempotent, recycledFuture, exactlyOnce);
    }

    public CallOptions withReceipt(final boolean value)
    {
        return value == receipt ? this :
            new CallOptions(timeout, value, waitWhenFull, idempotent, recycledFuture, exactlyOnce);
    }

    public CallOptions withWaitWhenFull(final boolean value)
    {
        return value == waitWhenFull ? this :
            new CallOptions(timeout, receipt, value, idempotent, recycledFuture, exactlyOnce);
    }

    public CallOptions withIdempotent(final boolean value)
    {
        return value == idempotent ? this :
            new CallOptions(timeout, receipt, waitWhenFull, value, recycledFuture, exactlyOnce);
    }

    /** The call carries an idempotency key every attempt keeps, so a server keeping a ledger runs it once. */
    public CallOptions withExactlyOnce(final boolean value)
    {
        return value == exactlyOnce ? this :
            new CallOptions(timeout, receipt, waitWhenFull, idempotent, recycledFuture, value);
    }

    /**
     * The garbage-free future: the call's {@link XioFuture} and its response {@link Message} are taken from a pool
     * and go back to it when the response is closed, so a round trip allocates neither. The price is what the
     * caller may hold: after {@link Message#close()} of the response neither the message nor the future may be
     * touched (not even read: both may already serve a later call), so keep the response's bytes, not the objects,
     * and register one action ({@code whenComplete}, {@code thenAccept}, {@code handle}) that closes the response,
     * rather than waiting on the future from several places. A call that fails (or is cancelled) completes its
     * future exceptionally and never recycles it: it is left to the garbage collector. Requests only: a one-way
     * {@link Session#send} has no response to close, and ignores the option.
     */
    public CallOptions withRecycledFuture()
    {
        return new CallOptions(timeout, receipt, waitWhenFull, idempotent, true, exactlyOnce);
    }

    /**
     * Whether an idempotent (or exactly-once) call that failed with {@code failure} may be sent again: its
     * connection or server went away (a {@link ConnectionException}) or its answer was too large to keep for a
     * resend (a {@link RemoteException#isResponseLost() RESPONSE_LOST} answer). Not after an application error, a
     * timeout, a cancel, a rejected session or back-pressure.
     */
    public static boolean mayRetryIdempotent(final Throwable failure)
    {
        return failure instanceof ConnectionException ||
            failure instanceof RemoteException remote && remote.isResponseLost();
    }
}
