package io.xio.spring.service;

import io.xio.engine.InboundRequest;
import io.xio.spring.call.XioServerCall;
import io.xio.spring.kotlin.CoroutineServiceCalls;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioInstrumentation;
import io.xio.spring.observation.XioInstrumentation.CallRecorder;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.InvocationTargetException;
import java.util.concurrent.Executor;

/**
 * The last link of a service call's interceptor chain, whichever way the call arrived (an xio message or an HTTP
 * request): the method on the service bean (its proxy, so method security and transactions apply), or an
 * exactly-once method through the ledger. A Kotlin suspend function's coroutine runs and resumes on the service's
 * worker executor (unconfined for an inline service), in its call's state wherever it resumes. Stateless beyond the
 * service; any thread.
 */
final class MethodRunner
{
    private final Object target;
    /** Runs the exactly-once methods; null for a service without. */
    private final @Nullable ExactlyOnceCalls exactlyOnce;
    /** Where a service coroutine runs and resumes; null for an inline service's, which runs unconfined. */
    private final @Nullable Executor coroutines;
    private final XioCallContext callContext;

    MethodRunner(final Object target, final @Nullable ExactlyOnceCalls exactlyOnce,
        final @Nullable Executor coroutines, final XioCallContext callContext)
    {
        this.target = target;
        this.exactlyOnce = exactlyOnce;
        this.coroutines = coroutines;
        this.callContext = callContext;
    }

    /**
     * The method, or an exactly-once one through its ledger; never a later attempt of a call its client takes for
     * exactly-once when the method is not.
     */
    @Nullable Object run(final ServiceMethod method, final @Nullable Object[] arguments,
        final InboundRequest request, final CallRecorder recorder, final @Nullable Object started) throws Throwable
    {
        if (method.exactlyOnce())
        {
            return exactlyOnce.invoke(method, request, recorder, started, () -> invoke(method, arguments));
        }
        ExactlyOnceCalls.refuseIfMayHaveRun(method, request.metadata());
        return invoke(method, arguments);
    }

    /**
     * The service method itself: its exception as thrown. A Kotlin one (a suspend function, a Flow) runs through
     * kotlinx-coroutines, never by reflection alone, since a suspend function needs its Continuation.
     */
    @Nullable Object invoke(final ServiceMethod method, final @Nullable Object[] arguments) throws Throwable
    {
        if (method.coroutines())
        {
            // Called in the call's state (its context restored, the call current): what the coroutine takes along.
            final XioServerCall call = XioServerCall.current();
            final XioCallContext.Captured captured = callContext.capture();
            return CoroutineServiceCalls.invoke(method, target, arguments, coroutines, () -> enter(call, captured));
        }
        try
        {
            return method.method().invoke(target, arguments);
        }
        catch (final InvocationTargetException ex)
        {
            throw ex.getCause();
        }
    }

    /** Makes a call's state current on this thread, until the returned scope gives the thread back its own. */
    private static XioInstrumentation.Scope enter(final @Nullable XioServerCall call,
        final XioCallContext.Captured captured)
    {
        final XioInstrumentation.Scope restored = captured.restore();
        final XioServerCall.@Nullable Scope current = call == null ? null : XioServerCall.enter(call);
        return () ->
        {
            if (current != null)
            {
                current.close();
            }
            restored.close();
        };
    }
}
