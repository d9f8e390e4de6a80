package io.xio.spring.kotlin;

import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioInstrumentation;
import kotlin.coroutines.CoroutineContext;
import kotlinx.coroutines.Dispatchers;
import kotlinx.coroutines.ExecutorsKt;
import kotlinx.coroutines.flow.Flow;
import kotlinx.coroutines.flow.FlowKt;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.core.CoroutinesUtils;
import reactor.core.publisher.Mono;

import java.lang.reflect.InvocationTargetException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Runs a service method that {@link ServiceMethod#coroutines() uses coroutines}, for the service dispatcher: a
 * {@code suspend} function runs through Spring's {@link CoroutinesUtils#invokeSuspendingFunction}, a {@code Flux} of
 * the client's messages reaches a {@code Flow} parameter as a {@code Flow}, and a {@code Flow} the method returns goes
 * back as a {@code Publisher}. The coroutine (and a returned {@code Flow}) runs on the service's worker executor, or
 * unconfined for an inline service, and wherever it runs or resumes, the call's state is current there
 * ({@link CallStateElement}): the current call, its deadline, the context it arrived with. What the dispatcher gets
 * for an ordinary call is the future of its value, which cancels the coroutine when cancelled (the caller cancelled,
 * or its deadline passed). A stream's coroutine starts when the stream subscribes to what the method returned, and is
 * cancelled with that subscription. Needs {@code kotlinx-coroutines-reactor} and {@code kotlin-reflect}. Stateless;
 * any thread.
 */
public final class CoroutineServiceCalls
{
    private CoroutineServiceCalls()
    {
    }

    /**
     * Runs {@code method} on {@code target}: its exception as thrown, a suspend function's also as its future's.
     *
     * @param arguments the decoded arguments, without a suspend function's {@code Continuation}; a streamed
     *                  parameter is the {@code Flux} of the client's messages
     * @param resumeOn the executor the coroutine runs on, or null to run it unconfined (an inline service)
     * @param callState makes the call's state current on the calling thread; the scope it returns restores the
     *                  thread's own; called whenever the coroutine runs or resumes
     * @return the future of an ordinary call's value, or a {@code Publisher} of a stream's messages (or of a client
     *         stream's one answer)
     */
    public static @Nullable Object invoke(final ServiceMethod method, final Object target,
        final @Nullable Object[] arguments, final @Nullable Executor resumeOn,
        final Supplier<XioInstrumentation.Scope> callState) throws Throwable
    {
        final @Nullable Object[] passed = arguments.clone(); // the call's own arguments stay as interceptors saw them
        if (method.streamsFlow())
        {
            final int streamed = method.streamParameter();
            passed[streamed] = FlowAdapter.flows().fromPublisher((Publisher<?>)arguments[streamed]);
        }
        if (method.suspending())
        {
            final Publisher<?> result = CoroutinesUtils.invokeSuspendingFunction(context(resumeOn, callState),
                method.method(), target, passed);
            return method.isStream() ? result : Mono.from(result).toFuture();
        }
        final Object result;
        try
        {
            result = method.method().invoke(target, passed);
        }
        catch (final InvocationTargetException ex)
        {
            throw ex.getCause();
        }
        if (!method.returnsFlow() || result == null)
        {
            return result;
        }
        return FlowAdapter.flows().toPublisher(FlowKt.flowOn((Flow<?>)result, context(resumeOn, callState)));
    }

    private static CoroutineContext context(final @Nullable Executor resumeOn,
        final Supplier<XioInstrumentation.Scope> callState)
    {
        final CoroutineContext dispatcher = resumeOn == null ? Dispatchers.getUnconfined()
            : ExecutorsKt.from(resumeOn);
        return dispatcher.plus(new CallStateElement(callState));
    }
}
