package io.xio.spring.client;

import io.xio.engine.CallOptions;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.ResponseListener;
import io.xio.engine.Session;
import io.xio.engine.XioFuture;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioCallOutcome;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * Completes a call that returns a future, never blocking its caller: each attempt takes its session from
 * {@link AttemptSessions} asynchronously; a failure the policy retries starts the next attempt after the backoff, on
 * an engine context; the answer is decoded on the context thread that received it, and the outcome recorded once.
 * Cancelling the future cancels the attempt under way, on the server too. Two ways: on the engine's listener path the
 * returned future itself hears each attempt's outcome and retries ({@link #listening}: no future of the engine's, no
 * lambda); on the engine's futures the returned future is completed by {@link RetryingCall}'s attempts, which go on
 * even when the caller completed it first ({@link #onFutures}). Immutable; any thread.
 */
final class AsyncCompletion
{
    private final AttemptSessions sessions;
    private final RetryPolicy retry;
    private final ResponseDecoder decoder;
    private final CallFailures failures;
    private final Executor afterBackoff;

    /** @param afterBackoff where an attempt after the first starts once its backoff is over; must not block */
    AsyncCompletion(final AttemptSessions sessions, final RetryPolicy retry, final ResponseDecoder decoder,
        final CallFailures failures, final Executor afterBackoff)
    {
        this.sessions = sessions;
        this.retry = retry;
        this.decoder = decoder;
        this.failures = failures;
        this.afterBackoff = afterBackoff;
    }

    /**
     * The call of {@code state}'s method sent as {@code message} (taken from the method's pool if {@code pooled} is
     * not null) with {@code options}, on the engine's listener path.
     *
     * @param kept    the metadata kept for a resend, or null
     * @param started what the recorder's start returned
     * @param start   {@link System#nanoTime()} when the call started: its deadline runs from then
     */
    CompletableFuture<Object> listening(final ClientMethodState state, final Outbound message,
        final @Nullable SegmentRequest pooled, final CallOptions options, final @Nullable Metadata kept,
        final @Nullable Object started, final long start)
    {
        final AsyncCall call = new AsyncCall(state, message, pooled, options, kept, started, start);
        sessions.whenOpen(message, options, call);
        return call;
    }

    /**
     * The call of {@code state}'s method sent as {@code message} with {@code options}, on the engine's futures; its
     * deadline runs from now. A failure reaches the caller as {@link CallFailures} translates it for {@code method}.
     *
     * @param kept    the metadata kept for a resend, or null
     * @param started what the recorder's start returned
     * @param start   {@link System#nanoTime()} when the call started
     */
    CompletableFuture<Object> onFutures(final ClientMethodState state, final Method method, final Outbound message,
        final CallOptions options, final @Nullable Metadata kept, final @Nullable Object started, final long start)
    {
        final ServiceMethod call = state.call;
        final CompletableFuture<Object> result = new CompletableFuture<>();
        final AtomicInteger made = new AtomicInteger();
        final CompletableFuture<Object> attempts = RetryingCall.callAsync(retry.forCall(call), retry.attempts(call),
            options.timeout(), RequestEncoder.exactlyOnceKey(call, kept), afterBackoff, remaining ->
            {
                final int before = made.getAndIncrement();
                if (before == 0)
                {
                    return attempt(call, message, options.withTimeout(remaining));
                }
                // A retry runs on a context thread: it must not wait there for room in the window.
                return attempt(call, RequestEncoder.again(message, kept, call.exactlyOnce(), before),
                    options.withTimeout(remaining).withWaitWhenFull(false));
            });
        result.whenComplete((value, ex) ->
        {
            if (result.isCancelled())
            {
                attempts.cancel(true); // cancels the call on the server too
            }
        });
        attempts.whenComplete((value, ex) ->
        {
            if (ex != null)
            {
                final Throwable failure = CallFailures.unwrap(ex);
                state.recorder.stopSafely(started, start, XioCallOutcome.of(failure), failure);
                result.completeExceptionally(failures.translate(failure, method));
                return;
            }
            state.recorder.stopSafely(started, start, XioCallOutcome.SUCCESS, null);
            result.complete(value);
        });
        return result;
    }

    /** One attempt on the engine's futures: its decoded result, or how it failed as the engine said. */
    private CompletableFuture<Object> attempt(final ServiceMethod call, final Outbound message,
        final CallOptions budget)
    {
        final FutureAttempt attempt = new FutureAttempt(call);
        sessions.whenOpen(message, budget, attempt);
        return attempt;
    }

    /** One attempt on the engine's futures, completed with its decoded answer. */
    private final class FutureAttempt extends CompletableFuture<Object> implements AttemptSessions.AsyncSend
    {
        private final ServiceMethod call;

        FutureAttempt(final ServiceMethod call)
        {
            this.call = call;
        }

        @Override
        public void send(final Session session, final Outbound message, final CallOptions options)
        {
            final XioFuture<Message> reply;
            try
            {
                reply = session.request(message, options);
            }
            catch (final RuntimeException ex)
            {
                completeExceptionally(ex); // else the caller's future would never complete
                return;
            }
            whenComplete((value, ex) ->
            {
                if (isCancelled())
                {
                    reply.cancel(true); // cancels the call on the server too
                }
            });
            reply.whenComplete((response, ex) ->
            {
                if (ex != null)
                {
                    completeExceptionally(CallFailures.unwrap(ex));
                    return;
                }
                try (response)
                {
                    complete(decoder.decode(call, response));
                }
                catch (final Throwable decodeFailure)
                {
                    completeExceptionally(decodeFailure);
                }
            });
        }

        @Override
        public void notSent(final Throwable failure)
        {
            completeExceptionally(failure);
        }
    }

    /**
     * The future a call on the listener path returns, the only object it completes: the engine tells it the outcome
     * of each attempt directly; an attempt that failed in a way the policy retries starts the next one after the
     * backoff, unless the caller completed the future meanwhile. Cancelling it cancels the attempt under way, on the
     * server too.
     */
    private final class AsyncCall extends CompletableFuture<Object> implements ResponseListener,
        AttemptSessions.AsyncSend
    {
        private static final AtomicIntegerFieldUpdater<AsyncCall> RECORDED =
            AtomicIntegerFieldUpdater.newUpdater(AsyncCall.class, "recorded");
        private final ClientMethodState state;
        private final Outbound first;
        /** The pooled request {@link #first} belongs to, until it goes back to its pool (or is let go for a retry). */
        private @Nullable SegmentRequest pooled;
        private final CallOptions options;
        private final @Nullable Metadata kept;
        private final @Nullable Object started;
        private final long start;
        private int attempt;
        /** Whether an attempt that failed may have run (so the call may have, whatever a later one says). */
        private boolean written;
        private volatile @Nullable Session session;
        private volatile long requestId;
        /** 1 once the call's outcome was recorded: by the engine's answer, a failure, or the caller's cancel. */
        private volatile int recorded;

        AsyncCall(final ClientMethodState state, final Outbound first, final @Nullable SegmentRequest pooled,
            final CallOptions options, final @Nullable Metadata kept, final @Nullable Object started,
            final long start)
        {
            this.state = state;
            this.first = first;
            this.pooled = pooled;
            this.options = options;
            this.kept = kept;
            this.started = started;
            this.start = start;
        }

        /** The call's deadline from when it began: computed, not kept, in the one object a call leaves. */
        private long deadline()
        {
            return start + options.timeout().toNanos();
        }

        /** The first attempt's outcome was told: xio no longer reads its request, which the next call may take. */
        private void releaseRequest()
        {
            final SegmentRequest request = pooled;
            if (request != null)
            {
                pooled = null;
                request.release(state);
            }
        }

        @Override
        public void send(final Session current, final Outbound message, final CallOptions callOptions)
        {
            session = current;
            final long id;
            try
            {
                id = current.request(message, callOptions, this);
            }
            catch (final RuntimeException ex)
            {
                onFailure(0, ex); // else the caller's future would never complete
                return;
            }
            if (id != 0)
            {
                requestId = id;
                if (isCancelled())
                {
                    current.cancel(id, id); // cancelled while it was sent
                }
            }
        }

        @Override
        public void notSent(final Throwable failure)
        {
            onFailure(0, failure);
        }

        /**
         * Records the outcome once: the caller may have completed this future first (orTimeout, complete,
         * cancel), and the call still ends at the engine, which is what metrics and tracing record then.
         */
        private void record(final XioCallOutcome outcome, final @Nullable Throwable failure)
        {
            if (RECORDED.compareAndSet(this, 0, 1))
            {
                state.recorder.stopSafely(started, start, outcome, failure);
            }
        }

        private void failWith(final Throwable failure)
        {
            record(XioCallOutcome.of(failure), failure);
            completeExceptionally(failures.translate(failure, state.call.method()));
        }

        @Override
        public void onResponse(final long id, final Message response)
        {
            releaseRequest();
            if (isDone())
            {
                record(XioCallOutcome.SUCCESS, null); // the caller completed or cancelled it first
                return;
            }
            final Object value;
            try
            {
                value = decoder.decode(state.call, response);
            }
            catch (final Throwable ex)
            {
                failWith(ex);
                return;
            }
            record(XioCallOutcome.SUCCESS, null);
            complete(value);
        }

        @Override
        public void onFailure(final long id, final Throwable cause)
        {
            final Throwable failure = CallFailures.unwrap(cause);
            if (isDone())
            {
                releaseRequest();
                record(XioCallOutcome.of(failure), failure); // the caller completed or cancelled it: no retry
                return;
            }
            final long wait = RetryingCall.nextWait(retry.forCall(state.call), retry.attempts(state.call), attempt,
                failure, deadline());
            if (wait < 0)
            {
                releaseRequest();
                failWith(RetryingCall.ending(failure, written, RequestEncoder.exactlyOnceKey(state.call, kept)));
                return;
            }
            written |= RetryingCall.mayHaveRun(failure);
            // The next attempt sends the same buffers: the pooled request is not given back, the GC takes it.
            pooled = null;
            attempt++;
            requestId = 0;
            CompletableFuture.delayedExecutor(wait, TimeUnit.NANOSECONDS, afterBackoff).execute(() -> again(failure));
        }

        /** The next attempt, on a context thread: it must not wait there for room in the window. */
        private void again(final Throwable last)
        {
            if (isDone())
            {
                record(XioCallOutcome.of(last), last); // cancelled or completed by the caller during the backoff
                return;
            }
            final long left = Math.max(1, deadline() - System.nanoTime());
            sessions.whenOpen(RequestEncoder.again(first, kept, state.call.exactlyOnce(), attempt),
                options.withTimeout(Duration.ofNanos(left)).withWaitWhenFull(false), this);
        }

        @Override
        public boolean cancel(final boolean mayInterruptIfRunning)
        {
            final boolean cancelled = super.cancel(mayInterruptIfRunning);
            if (cancelled)
            {
                final CancellationException why = new CancellationException();
                record(XioCallOutcome.of(why), why);
                final Session current = session;
                final long id = requestId;
                if (current != null && id != 0)
                {
                    current.cancel(id, id); // cancels the call on the server too
                }
            }
            return cancelled;
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture()
        {
            return new CompletableFuture<>(); // what the caller chains is a plain future
        }
    }
}
