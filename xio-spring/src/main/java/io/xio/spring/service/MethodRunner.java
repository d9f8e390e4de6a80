package io.xio.spring.service;

import io.xio.engine.InboundRequest;
import io.xio.spring.kotlin.CoroutineServiceCalls;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioInstrumentation.CallRecorder;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.InvocationTargetException;

/**
 * The last link of a service call's interceptor chain, whichever way the call arrived (an xio message or an HTTP
 * request): the method on the service bean (its proxy, so method security and transactions apply), or an
 * exactly-once method through the ledger. Stateless beyond the service; any thread.
 */
final class MethodRunner
{
    private final Object target;
    /** Runs the exactly-once methods; null for a service without. */
    private final @Nullable ExactlyOnceCalls exactlyOnce;

    MethodRunner(final Object target, final @Nullable ExactlyOnceCalls exactlyOnce)
    {
        this.target = target;
        this.exactlyOnce = exactlyOnce;
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
            return CoroutineServiceCalls.invoke(method, target, arguments);
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
}
