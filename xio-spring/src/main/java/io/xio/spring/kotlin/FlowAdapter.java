package io.xio.spring.kotlin;

import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;

/**
 * Spring's adapter between kotlinx-coroutines' {@code Flow} and Reactive Streams, which both sides of a call use.
 * Stateless; any thread.
 */
final class FlowAdapter
{
    private FlowAdapter()
    {
    }

    /** The shared registry's {@code Flow} adapter, which it has when {@code kotlinx-coroutines-reactor} is present. */
    static ReactiveAdapter flows()
    {
        final ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance()
            .getAdapter(kotlinx.coroutines.flow.Flow.class);
        if (adapter == null)
        {
            throw new IllegalStateException("a Kotlin Flow in a service interface needs " +
                "org.jetbrains.kotlinx:kotlinx-coroutines-reactor on the class path");
        }
        return adapter;
    }
}
