package io.xio.spring.client;

import io.xio.engine.CallOptions;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.spring.call.XioCallChain;
import io.xio.spring.call.XioClientCall;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioCallOutcome;
import io.xio.spring.observation.XioInstrumentation.CallRecorder;
import io.xio.spring.stream.ReactorStreams;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The steps every call of one client proxy takes: recording starts; the call's timeout is set
 * ({@link CallingThread}); the call runs through the client's interceptors ({@link ClientInterceptors}: none is the
 * empty chain, skipped) to the last step, which checks the calling thread, encodes the request
 * ({@link RequestEncoder}) and hands it to the {@link BlockingCompletion} or the {@link AsyncCompletion}, which
 * attempt it with retry and decode the answer. Without interceptors a call takes the engine's allocation-free
 * listener path (a one-way message has none), so its answer is decoded on the context thread that received it.
 * Through interceptors it takes the engine's futures, as it always has: a blocking call's answer is decoded on its
 * caller's thread, and an interrupted caller gives up at once. A method returning a {@code Mono} makes its call at
 * each subscription; an exactly-once one's Mono gives every subscription the same key ({@link MonoCallKey}). The
 * outcome is recorded once; a failure reaches the caller as {@link CallFailures} translates it. Thread-safe.
 */
final class ClientCallPipeline
{
    private final ClientInterceptors interceptors;
    private final CallingThread caller;
    private final RequestEncoder encoder;
    private final BlockingCompletion blocking;
    private final AsyncCompletion async;
    private final CallFailures failures;
    /** The calls of stream methods; null for a client without them (it may run without Reactor). */
    private final @Nullable StreamingCalls streams;

    ClientCallPipeline(final ClientInterceptors interceptors, final CallingThread caller,
        final RequestEncoder encoder, final BlockingCompletion blocking, final AsyncCompletion async,
        final CallFailures failures, final @Nullable StreamingCalls streams)
    {
        this.streams = streams;
        this.interceptors = interceptors;
        this.caller = caller;
        this.encoder = encoder;
        this.blocking = blocking;
        this.async = async;
        this.failures = failures;
    }

    /**
     * One call of {@code method} (of {@code state}) with {@code arguments}: its result, or the future of it for a
     * method that returns one.
     */
    @Nullable Object call(final ClientMethodState state, final Method method, final @Nullable Object[] arguments)
        throws Throwable
    {
        if (state.call.isStream())
        {
            return streams.call(state, method, arguments);
        }
        if (state.call.returnKind() == ServiceMethod.ReturnKind.MONO)
        {
            // Made when subscribed, cancelled with the subscription: what a Mono's subscriber expects. An
            // exactly-once call's key is made with its Mono: a subscription again is the same call tried again.
            final MonoCallKey key = state.call.exactlyOnce() ? new MonoCallKey() : null;
            return ReactorStreams.mono(() ->
            {
                try
                {
                    // An interceptor may hand back another CompletionStage than the call's own future.
                    return ((java.util.concurrent.CompletionStage<?>)callNow(state, method, arguments,
                        key != null ? key.next() : null)).toCompletableFuture();
                }
                catch (final Throwable ex)
                {
                    return CompletableFuture.failedFuture(ex);
                }
            });
        }
        return callNow(state, method, arguments, null);
    }

    /** One call of {@code method}, made now, its metadata starting as {@code given} (null: none yet). */
    private @Nullable Object callNow(final ClientMethodState state, final Method method,
        final @Nullable Object[] arguments, final @Nullable Metadata given) throws Throwable
    {
        final CallRecorder recorder = state.recorder;
        final long start = System.nanoTime();
        // One metadata for the call: the tracer writes its context into it at start, interceptors add theirs.
        final Metadata outgoing = given != null ? given : recorder.propagates() ? new Metadata() : null;
        // Before the recording starts: should resolving the interceptors throw, no observation is left open.
        final boolean intercepted = !interceptors.isEmpty();
        final Object started = recorder.start(outgoing);
        return state.call.answersLater()
            ? callAsync(state, method, arguments, outgoing, intercepted, started, start)
            : callBlocking(state, method, arguments, outgoing, intercepted, started, start);
    }

    private @Nullable Object callBlocking(final ClientMethodState state, final Method method,
        final @Nullable Object[] arguments, final @Nullable Metadata outgoing, final boolean intercepted,
        final @Nullable Object started, final long start) throws Throwable
    {
        final Object result;
        try
        {
            final Duration timeout = caller.timeout(state, method);
            if (intercepted)
            {
                final LastStep last = new LastStep(state, method, arguments, timeout, outgoing, null, 0);
                result = interceptors.run(last.call, last);
            }
            else
            {
                result = sendBlocking(state, arguments, outgoing, timeout, !state.call.oneWay());
            }
        }
        catch (final Throwable ex)
        {
            // before a remote failure takes the service's type
            state.recorder.stopSafely(started, start, XioCallOutcome.of(ex), ex);
            throw failures.translate(ex, method);
        }
        state.recorder.stopSafely(started, start, XioCallOutcome.SUCCESS, null);
        return result;
    }

    private @Nullable Object callAsync(final ClientMethodState state, final Method method,
        final @Nullable Object[] arguments, final @Nullable Metadata outgoing, final boolean intercepted,
        final @Nullable Object started, final long start) throws Throwable
    {
        LastStep last = null;
        try
        {
            final Duration timeout = caller.timeout(state, method);
            if (!intercepted)
            {
                return sendAsync(state, method, arguments, outgoing, timeout, true, started, start);
            }
            last = new LastStep(state, method, arguments, timeout, outgoing, started, start);
            return interceptors.run(last.call, last);
        }
        catch (final Throwable ex)
        {
            if (last != null && last.sent != null)
            {
                last.sent.cancel(true); // an interceptor threw after the call left: its caller will not wait for it
                throw ex;
            }
            state.recorder.stopSafely(started, start, XioCallOutcome.of(ex), ex);
            // A failure that came through interceptors is theirs to shape: it reaches the caller as thrown.
            throw intercepted ? ex : failures.translate(ex, method);
        }
    }

    /**
     * The last step of a blocking call or one-way message: sent with {@code metadata} and {@code timeout}, on the
     * engine's listener path when {@code listener}.
     */
    private @Nullable Object sendBlocking(final ClientMethodState state, final @Nullable Object[] arguments,
        final @Nullable Metadata metadata, final Duration timeout, final boolean listener) throws Throwable
    {
        final ServiceMethod call = state.call;
        final Metadata sent = RequestEncoder.firstAttempt(call, metadata);
        final boolean fireAndForget = call.oneWay() && !call.receipt();
        final CallerWaiter waiter = CallerWaiter.current();
        final boolean onContext = caller.onContextThread(waiter, call, !fireAndForget);
        // A thread waits until xio is done with its listened message: its next call may send it again.
        final Outbound message = listener && state.sharedHeader != null && !waiter.busy
            ? waiter.reusable(state, arguments)
            : encoder.encode(state, arguments, waiter, fireAndForget); // a caller may reuse what it sent unwaited
        return blocking.call(call, RequestEncoder.withMetadata(message, sent), state.options(timeout, onContext),
            encoder.keptForResend(call, sent), listener);
    }

    /**
     * The last step of a call returning a future: sent with {@code metadata} and {@code timeout}, on the engine's
     * listener path when {@code listener}.
     */
    private CompletableFuture<Object> sendAsync(final ClientMethodState state, final Method method,
        final @Nullable Object[] arguments, final @Nullable Metadata metadata, final Duration timeout,
        final boolean listener, final @Nullable Object started, final long start)
    {
        final CallerWaiter waiter = CallerWaiter.current();
        final boolean onContext = caller.onContextThread(waiter, state.call, false);
        final Metadata sent = RequestEncoder.firstAttempt(state.call, metadata);
        // The request goes back to its method's pool once the engine told the listener the call's outcome.
        final SegmentRequest pooled = listener && state.free != null ? SegmentRequest.take(state) : null;
        final Outbound message = RequestEncoder.withMetadata(pooled != null ? pooled.fill(state, arguments)
            : encoder.encode(state, arguments, waiter, false), sent);
        final CallOptions options = state.options(timeout, onContext);
        final Metadata kept = encoder.keptForResend(state.call, sent);
        return listener ? async.listening(state, message, pooled, options, kept, started, start)
            : async.onFutures(state, method, message, options, kept, started, start);
    }

    /**
     * The end of one call's chain through its interceptors, which one may proceed to once: the last step, with the
     * metadata and timeout the interceptors left. Used on the caller's thread.
     */
    private final class LastStep implements XioCallChain
    {
        private final ClientMethodState state;
        private final Method method;
        private final @Nullable Object[] arguments;
        private final XioClientCall call;
        private final @Nullable Object started;
        private final long start;
        private boolean proceeded;
        /** A call returning a future, once it left: from then on it records its own outcome. */
        private @Nullable CompletableFuture<Object> sent;

        /**
         * @param started what the recorder's start returned, for a call returning a future (which records its own
         *                outcome once sent); a blocking call's is recorded once the chain returned
         * @param start   {@link System#nanoTime()} when the call started
         */
        LastStep(final ClientMethodState state, final Method method, final @Nullable Object[] arguments,
            final Duration timeout, final @Nullable Metadata metadata, final @Nullable Object started,
            final long start)
        {
            this.state = state;
            this.method = method;
            this.arguments = arguments;
            this.call = interceptors.call(method, arguments, timeout, metadata);
            this.started = started;
            this.start = start;
        }

        @Override
        public @Nullable Object proceed() throws Throwable
        {
            if (!state.call.answersLater())
            {
                // A blocking call whose proceed threw may have been sent all the same: its answer is what failed.
                interceptors.once(proceeded, method);
                proceeded = true;
                return sendBlocking(state, arguments, call.metadataIfAny(), call.timeout(), false);
            }
            // A call returning a future left once it has one: one whose request could not be made may go again.
            interceptors.once(sent != null, method);
            sent = sendAsync(state, method, arguments, call.metadataIfAny(), call.timeout(), false, started, start);
            return sent;
        }
    }
}
