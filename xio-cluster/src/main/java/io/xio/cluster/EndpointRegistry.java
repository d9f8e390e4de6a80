package io.xio.cluster;

/**
 * Where servers announce themselves, so that an {@link EndpointResolver} on the same backend finds them. Thread-safe.
 */
public interface EndpointRegistry
{
    /**
     * Registers {@code endpoint} as an instance of {@code service}, for as long as the registration is open: a
     * registry with sessions of its own (ZooKeeper) keeps it there across a reconnect and re-creates it after its
     * session expired.
     */
    Registration register(String service, Endpoint endpoint);

    /** One registration; closing it deregisters the endpoint (the first step of a drain). */
    interface Registration extends AutoCloseable
    {
        Endpoint endpoint();

        @Override
        void close();
    }
}
