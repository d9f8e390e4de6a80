package io.xio.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Endpoints kept in memory: a fixed list given at start, changed by {@link #set} or by servers of the same JVM
 * registering ({@link EndpointRegistry}); listeners hear each change on the thread that made it. For a fixed set of
 * servers, and for tests. Thread-safe.
 */
public final class StaticEndpointResolver implements EndpointResolver, EndpointRegistry
{
    private final Map<String, List<Endpoint>> services = new ConcurrentHashMap<>();
    private final Map<String, List<Listener>> listeners = new ConcurrentHashMap<>();

    public StaticEndpointResolver()
    {
    }

    /** A resolver that knows {@code service} as {@code endpoints}. */
    public static StaticEndpointResolver of(final String service, final List<Endpoint> endpoints)
    {
        final StaticEndpointResolver resolver = new StaticEndpointResolver();
        resolver.set(service, endpoints);
        return resolver;
    }

    /** Replaces {@code service}'s endpoints and tells its watchers. */
    public void set(final String service, final List<Endpoint> endpoints)
    {
        final List<Endpoint> now = List.copyOf(endpoints);
        synchronized (this)
        {
            services.put(service, now);
            for (final Listener listener : listeners.getOrDefault(service, List.of()))
            {
                listener.onEndpoints(now);
            }
        }
    }

    /** {@code service}'s endpoints now. */
    public List<Endpoint> endpoints(final String service)
    {
        return services.getOrDefault(service, List.of());
    }

    @Override
    public synchronized Watch watch(final String service, final Listener listener)
    {
        listeners.computeIfAbsent(service, s -> new CopyOnWriteArrayList<>()).add(listener);
        listener.onEndpoints(endpoints(service));
        return () ->
        {
            synchronized (StaticEndpointResolver.this)
            {
                listeners.getOrDefault(service, new ArrayList<>()).remove(listener);
            }
        };
    }

    @Override
    public Registration register(final String service, final Endpoint endpoint)
    {
        synchronized (this)
        {
            final List<Endpoint> now = new ArrayList<>(endpoints(service));
            now.removeIf(e -> e.id().equals(endpoint.id()));
            now.add(endpoint);
            set(service, now);
        }
        return new Registration()
        {
            @Override
            public Endpoint endpoint()
            {
                return endpoint;
            }

            @Override
            public void close()
            {
                synchronized (StaticEndpointResolver.this)
                {
                    final List<Endpoint> now = new ArrayList<>(endpoints(service));
                    if (now.remove(endpoint))
                    {
                        set(service, now);
                    }
                }
            }
        };
    }
}
