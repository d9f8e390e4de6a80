package io.xio.spring.client;

import io.xio.engine.BackPressureException;
import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.RemoteException;
import io.xio.engine.SessionDrainingException;
import io.xio.engine.support.Backoff;
import io.xio.spring.method.ServiceMethod;

/**
 * When one client tries a call again: only an idempotent or exactly-once method's, only after a failure that says
 * the call may not have run or that its answer is lost, at most {@code maxAttempts} times, waiting {@code backoff}
 * between attempts. Immutable; any thread.
 *
 * <p>Which failures: a {@link ConnectionException} (the connection could not be made or was lost past the
 * engine's re-attach, the session was closed by the server or expired there, its context failed) and a
 * {@link RemoteException#isResponseLost() RESPONSE_LOST} answer (the call ran, its answer was too large to keep
 * for the engine's resend). Not: an application error, since the server answered and would answer the same; a
 * timeout, since the call's budget is spent (and a DEADLINE_EXCEEDED answer says the same); a cancel; a session
 * the server rejected; and not back-pressure either, although the server did not run the call: it asks the
 * caller to slow down, and a client that retries within the same deadline would bring the load back sooner,
 * times the number of clients, which is how an overload turns into a retry storm. That call fails at once, so the
 * application decides. But an exactly-once call ({@link #forCall}) is tried again after a server's back-pressure
 * refusal too: its server refuses so an attempt that found its idempotency key held by another attempt still running
 * (a duplicate after a partition, say), and the next attempt gets that one's answer; its attempts and backoff bound
 * the added load as they bound a connection loss's. One exception to idempotency: a call that a draining server's
 * session refused before sending it ({@link SessionDrainingException}) never ran, so any call may be tried again
 * after that.
 *
 * @param maxAttempts the most attempts of one idempotent call, the first included
 * @param backoff the waits between attempts
 * @param retriesRefusals whether a server's back-pressure refusal is tried again too: an exactly-once call's policy
 */
record RetryPolicy(int maxAttempts, Backoff backoff, boolean retriesRefusals)
{
    /** The policy of a client's idempotent calls. */
    RetryPolicy(final int maxAttempts, final Backoff backoff)
    {
        this(maxAttempts, backoff, false);
    }

    /** How many attempts {@code call} may have: 1 unless it is idempotent or exactly-once. */
    int attempts(final ServiceMethod call)
    {
        return call.idempotent() || call.exactlyOnce() ? maxAttempts : 1;
    }

    /** The policy of {@code call}'s attempts: this one, or for an exactly-once call one that retries refusals. */
    RetryPolicy forCall(final ServiceMethod call)
    {
        return call.exactlyOnce() && !retriesRefusals ? new RetryPolicy(maxAttempts, backoff, true) : this;
    }

    /** Whether an attempt that failed so may be tried again under this policy. */
    boolean retries(final Throwable failure)
    {
        return mayRetry(failure) || retriesRefusals && refusedByServer(failure);
    }

    /** Whether the server turned the call away unrun with back-pressure (not this side, for lack of room). */
    static boolean refusedByServer(final Throwable failure)
    {
        return failure instanceof BackPressureException &&
            failure.getCause() instanceof io.xio.engine.RemoteException remote && remote.isBackPressure();
    }

    /**
     * Whether a call that failed so was never sent: a session its server asked to go away refused it on this side
     * ({@link SessionDrainingException}), so it may be tried again on another instance whether or not it is
     * idempotent, up to {@link #maxAttempts()}.
     */
    static boolean neverSent(final Throwable failure)
    {
        return failure instanceof SessionDrainingException;
    }

    /** Whether a call that failed so may not have run, or has lost its answer: see the type's Javadoc. */
    static boolean mayRetry(final Throwable failure)
    {
        return CallOptions.mayRetryIdempotent(failure);
    }
}
