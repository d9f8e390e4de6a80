package io.xio.spring.service;

import io.xio.annotation.XioService;
import io.xio.engine.BackPressureException;
import io.xio.engine.InboundRequest;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.RequestHandler;
import io.xio.engine.support.QueueingHandler;
import io.xio.spring.call.InterceptorChain;
import io.xio.spring.call.XioServerCall;
import io.xio.spring.call.XioServerInterceptor;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.error.XioErrorBody;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.kotlin.KotlinDependencies;
import io.xio.spring.method.Invocation;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioCall;
import io.xio.spring.observation.XioCallOutcome;
import io.xio.spring.observation.XioInstrumentation.CallRecorder;
import io.xio.spring.observation.XioInstrumentation;
import io.xio.spring.stream.ReactorStreams;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Serves one exported bean: finds the method a request names, decodes its arguments (data segments as
 * read-only views into the received message, valid until the method returns or its future completes), runs it
 * inline or on the worker executor, and answers with the result or the exception (as the service's
 * {@link XioExceptionHandlers} map it). A call whose caller cancelled it while it waited for a worker never
 * starts. With bounds on its calls, at most that many run at once and that many more wait; a call beyond them is
 * turned away unrun with back-pressure. A caller that sets the {@value #CODEC_KEY} metadata entry to
 * {@value #JSON} sends its arguments and takes its answer as JSON, whatever the configured codec (where the
 * server accepts JSON calls): the same call otherwise, through the same bounds, interceptors and observations.
 * The context a call arrives with on the engine thread (see {@link XioCallContext}) is current on the worker while
 * it runs. A service with stream methods serves its streams through {@link ServiceStreams}. Thread-safe.
 */
public final class ServiceDispatcher implements RequestHandler
{
    /** The call metadata entry that names the encoding of a call's arguments and answer, when not the codec's. */
    public static final String CODEC_KEY = "xio-codec";
    /** The {@value #CODEC_KEY} value of a call in JSON. */
    public static final String JSON = "json";

    private final String resource;
    private final ServiceMethods methods;
    private static final ByteBuffer[] NO_SEGMENTS = new ByteBuffer[0];
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    private final XioCodec codec;
    /** The codec of calls in JSON, or null when the server takes none. */
    private final @Nullable XioCodec json;
    private final Class<?> api;
    private final XioExceptionHandlers handlers;
    private final List<XioServerInterceptor> interceptors;
    private final Executor executor;
    private final boolean inline;
    /** Set when the calls are bounded: runs them on the executor, so many at once, with so many waiting. */
    private final @Nullable QueueingHandler queue;
    /** Calls queued or running, bounded or not: a last resort against unbounded threads and memory. */
    private static final int MAX_QUEUED = 4096;
    private static final String UNKNOWN_METHOD = "unknown";
    // What refusals are recorded with, made once: under overload they come thousands a second, on a context thread.
    private final BackPressureException overfull;
    private final BackPressureException boundsFull;

    /** Answers of data results, each back here once xio sent it: calls reuse them instead of a message each. */
    private final org.agrona.concurrent.ManyToManyConcurrentArrayQueue<DataAnswer> answers =
        new org.agrona.concurrent.ManyToManyConcurrentArrayQueue<>(DataAnswer.POOLED);

    private final XioInstrumentation instrumentation;
    /** Recorders by transport, then by method wire name: a call's kind is only known once it arrives. */
    private final Map<String, Map<String, CallRecorder>> recorders = new ConcurrentHashMap<>();

    private final XioCallContext callContext;
    /** The context each bounded call arrived with, until the queue runs or refuses it. */
    private final Map<InboundRequest, XioCallContext.Captured> arrivedWith = new ConcurrentHashMap<>();

    private final AtomicInteger running = new AtomicInteger();
    /** The direct calls among them. */
    private final AtomicInteger directRunning = new AtomicInteger();
    /** Serves the streams of a service with stream methods; null for one without, which refuses streams. */
    private final @Nullable ServiceStreams streams;
    /** Runs the methods (the exactly-once ones through the ledger), whichever way their calls arrive. */
    private final MethodRunner runner;
    /** Runs the calls that arrive other than as xio messages. */
    private final DirectCalls direct;
    private volatile boolean draining;
    /** Completes once draining and no call is running. */
    private final java.util.concurrent.CompletableFuture<Void> idle = new java.util.concurrent.CompletableFuture<>();

    /**
     * How a service's calls are handled beyond its method and its codec: each component has a default when null.
     *
     * @param handlers map the service's failures to answers (default: none, the exception as it is)
     * @param maxConcurrentCalls at most this many calls run at once on the worker; 0 leaves them unbounded
     * @param maxQueuedCalls at most this many more wait, when bounded
     * @param interceptors run around each call's method, the first outermost (default: none)
     * @param json the codec of calls in JSON ({@value #CODEC_KEY}: {@value #JSON}; default: none taken)
     * @param callContext the context each call runs in, captured as it arrived (default: none)
     * @param boundsProperty the property the service's bounds are set under ({@code xio.server.services.<name>}),
     *                       which a call turned away by them names (default: none named)
     * @param exactlyOnce makes what runs the service's exactly-once methods (default: none, and a service with such
     *                    methods fails naming the first)
     */
    public record Settings(XioExceptionHandlers handlers, int maxConcurrentCalls, int maxQueuedCalls,
        List<XioServerInterceptor> interceptors, @Nullable XioCodec json, XioCallContext callContext,
        @Nullable String boundsProperty, ExactlyOnceCalls.@Nullable Factory exactlyOnce)
    {
        /** Unbounded, without handlers, interceptors or JSON. */
        public static final Settings DEFAULTS = new Settings(null, 0, 0, null, null, null, null, null);

        /** Without a property naming the bounds. */
        public Settings(final @Nullable XioExceptionHandlers handlers, final int maxConcurrentCalls,
            final int maxQueuedCalls, final @Nullable List<XioServerInterceptor> interceptors,
            final @Nullable XioCodec json, final @Nullable XioCallContext callContext)
        {
            this(handlers, maxConcurrentCalls, maxQueuedCalls, interceptors, json, callContext, null);
        }

        /** Without exactly-once methods. */
        public Settings(final @Nullable XioExceptionHandlers handlers, final int maxConcurrentCalls,
            final int maxQueuedCalls, final @Nullable List<XioServerInterceptor> interceptors,
            final @Nullable XioCodec json, final @Nullable XioCallContext callContext,
            final @Nullable String boundsProperty)
        {
            this(handlers, maxConcurrentCalls, maxQueuedCalls, interceptors, json, callContext, boundsProperty, null);
        }

        /** Takes null for a default: only the JSON codec, the bounds property and {@link #exactlyOnce()} stay so. */
        public Settings(final @Nullable XioExceptionHandlers handlers, final int maxConcurrentCalls,
            final int maxQueuedCalls, final @Nullable List<XioServerInterceptor> interceptors,
            final @Nullable XioCodec json, final @Nullable XioCallContext callContext,
            final @Nullable String boundsProperty, final ExactlyOnceCalls.@Nullable Factory exactlyOnce)
        {
            this.exactlyOnce = exactlyOnce;
            this.boundsProperty = boundsProperty;
            this.handlers = handlers == null ? XioExceptionHandlers.NONE : handlers;
            this.maxConcurrentCalls = maxConcurrentCalls;
            this.maxQueuedCalls = maxQueuedCalls;
            this.interceptors = interceptors == null ? List.of() : List.copyOf(interceptors);
            this.json = json;
            this.callContext = callContext == null ? XioCallContext.NONE : callContext;
        }
    }

    /** An unbounded service without exception handlers, interceptors or JSON. */
    public ServiceDispatcher(final String resource, final Class<?> api, final Object target, final XioCodec codec,
        final XioService.Dispatch dispatch, final Executor worker, final XioInstrumentation instrumentation)
    {
        this(resource, api, target, codec, dispatch, worker, instrumentation, Settings.DEFAULTS);
    }

    /** A service whose calls run on {@code worker} (unless {@code dispatch} is inline), as {@code settings} say. */
    public ServiceDispatcher(final String resource, final Class<?> api, final Object target, final XioCodec codec,
        final XioService.Dispatch dispatch, final Executor worker, final XioInstrumentation instrumentation,
        final Settings settings)
    {
        final int maxConcurrentCalls = settings.maxConcurrentCalls();
        final int maxQueuedCalls = settings.maxQueuedCalls();
        if (maxConcurrentCalls > 0 && dispatch == XioService.Dispatch.INLINE)
        {
            throw new IllegalArgumentException("service '" + resource + "' runs inline on the context thread: its " +
                "calls cannot be bounded");
        }
        this.instrumentation = instrumentation;
        this.callContext = settings.callContext();
        this.resource = resource;
        this.codec = codec;
        this.json = settings.json();
        this.api = api;
        this.handlers = settings.handlers();
        this.interceptors = settings.interceptors();
        this.inline = dispatch == XioService.Dispatch.INLINE;
        this.executor = inline ? Runnable::run : worker;
        this.queue = maxConcurrentCalls > 0
            ? new QueueingHandler(worker, maxConcurrentCalls, maxQueuedCalls, new Bounded()) : null;
        this.overfull = new BackPressureException("service '" + resource + "' has " + MAX_QUEUED +
            " calls queued or running");
        this.boundsFull = new BackPressureException("service '" + resource + "' has " + maxConcurrentCalls +
            " calls in progress and " + maxQueuedCalls + " waiting, its bounds" +
            (settings.boundsProperty() == null ? "" : " (" + settings.boundsProperty() + ".*)"));
        this.methods = new ServiceMethods(api, codec);
        KotlinDependencies.check(methods.sorted().values(), true, "service '" + resource + "'", api.getClassLoader());
        this.runner = new MethodRunner(target, ExactlyOnceCalls.forService(settings.exactlyOnce(), resource, target,
            methods.sorted().values(), codec, handlers, inline), inline ? null : worker, callContext);
        this.direct = new DirectCalls(resource, interceptors, handlers, executor, runner, this::recorder,
            callContext, new DirectCalls.Admission(this::admitted, this::directEnded));
        this.streams = methods.sorted().values().stream().anyMatch(ServiceMethod::isStream)
            ? new ServiceStreams(resource, methods, runner::invoke, this::codecOf, handlers, interceptors, inline,
                worker, callContext, this::recorder)
            : null;
    }

    /**
     * How the engine may reuse this service's requests: an inline service answers each call before its handler
     * returns, or later from the future its method returned, and then touches neither the request nor its message
     * again, so it costs nothing per call; a worker's call stays {@link io.xio.engine.RequestReuse#NEVER}.
     */
    public io.xio.engine.RequestReuse reuse()
    {
        return inline && interceptors.isEmpty() ? io.xio.engine.RequestReuse.AFTER_ANSWER
            : io.xio.engine.RequestReuse.NEVER;
    }

    public String resource()
    {
        return resource;
    }

    /** The exported interface. */
    public Class<?> api()
    {
        return api;
    }

    /** The service's methods, by wire name, sorted. */
    public java.util.SortedMap<String, ServiceMethod> methods()
    {
        return methods.sorted();
    }

    /** Calls received and not over yet, waiting for a worker (see {@link #queued()}) or running. */
    public int running()
    {
        return running.get();
    }

    /** Streams opened on this service and not over yet (which {@link ServiceStreams} counts, apart from calls). */
    public int streaming()
    {
        return streams == null ? 0 : streams.open();
    }

    /** Calls waiting for a worker now: at most the bound, and always 0 when the calls are not bounded. */
    public int queued()
    {
        return queue == null ? 0 : queue.queued();
    }

    /**
     * Refuse new calls from now on: the application is shutting down. Any thread.
     *
     * @return completes once no call is running and no stream open any more (on the thread that ended the last one)
     */
    public java.util.concurrent.CompletableFuture<Void> drain()
    {
        draining = true;
        if (running.get() == 0) // else the last call to end completes it
        {
            idle.complete(null);
        }
        return streams == null ? idle : java.util.concurrent.CompletableFuture.allOf(idle, streams.drain());
    }

    /** The calls that arrive other than as xio messages (over HTTP): run as this service runs its xio calls. */
    public DirectCalls direct()
    {
        return direct;
    }

    /**
     * A direct call arrived: counted as running and null; else, not counted, why it is refused: the service is
     * draining, or it has {@link #MAX_QUEUED} calls, or (bounded) as many direct calls running as it has places, or
     * its calls of either kind fill its places and queue. A direct call never waits in the queue.
     */
    private @Nullable XioErrorCode admitted()
    {
        final int now = running.incrementAndGet();
        final int direct = directRunning.incrementAndGet();
        final XioErrorCode refused = draining ? XioErrorCode.UNAVAILABLE : now > MAX_QUEUED || queue != null &&
            (direct > queue.workers() || now > queue.workers() + queue.maxQueued())
            ? XioErrorCode.RESOURCE_EXHAUSTED : null;
        if (refused != null)
        {
            directEnded();
        }
        return refused;
    }

    /** A direct call is over. */
    private void directEnded()
    {
        directRunning.decrementAndGet();
        ended();
    }

    /** A call is over, answered or not. */
    private void ended()
    {
        if (running.decrementAndGet() == 0 && draining)
        {
            idle.complete(null);
        }
    }

    @Override
    public void onStream(final io.xio.engine.InboundStream stream) throws Exception
    {
        if (streams == null)
        {
            RequestHandler.super.onStream(stream);
            return;
        }
        streams.onStream(stream);
    }

    @Override
    public void onRequest(final InboundRequest request)
    {
        final Message message = request.message();
        final long start = System.nanoTime();
        final int queued = running.incrementAndGet();
        if (draining)
        {
            refuse(request, message, start, "is shutting down");
            return;
        }
        // One-way messages count as delivered once queued: these bounds are their back-pressure.
        if (queued > MAX_QUEUED)
        {
            turnAway(request, start, XioCallOutcome.BACK_PRESSURE, overfull);
            return;
        }
        // An inline call runs on this thread, in the context it arrived with: nothing to carry (and nothing allocated).
        final XioCallContext.Captured captured = inline ? XioCallContext.Captured.NONE : callContext.capture();
        if (queue != null)
        {
            if (captured != XioCallContext.Captured.NONE)
            {
                arrivedWith.put(request, captured);
            }
            queue.onRequest(request);
            return;
        }
        if (inline)
        {
            invoke(request, message, start); // in the context it arrived with, already current
            return;
        }
        try
        {
            executor.execute(() -> invoke(request, message, start, captured));
        }
        catch (final RejectedExecutionException ex)
        {
            turnAway(request, start, XioCallOutcome.BACK_PRESSURE,
                new BackPressureException("service '" + resource + "' is saturated: " + ex.getMessage()));
        }
    }

    /** A call refused because the service stops: the caller is told why (one-way senders are not). */
    private void refuse(final InboundRequest request, final Message message, final long start, final String why)
    {
        ended();
        final RejectedExecutionException refusal = new RejectedExecutionException("service '" + resource + "' " + why);
        final CallRecorder recorder = recorder(request, methodName(message));
        recorder.stopSafely(recorder.start(request.metadata()), start, XioCallOutcome.BACK_PRESSURE, refusal);
        message.close();
        if (!request.isOneWay())
        {
            fail(request, XioExceptionHandlers.unmapped(refusal, XioErrorCode.UNAVAILABLE));
        }
    }

    /**
     * A call this service will not run, for lack of room or because its caller gave up while it waited: released
     * at once and answered with back-pressure, which carries no text (the reason is recorded here only).
     */
    private void turnAway(final InboundRequest request, final long start, final XioCallOutcome outcome,
        final @Nullable Throwable why)
    {
        ended();
        final Message message = request.message();
        final CallRecorder recorder = recorder(request, methodName(message));
        recorder.stopSafely(recorder.start(request.metadata()), start, outcome, why);
        message.close();
        if (outcome != XioCallOutcome.TIMEOUT || !request.refuseIfExpired())
        {
            request.refuse(); // sends nothing to a cancelled call or a one-way message
        }
    }

    /** The bounded service's side of its queue. */
    private final class Bounded implements QueueingHandler.Work
    {
        @Override
        public boolean run(final InboundRequest request, final long arrivedNanos)
        {
            return invoke(request, request.message(), arrivedNanos, arrivedWith(request));
        }

        @Override
        public void refused(final InboundRequest request, final QueueingHandler.Refusal why, final long arrivedNanos)
        {
            arrivedWith(request);
            if (why == QueueingHandler.Refusal.CANCELLED)
            {
                turnAway(request, arrivedNanos, XioCallOutcome.CANCELLED, null); // its caller gave up as it waited
            }
            else if (why == QueueingHandler.Refusal.EXPIRED)
            {
                turnAway(request, arrivedNanos, XioCallOutcome.TIMEOUT, null); // its deadline passed as it waited
            }
            else
            {
                turnAway(request, arrivedNanos, XioCallOutcome.BACK_PRESSURE, boundsFull);
            }
        }
    }

    /**
     * Why a call that may have waited for a worker is no longer worth starting, or null when it is: its caller
     * cancelled it, or its caller's deadline passed (no answer would reach anyone). The one place such checks go,
     * run just before the service method is.
     */
    private static @Nullable XioCallOutcome notWorthStarting(final InboundRequest request)
    {
        if (request.isCancelled())
        {
            return XioCallOutcome.CANCELLED;
        }
        return request.isExpired() ? XioCallOutcome.TIMEOUT : null;
    }

    /** The context a bounded call arrived with, no longer kept. */
    private XioCallContext.Captured arrivedWith(final InboundRequest request)
    {
        if (callContext == XioCallContext.NONE)
        {
            return XioCallContext.Captured.NONE;
        }
        final XioCallContext.Captured captured = arrivedWith.remove(request);
        return captured != null ? captured : XioCallContext.Captured.NONE;
    }

    /** {@link #invoke(InboundRequest, Message, long)} in the context the call arrived with. */
    private boolean invoke(final InboundRequest request, final Message message, final long start,
        final XioCallContext.Captured captured)
    {
        try (XioInstrumentation.Scope restored = captured.restore())
        {
            return invoke(request, message, start);
        }
    }

    /** Runs a call; true when it is over, false when a future the method returned will finish it. */
    private boolean invoke(final InboundRequest request, final Message message, final long start)
    {
        final XioCallOutcome stale = notWorthStarting(request);
        if (stale != null)
        {
            turnAway(request, start, stale, null);
            return true;
        }
        ServiceMethod method = null;
        CallRecorder recorder = null;
        Object started = null;
        XioServerCall call = null;
        // What the method returned, even if an interceptor then threw (a holder only when there are interceptors).
        final @Nullable Object @Nullable [] produced = interceptors.isEmpty() ? null : new Object[1];
        Object returned = null;
        try
        {
            final int found = methods.find(message);
            final String name = found >= 0 ? methods.at(found).wireName() : Invocation.readName(message.header());
            recorder = recorder(request, name);
            started = recorder.start(request.metadata());
            method = found >= 0 ? methods.at(found) : methods.named(name);
            if (method == null || method.isStream())
            {
                throw new NoSuchMethodException("service '" + resource + "' has no method " + name +
                    (method == null ? "" : " to call; it is a stream, opened as one"));
            }
            final XioCodec callCodec = codecOf(request.metadata());
            final @Nullable Object[] arguments = callCodec == codec && methods.hasConstantArguments(message, found)
                ? Invocation.segmentArguments(method, message)
                : Invocation.arguments(method, callCodec, methods.argumentsOf(message, found), segments(message));
            final Method invoked = method.method();
            final ServiceMethod described = method;
            final CallRecorder recording = recorder;
            final Object begun = started;
            call = new XioServerCall(resource, invoked, arguments, request);
            final Object result;
            final XioInstrumentation.Scope scope = recorder.openScope(started); // the caller's trace, current here
            try (XioServerCall.Scope current = XioServerCall.enter(call))
            {
                if (produced == null)
                {
                    returned = runner.run(described, arguments, request, recording, begun);
                    result = returned;
                }
                else
                {
                    result = InterceptorChain.server(interceptors, call, () ->
                    {
                        produced[0] = runner.run(described, arguments, request, recording, begun);
                        return produced[0];
                    });
                }
            }
            finally
            {
                scope.close();
            }
            // A Mono is answered as a future; an interceptor of its method may have answered with a value instead.
            final Object answerLater = method.returnKind() == ServiceMethod.ReturnKind.MONO &&
                ReactorStreams.isPublisher(result) ? ReactorStreams.toFuture(result) : result;
            if (method.answersLater() && answerLater instanceof CompletionStage<?> stage)
            {
                if (stage instanceof java.util.concurrent.CompletableFuture<?> done && done.isDone())
                {
                    // Already over (a cached or computed-at-once value): answered now, without a stage per call.
                    Object value = null;
                    Throwable ex = null;
                    try
                    {
                        value = done.join();
                    }
                    catch (final java.util.concurrent.CompletionException | java.util.concurrent.CancellationException
                        failed)
                    {
                        ex = failed;
                    }
                    stageEnded(request, message, method, value, ex, recorder, started, start, call);
                    return false; // as for a stage that ends later: stageEnded finished the call
                }
                final ServiceMethod called = method;
                final CallRecorder calledRecorder = recorder;
                final Object calledStarted = started;
                final XioServerCall served = call;
                request.onCancel(() -> stage.toCompletableFuture().cancel(true)); // the caller gave up
                stage.whenComplete((value, ex) ->
                    stageEnded(request, message, called, value, ex, calledRecorder, calledStarted, start, served));
                return false;
            }
            answer(request, message, method, result, null, XioCallOutcome.SUCCESS, recorder, started, start,
                call.trailersIfAny());
        }
        catch (final Exception | LinkageError ex)
        {
            if (recorder == null)
            {
                recorder = recorder(request, UNKNOWN_METHOD); // not even a method name could be read
                started = recorder.start(request.metadata());
            }
            // Before the call existed, decoding failed; afterwards the method or an interceptor threw.
            abandonStarted(produced == null ? returned : produced[0], message);
            answer(request, message, method, null, ex, call == null ? XioCallOutcome.ERROR :
                XioCallOutcome.SERVICE_ERROR, recorder, started, start, null);
        }
        catch (final Throwable ex)
        {
            abandonStarted(produced == null ? returned : produced[0], message);
            answer(request, message, method, null, ex, XioCallOutcome.SERVICE_ERROR, recorder, started, start, null);
        }
        return true;
    }

    private static ByteBuffer[] segments(final Message message)
    {
        final int count = message.segmentCount();
        final ByteBuffer[] segments = count == 0 ? NO_SEGMENTS : new ByteBuffer[count];
        for (int i = 0; i < segments.length; i++)
        {
            segments[i] = message.segment(i);
        }
        return segments;
    }

    /** The stage a method returned is over: the call is answered with its outcome, unless its caller gave up. */
    private void stageEnded(final InboundRequest request, final Message message, final ServiceMethod called,
        final @Nullable Object value, final @Nullable Throwable ex, final CallRecorder calledRecorder,
        final @Nullable Object calledStarted, final long start, final XioServerCall served)
    {
        if (queue != null)
        {
            // The service's work is done: the next call may start while this one's answer goes out,
            // and a caller that sends its next call on this answer finds the place free.
            queue.finished();
        }
        if (request.isCancelled())
        {
            // Cancelling the future does not stop work it started, which may still read the
            // arguments' views: the buffer is abandoned to the GC instead of reused.
            message.abandon();
            ended();
            calledRecorder.stopSafely(calledStarted, start, XioCallOutcome.CANCELLED, null);
            return;
        }
        answer(request, message, called, value,
            ex instanceof java.util.concurrent.CompletionException && ex.getCause() != null ? ex.getCause() : ex,
            XioCallOutcome.SERVICE_ERROR, calledRecorder, calledStarted, start, served.trailersIfAny());
    }

    /**
     * An interceptor threw after the method returned a stage: the work it started is cancelled, and may still read
     * the arguments' views, so the buffer is abandoned to the GC instead of reused.
     */
    private static void abandonStarted(final @Nullable Object produced, final Message message)
    {
        if (produced instanceof CompletionStage<?> stage)
        {
            stage.toCompletableFuture().cancel(true);
            message.abandon();
        }
    }

    private String methodName(final Message message)
    {
        try
        {
            final String name = Invocation.readName(message.header());
            return methods.named(name) != null ? name : UNKNOWN_METHOD;
        }
        catch (final RuntimeException unreadable)
        {
            return UNKNOWN_METHOD;
        }
    }

    /** The recorder of calls to {@code method} over the request's transport; unknown names share one. */
    private CallRecorder recorder(final InboundRequest request, final String method)
    {
        return recorder(request.session(), method);
    }

    /** The recorder of calls to {@code method} over {@code session}'s transport; unknown names share one. */
    private CallRecorder recorder(final io.xio.engine.Session session, final String method)
    {
        final String transport = session.uri().scheme();
        Map<String, CallRecorder> byMethod = recorders.get(transport);
        if (byMethod == null)
        {
            byMethod = recorders.computeIfAbsent(transport, t -> new ConcurrentHashMap<>());
        }
        final ServiceMethod known = methods.named(method);
        final String wireName = known != null ? method : UNKNOWN_METHOD;
        final CallRecorder recorder = byMethod.get(wireName);
        return recorder != null ? recorder : byMethod.computeIfAbsent(wireName, m -> instrumentation.recorder(
            new XioCall(XioCall.Side.SERVER, resource, known != null ? known.method().getName() : m, m, transport)));
    }

    /**
     * Answers a call and lets go of its message: once the answer is written, since a result may be a view
     * into it (a service that returns the buffer it was given sends it back without a copy).
     */
    private void answer(final InboundRequest request, final Message message, final @Nullable ServiceMethod method,
        final @Nullable Object value, final @Nullable Throwable failure, final XioCallOutcome failedAs,
        final CallRecorder recorder, final @Nullable Object started, final long start,
        final @Nullable Metadata trailers)
    {
        XioCallOutcome outcome = request.isCancelled() ? XioCallOutcome.CANCELLED
            : failure == null ? XioCallOutcome.SUCCESS : failedAs;
        Throwable error = failure;
        try
        {
            if (request.isOneWay() || request.isCancelled())
            {
                message.close();
            }
            else if (failure instanceof ExactlyOnceCalls.NotSettled)
            {
                message.close();
                outcome = XioCallOutcome.BACK_PRESSURE;
                request.refuse(); // another attempt of its key still runs: this one is to be tried again
            }
            else if (failure != null)
            {
                message.close();
                fail(request, failedAs == XioCallOutcome.SERVICE_ERROR
                    ? handlers.answer(failure, method == null ? null : method.method())
                    : failure instanceof NoSuchMethodException // xio's own words
                        ? XioExceptionHandlers.unmapped(failure, XioErrorCode.UNIMPLEMENTED)
                        : handlers.undecodable(failure)); // the peer's bytes: its error, not the server's
            }
            else if (method.returnKind() == ServiceMethod.ReturnKind.VOID || value == null && method.resultIsSegment())
            {
                message.close();
                request.respond(Outbound.empty().metadata(trailers));
            }
            else if (method.resultIsSegment())
            {
                final ByteBuffer data = Invocation.asBuffer(value);
                final DataAnswer idle = answers.poll();
                request.respond((idle != null ? idle : new DataAnswer()).of(data, trailers, message));
            }
            else
            {
                final byte[] encoded = codecOf(request.metadata()).encode(value, method.resultType());
                message.close();
                request.respond(Outbound.of(encoded).metadata(trailers));
            }
        }
        catch (final RuntimeException ex)
        {
            outcome = XioCallOutcome.ERROR;
            error = ex;
            message.close();
            try
            {
                fail(request, handlers.internal(ex, XioErrorCode.INTERNAL)); // could not encode, say
            }
            catch (final IllegalStateException answeredAlready)
            {
                // the answer went out before the failure: it stands
            }
        }
        finally
        {
            ended();
            recorder.stopSafely(started, start, outcome, error);
        }
    }

    /**
     * The answer of a call whose result is a data segment, sent again for a later call once xio released it: then
     * it closes the call's message (the result may be a view into it) and goes back to {@link #answers}. Used by one
     * call at a time; the pool hands it between threads.
     */
    private final class DataAnswer implements AutoCloseable
    {
        /** How many idle answers a service keeps: more answers than this in flight make the rest anew. */
        static final int POOLED = 256;
        private final ByteBuffer[] segments = {EMPTY};
        private final Outbound response = Outbound.of(EMPTY, segments);
        private @Nullable Message received;

        /** The answer carrying {@code data} and {@code trailers}, releasing {@code message} once sent. */
        Outbound of(final ByteBuffer data, final @Nullable Metadata trailers, final Message message)
        {
            segments[0] = data;
            received = message;
            return response.metadata(trailers).releaseAfterSend(this);
        }

        @Override
        public void close()
        {
            final Message message = received;
            received = null;
            segments[0] = EMPTY; // holds on to no result while idle
            response.metadata(null);
            try
            {
                message.close();
            }
            finally
            {
                answers.offer(this);
            }
        }
    }

    /** The codec of a call with {@code metadata}: the configured one, unless its caller asked for JSON. */
    private XioCodec codecOf(final Metadata metadata)
    {
        final String asked = metadata.get(CODEC_KEY);
        if (asked == null)
        {
            return codec;
        }
        if (json == null || !JSON.equals(asked))
        {
            throw new IllegalArgumentException("service '" + resource + "' takes no calls encoded as '" +
                XioErrorBody.bounded(asked, 64) + "'");
        }
        return json;
    }

    /** Sends a failure's answer, bounded so that no exception's text can exceed the caller's header limit. */
    private static void fail(final InboundRequest request, final XioExceptionHandlers.Answer answer)
    {
        request.fail(XioErrorBody.bounded(answer.type(), XioErrorBody.MAX_TYPE_BYTES),
            XioErrorBody.encode(answer.error()));
    }

}
