package io.xio.spring.autoconfigure.client;

import io.xio.engine.BackPressureException;
import io.xio.engine.CallOptions;
import io.xio.engine.Context;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.RemoteException;
import io.xio.engine.ResponseListener;
import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.XioEngine;
import io.xio.engine.XioFuture;
import io.xio.engine.XioTimeoutException;
import io.xio.spring.autoconfigure.call.InterceptorChain;
import io.xio.spring.autoconfigure.call.XioClientCall;
import io.xio.spring.autoconfigure.call.XioClientInterceptor;
import io.xio.spring.autoconfigure.call.XioServerCall;
import io.xio.spring.autoconfigure.codec.XioCodec;
import io.xio.spring.autoconfigure.method.Invocation;
import io.xio.spring.autoconfigure.method.ServiceMethod;
import io.xio.spring.autoconfigure.observation.XioCall;
import io.xio.spring.autoconfigure.observation.XioCallOutcome;
import io.xio.spring.autoconfigure.observation.XioInstrumentation;
import io.xio.spring.autoconfigure.observation.XioInstrumentation.CallRecorder;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Behind a client proxy: each call becomes one transaction on a session opened on first use (so an
 * application starts while its server is down, and the first call reports why it cannot reach it); an
 * idempotent call whose session or server went away may become a few, on fresh sessions ({@link RetryPolicy}), and
 * so may any call that a draining server's session refused unsent. Each attempt takes its session from
 * {@link ClientSessions}: the one session of a URI, or for a client that names a service the instance its
 * {@link io.xio.engine.cluster.ServiceClient} picks, so an attempt tried again lands on another instance.
 * Without client interceptors a call takes the engine's allocation-free listener path, so its result is decoded
 * on the context thread that received the response (the response is valid only there): a codec must not block or
 * make a blocking xio call while decoding. Thread-safe.
 */
final class XioClientInvocationHandler implements InvocationHandler
{
    private final Class<?> api;
    private final String name;
    private final ClientSessions sessions;
    private final XioEngine engine;
    private final XioCodec codec;
    private final Duration timeout;
    private final AllowedExceptions allowedExceptions;
    private final java.util.function.Supplier<List<XioClientInterceptor>> interceptorSource;
    private volatile List<XioClientInterceptor> interceptors;
    private final String resource;
    private final RetryPolicy retry;
    private final Map<Method, ServiceMethod> methods = new ConcurrentHashMap<>();
    private final Map<ServiceMethod, CallRecorder> recorders = new ConcurrentHashMap<>();
    /** What each method's calls share, made with the proxy: no lookup or encoding of it per call. */
    private final Map<Method, ClientMethodState> states = new ConcurrentHashMap<>();
    private final long callerSpinNanos;
    /** Where an asynchronous call's next attempt starts once its backoff is over ({@link #onAContext}). */
    private final Executor afterBackoff = this::onAContext;
    private static final Object[] NO_ARGUMENTS = new Object[0];
    /** Each caller thread's waiter for its blocking calls, and its buffer for encoding arguments. */
    private static final ThreadLocal<CallerWaiter> WAITERS = ThreadLocal.withInitial(CallerWaiter::new);

    XioClientInvocationHandler(final Class<?> api, final String name, final String uri, final XioEngine engine,
        final XioCodec codec, final SessionOptions options, final XioInstrumentation instrumentation,
        final AllowedExceptions allowedExceptions, final RetryPolicy retry,
        final java.util.function.Supplier<List<XioClientInterceptor>> interceptors)
    {
        this(api, name, new UriSessions(engine, uri, options), engine, codec, options, instrumentation,
            allowedExceptions, retry, interceptors);
    }

    /** A client whose attempts take their sessions from {@code sessions} (one address, or a service's instances). */
    XioClientInvocationHandler(final Class<?> api, final String name, final ClientSessions sessions,
        final XioEngine engine, final XioCodec codec, final SessionOptions options,
        final XioInstrumentation instrumentation, final AllowedExceptions allowedExceptions, final RetryPolicy retry,
        final java.util.function.Supplier<List<XioClientInterceptor>> interceptors)
    {
        this.allowedExceptions = allowedExceptions;
        this.retry = retry;
        this.api = api;
        this.name = name == null ? "" : name;
        this.sessions = sessions;
        this.engine = engine;
        this.codec = codec;
        this.timeout = options.timeout();
        this.resource = sessions.resource();
        this.interceptorSource = interceptors;
        for (final Method method : api.getMethods())
        {
            if (!method.isDefault() && !java.lang.reflect.Modifier.isStatic(method.getModifiers()))
            {
                final ServiceMethod described = ServiceMethod.of(method, api); // fails fast on bad settings
                methods.put(method, described);
                final CallRecorder recorder = instrumentation.recorder(new XioCall(XioCall.Side.CLIENT,
                    resource, method.getName(), described.wireName(), sessions.transport()));
                recorders.put(described, recorder);
                states.put(method, new ClientMethodState(described, recorder, codec, timeout));
            }
        }
        this.callerSpinNanos = engine.callerSpin().toNanos();
    }

    @Override
    public Object invoke(final Object proxy, final Method method, final Object[] args) throws Throwable
    {
        if (method.getDeclaringClass() == Object.class)
        {
            return switch (method.getName())
            {
                case "toString" -> "xio client " + api.getName() + " -> " + sessions.target();
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> throw new UnsupportedOperationException(method.getName());
            };
        }
        if (method.isDefault())
        {
            return InvocationHandler.invokeDefault(proxy, method, args);
        }
        final ClientMethodState state = states.get(method);
        final ServiceMethod call = state.call;
        final CallRecorder recorder = state.recorder;
        final long start = System.nanoTime();
        // One metadata for the call: the tracer writes its context into it at start, interceptors add theirs.
        final Metadata outgoing = recorder.propagates() ? new Metadata() : null;
        final Object started = recorder.start(outgoing);
        final Object[] arguments = args == null ? NO_ARGUMENTS : args;
        if (!call.oneWay() && interceptors().isEmpty())
        {
            return invokeDirect(state, method, arguments, outgoing, started, start);
        }
        if (call.returnKind() == ServiceMethod.ReturnKind.FUTURE)
        {
            // Set once the call left: from then on the call records its own outcome, and a throw is cancelled.
            final CompletableFuture<?>[] sent = new CompletableFuture<?>[1];
            try
            {
                final XioClientCall intercepted = newCall(call, method, arguments, outgoing);
                return InterceptorChain.client(interceptors(), intercepted, () ->
                {
                    once(sent[0] != null, method);
                    sent[0] = callAsync(call, method, prepare(call, method, arguments, true, intercepted), recorder,
                        started, start);
                    return sent[0];
                });
            }
            catch (final Throwable ex)
            {
                if (sent[0] != null)
                {
                    sent[0].cancel(true); // an interceptor threw after the call left: its caller will not wait for it
                }
                else
                {
                    recorder.stopSafely(started, start, XioCallOutcome.of(ex), ex);
                }
                throw ex;
            }
        }
        final Object result;
        try
        {
            final XioClientCall intercepted = newCall(call, method, arguments, outgoing);
            final boolean[] proceeded = new boolean[1];
            result = InterceptorChain.client(interceptors(), intercepted, () ->
            {
                once(proceeded[0], method);
                proceeded[0] = true;
                return invokeNow(call, method, arguments, intercepted);
            });
        }
        catch (final Throwable ex)
        {
            // before a remote failure takes the service's type
            recorder.stopSafely(started, start, XioCallOutcome.of(ex), ex);
            throw translate(ex, method);
        }
        recorder.stopSafely(started, start, XioCallOutcome.SUCCESS, null);
        return result;
    }

    /**
     * A call without interceptors, the common case: its header made from the method's precomputed share, sent on
     * the engine's listener path (no future, no lambda); a blocking caller waits on its thread's reusable waiter,
     * an asynchronous one gets the one future that the response completes.
     */
    private Object invokeDirect(final ClientMethodState state, final Method method, final Object[] arguments,
        final Metadata outgoing, final Object started, final long start) throws Throwable
    {
        final ServiceMethod call = state.call;
        final boolean async = call.returnKind() == ServiceMethod.ReturnKind.FUTURE;
        final Outbound message;
        final SegmentRequest pooled;
        final CallOptions options;
        final Metadata retryMetadata;
        try
        {
            final Duration limit = limit(call, method);
            final CallerWaiter waiter = WAITERS.get();
            final boolean onContext = onContextThread(waiter, method, async);
            // A blocking call's thread waits until xio is done with its message: the next call may send it again;
            // an asynchronous call's request goes back to its method's pool once the engine told the outcome.
            pooled = async && state.free != null ? SegmentRequest.take(state) : null;
            message = pooled != null ? pooled.fill(state, arguments)
                : async || state.sharedHeader == null || waiter.busy ? message(state, arguments)
                : waiter.reusable(state, arguments);
            final boolean withMetadata = outgoing != null && !outgoing.isEmpty();
            if (withMetadata)
            {
                message.metadata(outgoing);
            }
            options = limit != state.timeout ? state.options(limit, !onContext)
                : onContext ? state.contextOptions : state.options;
            retryMetadata = withMetadata && retry.maxAttempts() > 1 ? new Metadata(outgoing) : null;
        }
        catch (final Throwable ex)
        {
            state.recorder.stopSafely(started, start, XioCallOutcome.of(ex), ex);
            throw translate(ex, method);
        }
        if (async)
        {
            final AsyncCall result = new AsyncCall(state, message, pooled, options, retryMetadata, started, start);
            final CompletableFuture<Session> opening = sessions.session();
            if (opening.isDone() && !opening.isCompletedExceptionally())
            {
                result.send(opening.join(), message, elsewhere(options));
            }
            else
            {
                result.sendWhenOpen(message, options);
            }
            return result;
        }
        final Object result;
        try
        {
            final long deadline = System.nanoTime() + options.timeout().toNanos();
            Object value;
            try
            {
                value = attemptDirect(state, method, message, options);
            }
            catch (final Throwable failure)
            {
                value = RetryingCall.callAfter(retry, retry.attempts(call), deadline, failure, remaining ->
                    attemptDirect(state, method, again(message, retryMetadata), options.withTimeout(remaining)));
            }
            result = value;
        }
        catch (final Throwable ex)
        {
            state.recorder.stopSafely(started, start, XioCallOutcome.of(ex), ex);
            throw translate(ex, method);
        }
        state.recorder.stopSafely(started, start, XioCallOutcome.SUCCESS, null);
        return result;
    }

    /** One attempt of a blocking call without interceptors, waited for on this thread's waiter. */
    private Object attemptDirect(final ClientMethodState state, final Method method, final Outbound message,
        final CallOptions budget) throws Throwable
    {
        final CompletableFuture<Session> opening = sessions.session();
        final Session current;
        final CallOptions options;
        if (opening.isDone() && !opening.isCompletedExceptionally())
        {
            current = opening.join();
            options = elsewhere(budget);
        }
        else
        {
            final long begun = System.nanoTime();
            current = sessionNow(budget.timeout());
            options = elsewhere(budget.withTimeout(left(budget.timeout(), begun))); // what opening left
        }
        final CallerWaiter waiter = WAITERS.get();
        // a blocking call made while this thread's waiter is in use (from an engine interceptor) waits on its own
        return (waiter.busy ? new CallerWaiter() : waiter).call(this, state.call, method, current, message, options,
            callerSpinNanos);
    }

    /** A call's message: the method's constant header, or its name and the arguments encoded, and its segments. */
    private Outbound message(final ClientMethodState state, final Object[] arguments)
    {
        final ServiceMethod call = state.call;
        final ByteBuffer header;
        if (state.sharedHeader != null)
        {
            header = state.sharedHeader;
        }
        else
        {
            final Object[] encoded = state.segmentCount > 0 ? Invocation.withoutSegments(call, arguments) : arguments;
            final CallerWaiter waiter = WAITERS.get();
            if (waiter.encoding)
            {
                // A codec that calls a proxy while it encodes: the thread's buffer is taken.
                header = Invocation.header(call.wireName(), codec.encodeArguments(encoded, call.parameterTypes()));
            }
            else
            {
                waiter.encoding = true;
                try
                {
                    final java.io.ByteArrayOutputStream out = waiter.out;
                    out.reset();
                    out.write(state.name, 0, state.name.length);
                    codec.encodeArguments(encoded, call.parameterTypes(), out);
                    header = ByteBuffer.wrap(out.toByteArray());
                }
                finally
                {
                    waiter.encoding = false;
                }
                if (waiter.out.size() > CallerWaiter.KEPT_BYTES)
                {
                    waiter.out = new java.io.ByteArrayOutputStream(CallerWaiter.KEPT_BYTES / 4); // not kept for ever
                }
            }
        }
        if (state.segmentCount == 0)
        {
            return Outbound.of(header);
        }
        final ByteBuffer[] segments = new ByteBuffer[state.segmentCount];
        final boolean[] isSegment = call.segments();
        int at = 0;
        for (int i = 0; i < isSegment.length; i++)
        {
            if (isSegment[i])
            {
                segments[at++] = Invocation.asBuffer(arguments[i]);
            }
        }
        return Outbound.of(header, segments);
    }

    /**
     * The request message of a method whose header is constant (every argument a data segment), sent again and
     * again: a blocking thread's (one call at a time), or one of its method's pool of asynchronous ones, taken by
     * a call and given back once the engine told that call's outcome. A {@code byte[]} argument of at most
     * {@value #KEPT_ARRAY_BYTES} bytes keeps its wrapping buffer, so a caller that sends the same array again costs
     * no buffer either. Used by one call at a time; the pool hands it between threads.
     */
    static final class SegmentRequest
    {
        /** How many idle requests a method keeps: more calls than this outstanding make the rest anew. */
        static final int POOLED = 256;
        /** Larger arrays are not kept referenced by an idle request. */
        static final int KEPT_ARRAY_BYTES = 1024;
        private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);
        private final ByteBuffer[] segments;
        /** Per segment, the small array last sent there and its wrap, else null. */
        private final byte[][] arrays;
        private final ByteBuffer[] wraps;
        private final Outbound message;

        SegmentRequest(final ClientMethodState state)
        {
            segments = new ByteBuffer[state.segmentCount];
            java.util.Arrays.fill(segments, NOTHING);
            arrays = new byte[state.segmentCount][];
            wraps = new ByteBuffer[state.segmentCount];
            message = state.segmentCount == 0 ? Outbound.of(state.sharedHeader)
                : Outbound.of(state.sharedHeader, segments);
        }

        /** An idle request of {@code state}'s method, or a new one when all are out. */
        static SegmentRequest take(final ClientMethodState state)
        {
            final SegmentRequest idle = state.free.poll();
            return idle != null ? idle : new SegmentRequest(state);
        }

        /** The message of a call with {@code arguments}: its segments set, no metadata. */
        Outbound fill(final ClientMethodState state, final Object[] arguments)
        {
            final boolean[] isSegment = state.call.segments();
            int at = 0;
            for (int i = 0; i < isSegment.length; i++)
            {
                if (isSegment[i])
                {
                    segments[at] = segment(at, arguments[i]);
                    at++;
                }
            }
            return message.metadata(null);
        }

        private ByteBuffer segment(final int at, final Object argument)
        {
            if (argument instanceof byte[] bytes && bytes.length <= KEPT_ARRAY_BYTES)
            {
                if (arrays[at] != bytes)
                {
                    arrays[at] = bytes;
                    wraps[at] = ByteBuffer.wrap(bytes); // xio moves no position: the wrap stays as it was made
                }
                return wraps[at];
            }
            arrays[at] = null;
            wraps[at] = null;
            return Invocation.asBuffer(argument);
        }

        /** Back to {@code state}'s pool (xio no longer reads it), holding no large buffer of the call's. */
        void release(final ClientMethodState state)
        {
            for (int i = 0; i < segments.length; i++)
            {
                if (segments[i] != wraps[i])
                {
                    segments[i] = NOTHING;
                }
            }
            message.metadata(null);
            state.free.offer(this);
        }
    }

    /**
     * The future a call without interceptors returns, the only object it completes: the engine tells it the
     * outcome of each attempt directly; an attempt that failed in a way the policy retries starts the next one after
     * the backoff. Cancelling it cancels the attempt under way, on the server too.
     */
    private final class AsyncCall extends CompletableFuture<Object> implements ResponseListener
    {
        private static final java.util.concurrent.atomic.AtomicIntegerFieldUpdater<AsyncCall> RECORDED =
            java.util.concurrent.atomic.AtomicIntegerFieldUpdater.newUpdater(AsyncCall.class, "recorded");
        private final ClientMethodState state;
        private final Outbound first;
        /** The pooled request {@link #first} belongs to, until it goes back to its pool (or is let go for a retry). */
        private SegmentRequest pooled;
        private final CallOptions options;
        private final Metadata retryMetadata;
        private final Object started;
        private final long start;
        private int attempt;
        private volatile Session session;
        private volatile long requestId;
        /** 1 once the call's outcome was recorded: by the engine's answer, a failure, or the caller's cancel. */
        private volatile int recorded;

        AsyncCall(final ClientMethodState state, final Outbound first, final SegmentRequest pooled,
            final CallOptions options, final Metadata retryMetadata, final Object started, final long start)
        {
            this.state = state;
            this.first = first;
            this.pooled = pooled;
            this.options = options;
            this.retryMetadata = retryMetadata;
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

        void send(final Session current, final Outbound message, final CallOptions callOptions)
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

        /** Sends once the session is open, within what is left of {@code budget} then. */
        void sendWhenOpen(final Outbound message, final CallOptions budget)
        {
            final long begun = System.nanoTime();
            session(budget.timeout()).whenComplete((current, failure) ->
            {
                if (failure != null)
                {
                    onFailure(0, unwrap(failure));
                    return;
                }
                final CallOptions callOptions;
                try
                {
                    callOptions = elsewhere(budget.withTimeout(left(budget.timeout(), begun))); // what opening left
                }
                catch (final XioTimeoutException ex)
                {
                    onFailure(0, ex);
                    return;
                }
                send(current, message, callOptions);
            });
        }

        /**
         * Records the outcome once: the caller may have completed this future first (orTimeout, complete,
         * cancel), and the call still ends at the engine, which is what metrics and tracing record then.
         */
        private void record(final XioCallOutcome outcome, final Throwable failure)
        {
            if (RECORDED.compareAndSet(this, 0, 1))
            {
                state.recorder.stopSafely(started, start, outcome, failure);
            }
        }

        private void failWith(final Throwable failure)
        {
            record(XioCallOutcome.of(failure), failure);
            completeExceptionally(translate(failure, state.call.method()));
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
                value = decode(state.call, response);
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
            final Throwable failure = unwrap(cause);
            if (isDone())
            {
                releaseRequest();
                record(XioCallOutcome.of(failure), failure); // the caller completed or cancelled it: no retry
                return;
            }
            final long wait = RetryingCall.nextWait(retry, retry.attempts(state.call), attempt, failure, deadline());
            if (wait < 0)
            {
                releaseRequest();
                failWith(failure);
                return;
            }
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
            sendWhenOpen(XioClientInvocationHandler.again(first, retryMetadata),
                options.withTimeout(Duration.ofNanos(left)).withWaitWhenFull(false));
        }

        @Override
        public boolean cancel(final boolean mayInterruptIfRunning)
        {
            final boolean cancelled = super.cancel(mayInterruptIfRunning);
            if (cancelled)
            {
                final java.util.concurrent.CancellationException why =
                    new java.util.concurrent.CancellationException();
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

    /** What is left of {@code budget} since {@code begun}; a timeout once nothing is. */
    private static Duration left(final Duration budget, final long begun)
    {
        final long left = budget.toNanos() - (System.nanoTime() - begun);
        if (left <= 0)
        {
            throw new XioTimeoutException("the call's " + budget.toMillis() + " ms passed while its session opened");
        }
        return Duration.ofNanos(left);
    }

    /**
     * Refuses a second send of one call by an interceptor that proceeded twice: only xio may send a call again (an
     * idempotent one), a second send of another could run it twice.
     */
    private void once(final boolean sentBefore, final Method method)
    {
        if (sentBefore)
        {
            throw new IllegalStateException("an interceptor proceeded twice with one call of " +
                api.getSimpleName() + "." + method.getName() + "; xio retries idempotent calls itself");
        }
    }

    /**
     * The interceptors for this client, resolved on its first call, not when the proxy is made: an interceptor may
     * itself depend on an {@code @XioClient} (a token service, say).
     */
    private List<XioClientInterceptor> interceptors()
    {
        List<XioClientInterceptor> resolved = interceptors;
        if (resolved == null)
        {
            final String client = name.isEmpty() ? sessions.target() : name;
            resolved = interceptorSource.get().stream().filter(i -> i.appliesTo(client, resource)).toList();
            interceptors = resolved;
        }
        return resolved;
    }

    /**
     * The call as interceptors see it, with the method's or client's timeout, shortened to the time left of the call
     * this thread serves: a call made while serving another never outlives its caller's deadline.
     */
    private XioClientCall newCall(final ServiceMethod call, final Method method, final Object[] arguments,
        final Metadata metadata)
    {
        return new XioClientCall(name.isEmpty() ? sessions.target() : name, resource, method, arguments,
            limit(call, method), metadata);
    }

    /** The call's timeout: the method's or client's, shortened to what is left of the call this thread serves. */
    private Duration limit(final ServiceMethod call, final Method method)
    {
        Duration limit = call.timeout() != null ? call.timeout() : timeout;
        final XioServerCall serving = XioServerCall.current();
        final Duration left = serving == null ? null : serving.timeRemaining();
        if (left != null)
        {
            if (left.isZero())
            {
                throw new XioTimeoutException("call " + api.getSimpleName() + "." + method.getName() + " not sent: " +
                    "the deadline of the call being served (" + serving + ") has passed");
            }
            limit = left.compareTo(limit) < 0 ? left : limit;
        }
        return limit;
    }

    private Object invokeNow(final ServiceMethod call, final Method method, final Object[] args,
        final XioClientCall intercepted) throws Throwable
    {
        final boolean async = call.oneWay() && !call.receipt();
        final Prepared prepared = prepare(call, method, args, async, intercepted);
        final Outbound[] attempt = {prepared.message};
        return RetryingCall.call(retry, retry.attempts(call), prepared.options.timeout(), remaining ->
        {
            final Outbound message = attempt[0];
            attempt[0] = null;
            return attemptNow(call, method, message != null ? message : again(prepared),
                prepared.options.withTimeout(remaining));
        });
    }

    /** One attempt of a blocking call; an idempotent call's message is sent again as it is. */
    private Object attemptNow(final ServiceMethod call, final Method method, final Outbound message,
        final CallOptions budget) throws Throwable
    {
        final long begun = System.nanoTime();
        final Session current = sessionNow(budget.timeout());
        final CallOptions options = elsewhere(budget.withTimeout(left(budget.timeout(), begun))); // what opening left
        if (call.oneWay())
        {
            final XioFuture<Void> sent = current.send(message, options);
            if (call.receipt())
            {
                await(sent, method);
            }
            return null;
        }
        try (Message response = await(current.request(message, options), method))
        {
            return call.returnKind() == ServiceMethod.ReturnKind.VOID ? null : decode(call, response);
        }
    }

    /**
     * @param retryMetadata for a call that may be sent again: its metadata as the proxy made it, before the
     *                      engine's interceptors added theirs to the first send; else null
     */
    private record Prepared(Outbound message, CallOptions options, Metadata retryMetadata)
    {
    }

    /**
     * The prepared message for another attempt: the same header and segments (xio is done with them once the
     * attempt failed) and a fresh copy of the metadata as the proxy made it, without what the engine's own
     * interceptors added to the first send (they add it again), and not sealed.
     */
    private static Outbound again(final Prepared prepared)
    {
        return again(prepared.message, prepared.retryMetadata);
    }

    /** {@link #again(Prepared)} of a message and the metadata the proxy made for it (or null). */
    private static Outbound again(final Outbound message, final Metadata retryMetadata)
    {
        final Outbound copy = message.sameData();
        return retryMetadata == null ? copy : copy.metadata(new Metadata(retryMetadata));
    }

    /** The call's message and options; refuses a blocking call on a context thread. */
    private Prepared prepare(final ServiceMethod call, final Method method, final Object[] args, final boolean async,
        final XioClientCall intercepted)
    {
        final boolean onContext = onContextThread(WAITERS.get(), method, async);
        final Object[] arguments = args;
        ByteBuffer[] segments = Invocation.segments(call, arguments);
        if (call.oneWay() && !call.receipt())
        {
            segments = copies(segments); // the caller may reuse its buffers as soon as we return
        }
        final Outbound message = Outbound.of(Invocation.header(call.wireName(),
            codec.encodeArguments(Invocation.withoutSegments(call, arguments), call.parameterTypes())), segments);
        final Metadata metadata = intercepted.metadataIfAny();
        if (metadata != null && !metadata.isEmpty())
        {
            message.metadata(metadata);
        }
        return new Prepared(message, CallOptions.timeout(intercepted.timeout())
            .withReceipt(call.receipt()).withWaitWhenFull(!onContext).withIdempotent(call.idempotent()),
            metadata != null && !metadata.isEmpty() && retry.maxAttempts() > 1 ? new Metadata(metadata) : null);
    }

    /**
     * A call returning a future never blocks: the session is opened asynchronously if need be. The result
     * completes on an xio context thread, so continuations that block should move to an executor of their own.
     */
    private CompletableFuture<Object> callAsync(final ServiceMethod call, final Method method, final Prepared prepared,
        final CallRecorder recorder, final Object started, final long start)
    {
        final CompletableFuture<Object> result = new CompletableFuture<>();
        final java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);
        final CompletableFuture<Object> attempts = RetryingCall.callAsync(retry, retry.attempts(call),
            prepared.options.timeout(), afterBackoff, remaining ->
            {
                if (first.getAndSet(false))
                {
                    return attemptAsync(call, prepared.message, prepared.options.withTimeout(remaining));
                }
                // A retry runs on a context thread: it must not wait there for room in the window.
                return attemptAsync(call, again(prepared), prepared.options.withTimeout(remaining)
                    .withWaitWhenFull(false));
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
                fail(result, unwrap(ex), method, recorder, started, start);
                return;
            }
            recorder.stopSafely(started, start, XioCallOutcome.SUCCESS, null);
            result.complete(value);
        });
        return result;
    }

    /** One attempt of a call returning a future: its decoded result, or how it failed as the engine said. */
    private CompletableFuture<Object> attemptAsync(final ServiceMethod call, final Outbound message,
        final CallOptions budget)
    {
        final CompletableFuture<Object> result = new CompletableFuture<>();
        final long begun = System.nanoTime();
        session(budget.timeout()).whenComplete((current, failure) ->
        {
            if (failure != null)
            {
                result.completeExceptionally(unwrap(failure));
                return;
            }
            final CallOptions callOptions;
            try
            {
                callOptions = elsewhere(budget.withTimeout(left(budget.timeout(), begun))); // what opening left
            }
            catch (final XioTimeoutException ex)
            {
                result.completeExceptionally(ex);
                return;
            }
            final XioFuture<Message> reply;
            try
            {
                reply = current.request(message, callOptions);
            }
            catch (final RuntimeException ex)
            {
                result.completeExceptionally(ex); // else the caller's future would never complete
                return;
            }
            result.whenComplete((value, ex) ->
            {
                if (result.isCancelled())
                {
                    reply.cancel(true); // cancels the call on the server too
                }
            });
            reply.whenComplete((response, ex) ->
            {
                if (ex != null)
                {
                    result.completeExceptionally(unwrap(ex));
                    return;
                }
                try (response)
                {
                    result.complete(decode(call, response));
                }
                catch (final Throwable decodeFailure)
                {
                    result.completeExceptionally(decodeFailure);
                }
            });
        });
        return result;
    }

    /** Records how the call failed (as the engine reported it), then fails the caller's future. */
    private void fail(final CompletableFuture<Object> result, final Throwable failure, final Method method,
        final CallRecorder recorder, final Object started, final long start)
    {
        recorder.stopSafely(started, start, XioCallOutcome.of(failure), failure);
        result.completeExceptionally(translate(failure, method));
    }

    private static ByteBuffer[] copies(final ByteBuffer[] segments)
    {
        final ByteBuffer[] copies = new ByteBuffer[segments.length];
        for (int i = 0; i < segments.length; i++)
        {
            copies[i] = ByteBuffer.allocate(segments[i].remaining()).put(segments[i].duplicate()).flip();
        }
        return copies;
    }

    Object decode(final ServiceMethod call, final Message response)
    {
        if (call.returnKind() == ServiceMethod.ReturnKind.VOID || call.resultType() == Void.class)
        {
            return null;
        }
        if (call.resultIsSegment())
        {
            if (response.segmentCount() == 0)
            {
                return null;
            }
            // Results are copies: the message goes back to the pool when this call returns.
            if (call.resultType() == byte[].class)
            {
                return Invocation.fromSegment(response, 0, byte[].class);
            }
            final ByteBuffer segment = response.segment(0);
            final ByteBuffer copy = ByteBuffer.allocate(segment.remaining());
            copy.put(segment).flip();
            return copy;
        }
        return codec.decode(response.header(), call.resultType());
    }

    private <T> T await(final XioFuture<T> future, final Method method) throws Throwable
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
            throw interrupted(future, method.getName(), ex);
        }
    }

    /**
     * The exception for a caller interrupted while waiting on {@code future}, after cancelling it, with the
     * thread's interrupt status restored whatever the future turns out to hold: an answer that arrived just then
     * is closed (nobody else will release it); a failure that arrived just then is only noted.
     */
    static io.xio.engine.XioException interrupted(final CompletableFuture<?> future, final String method,
        final InterruptedException ex)
    {
        final io.xio.engine.XioException interrupted =
            new io.xio.engine.XioException("interrupted while waiting for " + method, ex);
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

    private static Throwable unwrap(final Throwable ex)
    {
        return ex instanceof CompletionException && ex.getCause() != null ? ex.getCause() : ex;
    }

    /**
     * The server's exception as the same type when it is on the call's allow-list, else {@link XioRemoteException};
     * a call the server turned away for lack of room as {@link BackPressureException}, with the server's answer as
     * its cause, the same type a call refused on this side for lack of room gets.
     */
    private Throwable translate(final Throwable failure, final Method method)
    {
        if (failure instanceof BackPressureException refused && refused.getCause() instanceof RemoteException remote &&
            remote.isBackPressure())
        {
            return new BackPressureException(api.getSimpleName() + "." + method.getName() + " was turned away " +
                "unrun by " + sessions.target() + ": the service is too busy; retry later or slow down", remote);
        }
        if (!(failure instanceof RemoteException remote) || remote.remoteType() == null)
        {
            return failure;
        }
        return allowedExceptions.rebuild(remote, method);
    }

    /**
     * {@code options} for one attempt: an idempotent call fails at once when its session has no connection up only
     * if another instance could take it; with nowhere else to go it waits for the re-attach like any other.
     */
    private CallOptions elsewhere(final CallOptions options)
    {
        return options.idempotent() && !sessions.elsewhere() ? options.withIdempotent(false) : options;
    }

    /** The session for the next attempt; opening never blocks. */
    private CompletableFuture<Session> session()
    {
        return sessions.session();
    }

    /** Where this client's session (or a service client's instances) stand; never blocks. */
    XioClientStatus status()
    {
        return sessions.status(name, api);
    }

    /** Lets go of a service client's watch and sessions; a URI client's session closes with the engine. */
    void close()
    {
        sessions.close();
    }

    /** Opens the session if there is none (or it failed or closed), without waiting. */
    void probe()
    {
        session();
    }

    /** The session for a blocking call (never on a context thread): waits for it to open, within {@code timeout}. */
    private Session sessionNow(final Duration timeout) throws Throwable
    {
        try
        {
            return session().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw ex.getCause();
        }
        catch (final TimeoutException ex)
        {
            throw noSessionWithin(timeout);
        }
    }

    /** The session for a call returning a future, failing if it takes longer than {@code timeout} to open. */
    private CompletableFuture<Session> session(final Duration timeout)
    {
        final CompletableFuture<Session> current = session();
        if (current.isDone())
        {
            return current;
        }
        // A copy: the timeout is this call's, the session everybody's.
        return current.copy().orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS).exceptionallyCompose(ex ->
            CompletableFuture.failedFuture(unwrap(ex) instanceof TimeoutException ? noSessionWithin(timeout) : ex));
    }

    private XioTimeoutException noSessionWithin(final Duration timeout)
    {
        final String lastFailure = sessions.lastFailure();
        return new XioTimeoutException("no session to " + sessions.target() + " within the call's " + timeout +
            " deadline: " + (lastFailure != null ? lastFailure : "still connecting"));
    }

    /**
     * Runs {@code attempt} on one of the engine's contexts, as the call's completions do, rather than on
     * the common pool, CompletableFuture's default (on Java 25, or with more than two CPUs), which the application may
     * keep busy while the call's deadline runs out. An attempt does not wait there: it opens its session
     * asynchronously and does not wait for room in the window. On the calling thread (the JDK's delay scheduler)
     * when no context is running, so that the attempt still ends, failing as calls on a closed engine do. Like
     * any thread handing a context a task, the scheduler waits for room when that context's queue of 65536 tasks is
     * full.
     */
    private void onAContext(final Runnable attempt)
    {
        final List<Context> contexts = engine.contexts();
        final int from = contexts.isEmpty() ? 0 : ThreadLocalRandom.current().nextInt(contexts.size());
        for (int i = 0; i < contexts.size(); i++)
        {
            final Context context = contexts.get((from + i) % contexts.size());
            if (context.isRunning())
            {
                try
                {
                    context.execute(attempt);
                    return;
                }
                catch (final RuntimeException closed)
                {
                    // it closed meanwhile: try the next
                }
            }
        }
        attempt.run();
    }

    /** Whether the calling thread is one of the engine's context threads; refuses a blocking call there. */
    private boolean onContextThread(final CallerWaiter waiter, final Method method, final boolean async)
    {
        final boolean onContext = waiter.onContextThread(engine);
        if (!async && onContext)
        {
            throw new IllegalStateException("blocking call " + api.getSimpleName() + "." + method.getName() +
                " on an xio context thread would stall its event loop; return CompletableFuture instead");
        }
        return onContext;
    }
}
