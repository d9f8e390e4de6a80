package io.xio.spring.service;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;

/**
 * Carries a call's context with Micrometer's context-propagation: every {@code ThreadLocal} its
 * {@code ContextRegistry} knows (the current observation, Spring Security's context, and whatever the application
 * registers, such as MDC keys through {@code Slf4jThreadLocalAccessor}) is captured as the call arrives and made
 * current on the worker around it. Only for applications with {@code io.micrometer:context-propagation} on the class
 * path. Thread-safe.
 */
public final class ContextPropagationCallContext implements XioCallContext
{
    private final ContextSnapshotFactory snapshots;

    /** Through the global {@code ContextRegistry}. */
    public ContextPropagationCallContext()
    {
        this(ContextSnapshotFactory.builder().build());
    }

    public ContextPropagationCallContext(final ContextSnapshotFactory snapshots)
    {
        this.snapshots = snapshots;
    }

    @Override
    public Captured capture()
    {
        final ContextSnapshot snapshot = snapshots.captureAll();
        return () -> snapshot.setThreadLocals()::close;
    }
}
