package io.xio.spring.service;

import io.xio.engine.InboundRequest;
import io.xio.spring.call.InterceptorChain;
import io.xio.spring.call.XioServerCall;
import io.xio.spring.call.XioServerInterceptor;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioCallOutcome;
import io.xio.spring.observation.XioInstrumentation;
import io.xio.spring.observation.XioInstrumentation.CallRecorder;
import io.xio.spring.stream.ReactorStreams;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The calls of one exported service that arrive other than as xio messages (HTTP requests), with their arguments
 * decoded already: run as the service runs its xio calls, on its worker (or inline), in the context they arrived
 * with, through its server interceptors (the security context's among them), its exactly-once ledger and the method
 * on the service bean's proxy, observed by the same instrumentation, counted by its drain; a failure is worded by
 * {@link #answer}, with the service's exception handlers. What such a call is (its metadata, session, deadline and
 * cancel) is an {@link InboundRequest} whose message is never read. Such a call never waits in the service's
 * queue: it is refused (RESOURCE_EXHAUSTED) when the service's bounds, or its last-resort bound on calls queued or
 * running, are full. A deadline bounds a server stream's whole run, as over xio. Thread-safe.
 */
public final class DirectCalls
{
    private final String resource;
    private final List<XioServerInterceptor> interceptors;
    private final XioExceptionHandlers handlers;
    private final Executor executor;
    private final MethodRunner runner;
    private final ServiceStreams.Recorders recorders;
    private final XioCallContext callContext;
    private final Admission admission;

    /**
     * How the service counts its calls.
     *
     * @param admit counts a call as running and returns null; or, not counting it, the code it is refused with
     *     (UNAVAILABLE when the service is draining, RESOURCE_EXHAUSTED when its bounds are full)
     * @param ended a counted call is over
     */
    record Admission(Supplier<@Nullable XioErrorCode> admit, Runnable ended)
    {
    }

    DirectCalls(final String resource, final List<XioServerInterceptor> interceptors,
        final XioExceptionHandlers handlers, final Executor executor, final MethodRunner runner,
        final ServiceStreams.Recorders recorders, final XioCallContext callContext, final Admission admission)
    {
        this.resource = resource;
        this.interceptors = interceptors;
        this.handlers = handlers;
        this.executor = executor;
        this.runner = runner;
        this.recorders = recorders;
        this.callContext = callContext;
        this.admission = admission;
    }

    /**
     * Runs {@code method} with {@code arguments} for {@code request}; from the thread the request arrived on.
     * Cancelling the returned future, or the request, cancels the future the method returned; a call whose deadline
     * passed, or that was cancelled, before it started never starts.
     *
     * @return completes with the method's result: for a {@code CompletableFuture} or {@code Mono}, its value; for
     *     a server stream, its {@link Stream}, whose end (or cancel, or release) ends the call; or with the failure
     *     ({@link #answer} words it)
     */
    public CompletableFuture<@Nullable Object> call(final ServiceMethod method, final @Nullable Object[] arguments,
        final InboundRequest request)
    {
        final long start = System.nanoTime();
        final CallRecorder recorder = recorders.recorder(request.session(), method.wireName());
        final Object started = recorder.start(request.metadata());
        final CompletableFuture<@Nullable Object> answer = new CompletableFuture<>();
        final XioErrorCode refusedWith = admission.admit().get();
        if (refusedWith != null)
        {
            final RejectedExecutionException refusal = new RejectedExecutionException("service '" + resource +
                (refusedWith == XioErrorCode.UNAVAILABLE ? "' is shutting down" : "' has all the calls its " +
                    "bounds allow queued or running"));
            recorder.stopSafely(started, start, XioCallOutcome.BACK_PRESSURE, refusal);
            answer.completeExceptionally(refused(refusal, refusedWith));
            return answer;
        }
        final Run run = new Run(method, arguments, request, recorder, started, start, answer);
        final XioCallContext.Captured captured = callContext.capture();
        try
        {
            executor.execute(() ->
            {
                try (XioInstrumentation.Scope restored = captured.restore())
                {
                    run.run();
                }
            });
        }
        catch (final RejectedExecutionException ex)
        {
            // The executor's own words stay in the log's reach only: they may name its internals.
            final RejectedExecutionException refusal =
                new RejectedExecutionException("service '" + resource + "' is saturated");
            run.finish(refusal, XioCallOutcome.BACK_PRESSURE);
            answer.completeExceptionally(refused(refusal, XioErrorCode.RESOURCE_EXHAUSTED));
        }
        return answer;
    }

    /**
     * What the caller is told of a call's failure, as an xio caller would be: the service's exception handlers'
     * answer, a refusal's own words, or the disclosure's.
     */
    public XioExceptionHandlers.Answer answer(final Throwable failure, final ServiceMethod method)
    {
        return handlers.answer(failure, method.method());
    }

    /** What a call gets whose result could not be answered (encoded, say): only what the disclosure allows. */
    public XioExceptionHandlers.Answer internal(final Throwable failure)
    {
        return handlers.internal(failure, XioErrorCode.INTERNAL);
    }

    private ExactlyOnceCalls.AnsweredFailure refused(final Throwable refusal, final XioErrorCode code)
    {
        return new ExactlyOnceCalls.AnsweredFailure(XioExceptionHandlers.unmapped(refusal, code), null);
    }

    /** One call, from the worker that runs it to its end (its future's, or its stream's). */
    private final class Run
    {
        private final ServiceMethod method;
        private final @Nullable Object[] arguments;
        private final InboundRequest request;
        private final CallRecorder recorder;
        private final @Nullable Object started;
        private final long start;
        private final CompletableFuture<@Nullable Object> answer;
        private final AtomicBoolean finished = new AtomicBoolean();

        Run(final ServiceMethod method, final @Nullable Object[] arguments, final InboundRequest request,
            final CallRecorder recorder, final @Nullable Object started, final long start,
            final CompletableFuture<@Nullable Object> answer)
        {
            this.method = method;
            this.arguments = arguments;
            this.request = request;
            this.recorder = recorder;
            this.started = started;
            this.start = start;
            this.answer = answer;
        }

        void run()
        {
            if (request.isCancelled() || answer.isDone())
            {
                finish(null, XioCallOutcome.CANCELLED);
                answer.cancel(false);
                return;
            }
            if (request.isExpired())
            {
                finish(null, XioCallOutcome.TIMEOUT);
                answer.completeExceptionally(refused(new TimeoutException("the call's deadline passed before " +
                    "it started"), XioErrorCode.DEADLINE_EXCEEDED));
                return;
            }
            final XioServerCall call = new XioServerCall(resource, method.method(), arguments, request);
            final Object[] returned = new Object[1];
            final Object result;
            try (XioInstrumentation.Scope scope = recorder.openScope(started);
                 XioServerCall.Scope current = XioServerCall.enter(call))
            {
                result = interceptors.isEmpty() ? runner.run(method, arguments, request, recorder, started)
                    : InterceptorChain.server(interceptors, call, () ->
                    {
                        returned[0] = runner.run(method, arguments, request, recorder, started);
                        return returned[0];
                    });
            }
            catch (final Throwable ex)
            {
                if (returned[0] instanceof CompletionStage<?> stage)
                {
                    stage.toCompletableFuture().cancel(true); // an interceptor threw after the method started it
                }
                fail(ex);
                return;
            }
            if (method.isStream())
            {
                // The stream's end ends the call; what it sent is not counted here, the web server writes it.
                final Stream stream = new Stream(ReactorStreams.ending(deadlined(result), failure -> finish(failure,
                    failure == null ? XioCallOutcome.SUCCESS : failure instanceof ExactlyOnceCalls.AnsweredFailure
                        ? XioCallOutcome.TIMEOUT : XioCallOutcome.SERVICE_ERROR), () -> finish(null, gaveUp())),
                    () -> finish(null, gaveUp()));
                if (!answer.complete(stream))
                {
                    finish(null, gaveUp()); // the client left, or the deadline passed, while the method ran
                }
                return;
            }
            final Object later = method.returnKind() == ServiceMethod.ReturnKind.MONO &&
                ReactorStreams.isPublisher(result) ? ReactorStreams.toFuture(result) : result;
            if (method.answersLater() && later instanceof CompletionStage<?> stage)
            {
                final CompletableFuture<?> future = stage.toCompletableFuture();
                request.onCancel(() -> future.cancel(true)); // the caller gave up
                answer.whenComplete((value, ex) -> future.cancel(true)); // the web request ended first
                stage.whenComplete((value, ex) ->
                {
                    if (ex == null)
                    {
                        succeed(value);
                    }
                    else
                    {
                        fail(ex instanceof CompletionException && ex.getCause() != null ? ex.getCause() : ex);
                    }
                });
                return;
            }
            succeed(later);
        }

        /** {@code result}, a server stream, failing with DEADLINE_EXCEEDED once the call's deadline passes. */
        private @Nullable Object deadlined(final @Nullable Object result)
        {
            final Duration left = request.timeRemaining();
            if (left == null || !(result instanceof Publisher<?> publisher))
            {
                return result;
            }
            final ExactlyOnceCalls.AnsweredFailure late = refused(new TimeoutException("the call's deadline " +
                "passed while its stream was sending"), XioErrorCode.DEADLINE_EXCEEDED);
            return Flux.from(publisher).takeUntilOther(Mono.delay(left)).concatWith(Mono.defer(() ->
                request.isExpired() ? Mono.error(late) : Mono.empty()));
        }

        /** How a call the caller gave up on ended: its deadline passed, or the client left. */
        private XioCallOutcome gaveUp()
        {
            return request.isExpired() ? XioCallOutcome.TIMEOUT : XioCallOutcome.CANCELLED;
        }

        private void succeed(final @Nullable Object value)
        {
            finish(null, request.isCancelled() ? gaveUp() : XioCallOutcome.SUCCESS);
            answer.complete(value);
        }

        private void fail(final Throwable failure)
        {
            finish(failure, failure instanceof CancellationException || request.isCancelled()
                ? gaveUp() : XioCallOutcome.SERVICE_ERROR);
            answer.completeExceptionally(failure);
        }

        /** Records the call's end and counts it over; the first time only (a stream may end and be cancelled). */
        void finish(final @Nullable Throwable failure, final XioCallOutcome outcome)
        {
            if (!finished.compareAndSet(false, true))
            {
                return;
            }
            admission.ended().run();
            recorder.stopSafely(started, start, outcome, failure);
        }
    }

    /**
     * A server stream's answer: subscribing to it runs the stream; a web server that drops the answer without
     * subscribing (the client left first) {@link #release() releases} it, which ends the call. Any thread.
     */
    public static final class Stream implements Publisher<Object>
    {
        private final Flux<?> values;
        private final Runnable released;
        private final AtomicBoolean taken = new AtomicBoolean();

        Stream(final Flux<?> values, final Runnable released)
        {
            this.values = values;
            this.released = released;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void subscribe(final Subscriber<? super Object> subscriber)
        {
            if (taken.compareAndSet(false, true))
            {
                ((Flux<Object>)values).subscribe(subscriber);
                return;
            }
            Flux.error(new IllegalStateException("a server stream's answer is written once")).subscribe(subscriber);
        }

        /** Ends the call unless the stream was subscribed to: its answer is not going to be written. */
        public void release()
        {
            if (taken.compareAndSet(false, true))
            {
                released.run();
            }
        }
    }
}
