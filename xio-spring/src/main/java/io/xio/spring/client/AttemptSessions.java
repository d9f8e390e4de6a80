package io.xio.spring.client;

import io.xio.engine.CallOptions;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.XioTimeoutException;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Where each attempt of a client's calls takes its session from {@link ClientSessions}, and with what budget it is
 * sent there: on a session that is open at once with the attempt's whole budget; else once the session opened, never
 * waiting longer than the budget, with what opening left of it. An idempotent attempt is asked to fail at once on a
 * session with no connection up only if another instance could take it. Thread-safe; only {@link #await} blocks.
 */
final class AttemptSessions
{
    /** An attempt of a call returning a future, told its session once it is open, or why there is none. */
    interface AsyncSend
    {
        /** Sends {@code message} on {@code session} with {@code options}. */
        void send(Session session, Outbound message, CallOptions options);

        /** The attempt was not sent: no session within its budget. */
        void notSent(Throwable failure);
    }

    private final ClientSessions sessions;

    AttemptSessions(final ClientSessions sessions)
    {
        this.sessions = sessions;
    }

    /** The session for the next attempt, opened if need be; never blocks. */
    CompletableFuture<Session> opening()
    {
        return sessions.session();
    }

    /** Whether {@code opening} is an open session an attempt may take at once. */
    static boolean isOpen(final CompletableFuture<Session> opening)
    {
        return opening.isDone() && !opening.isCompletedExceptionally();
    }

    /**
     * The session {@code opening} once open, waiting for it on this thread within {@code timeout}: for a blocking
     * attempt, which the calling thread keeps off the engine's context threads.
     */
    Session await(final CompletableFuture<Session> opening, final Duration timeout) throws Throwable
    {
        try
        {
            return opening.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw ex.getCause();
        }
        catch (final TimeoutException ex)
        {
            throw noSessionWithin(timeout);
        }
        catch (final InterruptedException ex)
        {
            // The caller gave up, not the session: it opens on for the calls that share it.
            Thread.currentThread().interrupt();
            throw new CallerInterruptedException("interrupted while waiting for a session to " + sessions.target(),
                ex, false);
        }
    }

    /**
     * Sends an attempt of a call returning a future with {@code budget}: at once on an open session, else once its
     * session opened, without blocking this thread.
     */
    void whenOpen(final Outbound message, final CallOptions budget, final AsyncSend attempt)
    {
        final CompletableFuture<Session> opening = opening();
        if (isOpen(opening))
        {
            attempt.send(opening.join(), message, elsewhere(budget));
            return;
        }
        final long begun = System.nanoTime();
        within(opening, budget.timeout()).whenComplete((opened, failure) ->
        {
            if (failure != null)
            {
                attempt.notSent(CallFailures.unwrap(failure));
                return;
            }
            final CallOptions options;
            try
            {
                options = afterOpening(budget, begun);
            }
            catch (final XioTimeoutException ex)
            {
                attempt.notSent(ex);
                return;
            }
            attempt.send(opened, message, options);
        });
    }

    /**
     * {@code options} for one attempt: an idempotent call fails at once when its session has no connection up only
     * if another instance could take it; with nowhere else to go it waits for the re-attach like any other.
     */
    CallOptions elsewhere(final CallOptions options)
    {
        return options.idempotent() && !sessions.elsewhere() ? options.withIdempotent(false) : options;
    }

    /** {@link #elsewhere} options with what is left of {@code budget} since the attempt's session began to open. */
    CallOptions afterOpening(final CallOptions budget, final long begun)
    {
        final long left = budget.timeout().toNanos() - (System.nanoTime() - begun);
        if (left <= 0)
        {
            throw new XioTimeoutException("the call's " + budget.timeout().toMillis() +
                " ms passed while its session opened", null, false);
        }
        return elsewhere(budget.withTimeout(Duration.ofNanos(left)));
    }

    /** {@code opening}, failing if it takes longer than {@code timeout} to open. */
    private CompletableFuture<Session> within(final CompletableFuture<Session> opening, final Duration timeout)
    {
        if (opening.isDone())
        {
            return opening;
        }
        // A copy: the timeout is this call's, the session everybody's.
        return opening.copy().orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS).exceptionallyCompose(ex ->
            CompletableFuture.failedFuture(CallFailures.unwrap(ex) instanceof TimeoutException
                ? noSessionWithin(timeout) : ex));
    }

    private XioTimeoutException noSessionWithin(final Duration timeout)
    {
        final String lastFailure = sessions.lastFailure();
        return new XioTimeoutException("no session to " + sessions.target() + " within the call's " + timeout +
            " deadline: " + (lastFailure != null ? lastFailure : "still connecting"), null, false);
    }
}
