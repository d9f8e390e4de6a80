package io.xio.spring.kotlin;

import io.xio.spring.method.ServiceMethod;
import kotlin.Unit;
import kotlin.coroutines.Continuation;
import kotlinx.coroutines.reactor.MonoKt;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

import java.util.Arrays;

/**
 * Calls, for a client proxy, a method that {@link ServiceMethod#coroutines() uses coroutines}: a {@code suspend}
 * function is called as a method returning a {@code Mono} would be and suspends its caller until the answer (the
 * proxy gets the caller's {@code Continuation} as its last argument); a {@code Flow} argument is streamed as a
 * {@code Publisher} would be, and a {@code Flow} result is the stream's {@code Flux} as a {@code Flow}. Cancelling the
 * caller's coroutine cancels the call's subscription, and so the call or stream, on the server too. Needs
 * {@code kotlinx-coroutines-reactor}. Stateless; any thread.
 */
public final class CoroutineClientCalls
{
    private CoroutineClientCalls()
    {
    }

    /** How the proxy makes the call as its Reactor form: a {@code Mono}, or a stream's {@code Flux}. */
    @FunctionalInterface
    public interface ReactorCall
    {
        /**
         * Makes the call through the proxy's pipeline, on the calling thread.
         *
         * @param arguments the call's declared arguments (no {@code Continuation}), a {@code Flow} argument already
         *                  a {@code Publisher}
         * @return the call's {@code Mono} (a suspend function's) or the stream's {@code Flux}; for a method that
         *         only streams a {@code Flow} parameter, what its Reactor result type is
         */
        @Nullable Object call(@Nullable Object[] arguments) throws Throwable;
    }

    /**
     * One call of {@code method} with the proxy's {@code args} (a suspend function's {@code Continuation} last).
     *
     * @return a suspend function's value, or {@code COROUTINE_SUSPENDED} until it resumes its caller with it; or the
     *         {@code Flow} of a stream
     */
    public static @Nullable Object call(final ServiceMethod method, final @Nullable Object[] args,
        final ReactorCall call) throws Throwable
    {
        final @Nullable Object[] arguments = Arrays.copyOf(args, method.parameterTypes().length);
        final int streamed = method.streamParameter();
        if (method.streamsFlow() && arguments[streamed] != null)
        {
            arguments[streamed] = FlowAdapter.flows().toPublisher(arguments[streamed]);
        }
        final Object result = call.call(arguments);
        if (method.returnsFlow())
        {
            return FlowAdapter.flows().fromPublisher((Publisher<?>)result);
        }
        if (!method.suspending())
        {
            return result; // a Flow parameter, a Flux or Mono result
        }
        @SuppressWarnings("unchecked") final Mono<Object> answer = Mono.from((Publisher<Object>)result);
        @SuppressWarnings("unchecked") final Continuation<Object> continuation =
            (Continuation<Object>)args[args.length - 1];
        // A Unit function resumes its caller with Unit, not with the null an empty answer would give.
        return MonoKt.awaitSingleOrNull(method.resultType() == Void.class ? answer.thenReturn(Unit.INSTANCE)
            : answer, continuation);
    }
}
