package io.xio.spring.client;

import io.xio.engine.CallOptions;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.XioException;
import io.xio.engine.XioFuture;
import io.xio.spring.method.ServiceMethod;
import org.jspecify.annotations.Nullable;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Completes a blocking call, or a one-way message, on its caller's thread: its attempts one after the other within
 * the call's budget ({@link RetryingCall}), each on the session {@link AttemptSessions} gives it, then the first
 * one's result, else the last one's failure. An attempt waits on one of two things. On the engine's listener path,
 * the thread's {@link CallerWaiter}: the answer is decoded on the context thread that received it, and an interrupt
 * cancels the call, then waits until the engine says it ended. On the engine's future: the answer is decoded on the
 * caller's thread, and an interrupt cancels the call and gives up at once. A one-way message waits only for its
 * session, and for its receipt if it asks for one. Immutable; any thread but a context thread, which
 * {@link CallingThread} refuses a call that waits, except a one-way message without receipt: that one waits on the
 * context thread for its session when the session is not open yet.
 */
final class BlockingCompletion
{
    private final AttemptSessions sessions;
    private final RetryPolicy retry;
    private final ResponseDecoder decoder;
    private final long callerSpinNanos;

    /** @param callerSpinNanos how long a waiter spins before it parks ({@code XioEngine.callerSpin()}) */
    BlockingCompletion(final AttemptSessions sessions, final RetryPolicy retry, final ResponseDecoder decoder,
        final long callerSpinNanos)
    {
        this.sessions = sessions;
        this.retry = retry;
        this.decoder = decoder;
        this.callerSpinNanos = callerSpinNanos;
    }

    /**
     * The result of {@code call} sent as {@code message} with {@code options} (its budget), tried again as the policy
     * allows with the metadata {@code kept} for a resend; on the listener path when {@code listener}.
     */
    @Nullable Object call(final ServiceMethod call, final Outbound message, final CallOptions options,
        final @Nullable Metadata kept, final boolean listener) throws Throwable
    {
        final long deadline = System.nanoTime() + options.timeout().toNanos();
        try
        {
            return attempt(call, message, options, listener);
        }
        catch (final Throwable failure)
        {
            // The attempts after the first in a lambda: a call that succeeds at once makes none.
            final int[] made = {1};
            return RetryingCall.callAfter(retry.forCall(call), retry.attempts(call), deadline, failure,
                RequestEncoder.exactlyOnceKey(call, kept), remaining ->
                attempt(call, RequestEncoder.again(message, kept, call.exactlyOnce(), made[0]++),
                    options.withTimeout(remaining), listener));
        }
    }

    private @Nullable Object attempt(final ServiceMethod call, final Outbound message, final CallOptions budget,
        final boolean listener) throws Throwable
    {
        final CompletableFuture<Session> opening = sessions.opening();
        if (AttemptSessions.isOpen(opening))
        {
            return exchange(call, opening.join(), message, sessions.elsewhere(budget), listener);
        }
        final long begun = System.nanoTime();
        final Session opened = sessions.await(opening, budget.timeout());
        return exchange(call, opened, message, sessions.afterOpening(budget, begun), listener);
    }

    /** Sends one attempt on {@code session} and waits for its outcome. */
    private @Nullable Object exchange(final ServiceMethod call, final Session session, final Outbound message,
        final CallOptions options, final boolean listener) throws Throwable
    {
        if (call.oneWay())
        {
            final XioFuture<Void> sent = session.send(message, options);
            if (call.receipt())
            {
                await(sent, call);
            }
            return null;
        }
        if (listener)
        {
            final CallerWaiter waiter = CallerWaiter.current();
            // a blocking call made while this thread's waiter is in use (from an engine interceptor) waits on its own
            return (waiter.busy ? new CallerWaiter() : waiter).call(decoder, call, session, message, options,
                callerSpinNanos);
        }
        try (Message response = await(session.request(message, options), call))
        {
            return decoder.decode(call, response);
        }
    }

    private static <T> T await(final XioFuture<T> future, final ServiceMethod call) throws Throwable
    {
        try
        {
            return future.get();
        }
        catch (final ExecutionException ex)
        {
            throw ex.getCause();
        }
        catch (final InterruptedException ex)
        {
            throw interrupted(future, call.method().getName(), ex);
        }
    }

    /**
     * The exception for a caller interrupted while waiting on {@code future}, after cancelling it, with the
     * thread's interrupt status restored whatever the future turns out to hold: an answer that arrived just then
     * is closed (nobody else will release it); a failure that arrived just then is only noted.
     */
    static XioException interrupted(final CompletableFuture<?> future, final String method,
        final InterruptedException ex)
    {
        final XioException interrupted = new CallerInterruptedException("interrupted while waiting for " + method, ex,
            true);
        try
        {
            if (!future.cancel(true) && !future.isCompletedExceptionally() &&
                future.getNow(null) instanceof AutoCloseable arrived)
            {
                arrived.close();
            }
        }
        catch (final Exception closing)
        {
            interrupted.addSuppressed(closing);
        }
        finally
        {
            Thread.currentThread().interrupt();
        }
        return interrupted;
    }
}
