package io.xio.spring.client;

import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.RemoteException;
import io.xio.engine.SessionDrainingException;
import io.xio.engine.support.Backoff;
import io.xio.spring.method.ServiceMethod;

/**
 * When one client tries a call again: only an idempotent method's, only after a failure that says the call may not
 * have run or that its answer is lost, at most {@code maxAttempts} times, waiting {@code backoff} between attempts.
 * Immutable; any thread.
 *
 * <p>Which failures: a {@link ConnectionException} (the connection could not be made or was lost past the
 * engine's re-attach, the session was closed by the server or expired there, its context failed) and a
 * {@link RemoteException#isResponseLost() RESPONSE_LOST} answer (the call ran, its answer was too large to keep
 * for the engine's resend). Not: an application error, since the server answered and would answer the same; a
 * timeout, since the call's budget is spent (and a DEADLINE_EXCEEDED answer says the same); a cancel; a session
 * the server rejected; and not back-pressure either, although the server did not run the call: it asks the
 * caller to slow down, and a client that retries within the same deadline would bring the load back sooner,
 * times the number of clients, which is how an overload turns into a retry storm. That call fails at once, so the
 * application decides. One exception to idempotency: a call that a draining server's session refused before sending
 * it ({@link SessionDrainingException}) never ran, so any call may be tried again after that.
 *
 * @param maxAttempts the most attempts of one idempotent call, the first included
 * @param backoff the waits between attempts
 */
record RetryPolicy(int maxAttempts, Backoff backoff)
{
    /** How many attempts {@code call} may have: 1 unless it is idempotent. */
    int attempts(final ServiceMethod call)
    {
        return call.idempotent() ? maxAttempts : 1;
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
