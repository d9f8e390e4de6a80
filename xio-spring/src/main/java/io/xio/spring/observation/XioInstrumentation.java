package io.xio.spring.observation;

import io.xio.engine.Metadata;
import org.jspecify.annotations.Nullable;

/**
 * Sees every call through client proxies and exported services, for metrics and tracing. The starter asks
 * for one {@link CallRecorder} per {@link XioCall} when that kind of call first happens, then drives it per
 * call; a recorder that keeps its meters resolved records without allocating. The actuator module provides
 * a Micrometer one; without a bean of this type, nothing is recorded. A recorder that traces carries the trace
 * across the wire in the call's {@link Metadata} and makes the server's trace current around the service method.
 *
 * <p>Implementations must be thread-safe: calls start and stop on application, worker and context threads.
 */
public interface XioInstrumentation
{
    /** Records nothing. */
    XioInstrumentation NONE = call -> CallRecorder.NONE;

    /** The recorder for calls of this kind; called once per kind, from any thread. */
    CallRecorder recorder(XioCall call);

    /** Records calls of one kind. */
    interface CallRecorder
    {
        /** Records nothing. */
        CallRecorder NONE = new CallRecorder()
        {
            @Override
            public @Nullable Object start(final @Nullable Metadata metadata)
            {
                return null;
            }

            @Override
            public void stop(final @Nullable Object started, final long startNanos, final XioCallOutcome outcome,
                final @Nullable Throwable failure)
            {
            }
        };

        /**
         * Whether {@link #start} writes into a client call's outgoing metadata (a trace context, say). Only then
         * does the client make a {@link Metadata} for it, so a recorder that does not keeps calls allocation-free.
         */
        default boolean propagates()
        {
            return false;
        }

        /**
         * A call starts, on the thread that makes it (client) or runs it (server); returns what {@link #stop}
         * and {@link #openScope} need back (null if nothing).
         *
         * @param metadata on the client, the request's outgoing metadata to write into when {@link #propagates()}
         *     (null otherwise); on the server, the metadata that arrived with the request (read-only)
         */
        @Nullable Object start(@Nullable Metadata metadata);

        /**
         * Makes the call current on this thread until the scope closes: the server opens one around the service
         * method (its synchronous part), so what the method logs, traces or calls belongs to the caller's trace.
         * Close it on the thread that opened it.
         *
         * @param started what {@link #start} returned
         */
        default Scope openScope(final @Nullable Object started)
        {
            return Scope.NONE;
        }

        /**
         * The call ended.
         *
         * @param started what {@link #start} returned
         * @param startNanos {@link System#nanoTime()} when the call started
         * @param outcome how it ended
         * @param failure what it failed with, or null
         */
        void stop(@Nullable Object started, long startNanos, XioCallOutcome outcome, @Nullable Throwable failure);

        /**
         * An exactly-once call ({@code @XioMethod(exactlyOnce = true)}) is answered: with the answer an earlier
         * attempt of its idempotency key committed, without running the method ({@code replayed}), or with what the
         * method did now. Called on the server, at most once per call, before {@link #stop}, on the thread that
         * runs the call; not for a call that failed before its answer was known.
         *
         * @param started what {@link #start} returned
         */
        default void exactlyOnce(final @Nullable Object started, final boolean replayed)
        {
        }

        /**
         * A stream's call is about to {@link #stop}: it sent {@code sent} messages and received {@code received}
         * (beside its opening message). Called once per stream, just before {@code stop}, on the thread that stops it.
         *
         * @param started what {@link #start} returned
         */
        default void streamed(final @Nullable Object started, final long sent, final long received)
        {
        }

        /**
         * {@link #streamed} then {@link #stopSafely}: a stream's end. A recorder that fails is logged; the stop is
         * recorded all the same.
         */
        default void stopStreamSafely(final @Nullable Object started, final long startNanos, final long sent,
            final long received, final XioCallOutcome outcome, final @Nullable Throwable failure)
        {
            try
            {
                streamed(started, sent, received);
            }
            catch (final RuntimeException ex)
            {
                org.slf4j.LoggerFactory.getLogger(XioInstrumentation.class).warn("recording a stream failed", ex);
            }
            stopSafely(started, startNanos, outcome, failure);
        }

        /** {@link #stop}, but a recorder that fails is logged, never allowed to disturb the call it records. */
        default void stopSafely(final @Nullable Object started, final long startNanos, final XioCallOutcome outcome,
            final @Nullable Throwable failure)
        {
            try
            {
                stop(started, startNanos, outcome, failure);
            }
            catch (final RuntimeException ex)
            {
                org.slf4j.LoggerFactory.getLogger(XioInstrumentation.class).warn("recording a call failed", ex);
            }
        }
    }

    /** What {@link CallRecorder#openScope} returns: closing it restores what was current before. */
    interface Scope extends AutoCloseable
    {
        /** Nothing was made current. */
        Scope NONE = () ->
        {
        };

        @Override
        void close();
    }
}
