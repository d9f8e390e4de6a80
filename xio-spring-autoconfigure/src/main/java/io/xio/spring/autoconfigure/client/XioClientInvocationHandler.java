package io.xio.spring.autoconfigure.client;

import io.xio.engine.BackPressureException;
import io.xio.engine.CallOptions;
import io.xio.engine.Context;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.RemoteException;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Behind a client proxy: each call becomes one transaction on a session opened on first use (so an
 * application starts while its server is down, and the first call reports why it cannot reach it); an
 * idempotent call whose session or server went away may become a few, on fresh sessions ({@link RetryPolicy}), and
 * so may any call that a draining server's session refused unsent. Each attempt takes its session from
 * {@link ClientSessions}: the one session of a URI, or for a client that names a service the instance its
 * {@link io.xio.engine.cluster.ServiceClient} picks, so an attempt tried again lands on another instance.
 * Thread-safe.
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
    private static final Object[] NO_ARGUMENTS = new Object[0];

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
                recorders.put(described, instrumentation.recorder(new XioCall(XioCall.Side.CLIENT,
                    resource, method.getName(), described.wireName(), sessions.transport())));
            }
        }
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
        final ServiceMethod call = methods.get(method);
        final CallRecorder recorder = recorders.get(call);
        final long start = System.nanoTime();
        // One metadata for the call: the tracer writes its context into it at start, interceptors add theirs.
        final Metadata outgoing = recorder.propagates() ? new Metadata() : null;
        final Object started = recorder.start(outgoing);
        final Object[] arguments = args == null ? NO_ARGUMENTS : args;
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
        return new XioClientCall(name.isEmpty() ? sessions.target() : name, resource, method, arguments, limit,
            metadata);
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
        final Outbound copy = prepared.message.sameData();
        return prepared.retryMetadata == null ? copy : copy.metadata(new Metadata(prepared.retryMetadata));
    }

    /** The call's message and options; refuses a blocking call on a context thread. */
    private Prepared prepare(final ServiceMethod call, final Method method, final Object[] args, final boolean async,
        final XioClientCall intercepted)
    {
        final boolean onContext = onContextThread();
        if (!async && onContext)
        {
            throw new IllegalStateException("blocking call " + api.getSimpleName() + "." + method.getName() +
                " on an xio context thread would stall its event loop; return CompletableFuture instead");
        }
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
            prepared.options.timeout(), remaining ->
            {
                if (first.getAndSet(false))
                {
                    return attemptAsync(call, prepared.message, prepared.options.withTimeout(remaining));
                }
                // A retry runs on a shared pool's thread: it must not wait there for room in the window.
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

    private Object decode(final ServiceMethod call, final Message response)
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
            final ByteBuffer segment = response.segment(0);
            if (call.resultType() == byte[].class)
            {
                return Invocation.fromSegment(segment, byte[].class);
            }
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

    private boolean onContextThread()
    {
        for (final Context context : engine.contexts())
        {
            if (context.inContextThread())
            {
                return true;
            }
        }
        return false;
    }
}
