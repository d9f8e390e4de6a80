package io.xio.spring.kotlin;

import io.xio.spring.method.ServiceMethod;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.core.CoroutinesUtils;
import reactor.core.publisher.Mono;

import java.lang.reflect.InvocationTargetException;

/**
 * Runs a service method that {@link ServiceMethod#coroutines() uses coroutines}, for the service dispatcher: a
 * {@code suspend} function runs through Spring's {@link CoroutinesUtils#invokeSuspendingFunction}, a {@code Flux} of
 * the client's messages reaches a {@code Flow} parameter as a {@code Flow}, and a {@code Flow} the method returns goes
 * back as a {@code Publisher}. An ordinary call's coroutine starts at once, on the calling thread (the worker, in the
 * call's context), and runs there until it first suspends; what the dispatcher gets is the future of its value, which
 * cancels the coroutine when cancelled (the caller cancelled, or its deadline passed). A stream's coroutine starts
 * when the stream subscribes to what the method returned, and is cancelled with that subscription. Needs
 * {@code kotlinx-coroutines-reactor} and {@code kotlin-reflect}. Stateless; any thread.
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
     * @return the future of an ordinary call's value, or a {@code Publisher} of a stream's messages (or of a client
     *         stream's one answer)
     */
    public static @Nullable Object invoke(final ServiceMethod method, final Object target,
        final @Nullable Object[] arguments) throws Throwable
    {
        final @Nullable Object[] passed = arguments.clone(); // the call's own arguments stay as interceptors saw them
        if (method.streamsFlow())
        {
            final int streamed = method.streamParameter();
            passed[streamed] = FlowAdapter.flows().fromPublisher((Publisher<?>)arguments[streamed]);
        }
        if (method.suspending())
        {
            final Publisher<?> result = CoroutinesUtils.invokeSuspendingFunction(method.method(), target, passed);
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
        return method.returnsFlow() && result != null ? FlowAdapter.flows().toPublisher(result) : result;
    }
}
