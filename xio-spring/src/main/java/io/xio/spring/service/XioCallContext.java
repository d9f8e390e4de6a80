package io.xio.spring.service;

import io.xio.spring.observation.XioInstrumentation;

/**
 * What a call carries from the thread it arrives on (an engine context thread, where the engine's
 * {@link io.xio.engine.ServerInterceptor}s ran) onto the worker thread that runs its service method: with
 * Micrometer's context-propagation ({@link ContextPropagationCallContext}), every {@code ThreadLocal} registered
 * with its {@code ContextRegistry}, such as the current observation, Spring Security's context or MDC entries.
 * Captured per call, not per worker task, and restored around that call only: a worker that runs several queued
 * calls gives each its own, and nothing of one call is left on the thread for the next.
 *
 * <p>Implementations are thread-safe: {@link #capture()} runs on the thread a call arrives on, what it returns is
 * restored on the worker.
 */
@FunctionalInterface
public interface XioCallContext
{
    /** Carries nothing: the worker runs the call with whatever its thread holds. */
    XioCallContext NONE = () -> Captured.NONE;

    /** The calling thread's context, captured as a call arrives; on that thread. */
    Captured capture();

    /** A context captured for one call. */
    @FunctionalInterface
    interface Captured
    {
        /** Nothing captured. */
        Captured NONE = () -> XioInstrumentation.Scope.NONE;

        /**
         * Makes the captured context current on this thread until the scope closes, which restores what the
         * thread held before; close it on the thread that opened it.
         */
        XioInstrumentation.Scope restore();
    }
}
