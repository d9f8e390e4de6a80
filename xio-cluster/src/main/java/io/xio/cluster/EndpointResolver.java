package io.xio.cluster;

import java.util.List;

/**
 * Turns a logical service name into its current endpoints and reports every change. Implementations: a static list
 * ({@link StaticEndpointResolver}), ZooKeeper through Curator (module {@code xio-zookeeper}), Spring Cloud's
 * {@code DiscoveryClient} (the Spring starter), the addresses of a DNS name ({@link DnsEndpointResolver}). Thread-safe.
 */
public interface EndpointResolver extends AutoCloseable
{
    /**
     * Starts watching {@code service}: {@code listener} hears the whole current set of endpoints soon after (on a
     * thread of the resolver), then again after every change, never concurrently. While the resolver cannot reach its
     * backend it reports {@link Listener#onError} and keeps the last set: clients go on with the endpoints they have.
     */
    Watch watch(String service, Listener listener);

    /** Stops what the resolver runs for itself; the default does nothing. */
    @Override
    default void close()
    {
    }

    /** Hears a service's endpoints; must not block. */
    @FunctionalInterface
    interface Listener
    {
        /** The whole current set (not a delta); may be empty. */
        void onEndpoints(List<Endpoint> endpoints);

        /** The backend cannot be reached or read; the last set stands. */
        default void onError(final Throwable cause)
        {
        }
    }

    /** One watch; closing it stops the reports. */
    interface Watch extends AutoCloseable
    {
        /**
         * A hint that the watcher's view may be stale: its client lost a connection or could not reach an endpoint.
         * A resolver that polls (DNS) looks again soon, as often as its own minimum interval allows, however often
         * it is asked; one told of changes by its backend ignores it, which the default does. Never blocks; any
         * thread.
         */
        default void refresh()
        {
        }

        @Override
        void close();
    }
}
