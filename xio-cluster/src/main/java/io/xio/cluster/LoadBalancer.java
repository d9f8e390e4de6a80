package io.xio.cluster;

import java.util.List;

/**
 * Picks which endpoint's session carries one call. Called on the caller's thread for every call, so it must be
 * thread-safe and must not allocate. The built-in policies: {@link #roundRobin()}, {@link #leastInFlight()} and
 * {@link #rendezvous()} (a key hash for sharded stores: one member leaving moves only its own keys).
 */
@FunctionalInterface
public interface LoadBalancer
{
    /**
     * @param candidates the endpoints able to take a call now (not draining, a session up); never empty; the list
     *                   is not to be kept
     * @param key        the call's routing key ({@link ServiceClient#request(io.xio.engine.Outbound,
     *                   io.xio.engine.CallOptions, long)}), 0 when the call has none
     * @return the index in {@code candidates} of the one to use
     */
    int pick(List<? extends Candidate> candidates, long key);

    /** What a balancer may know of an endpoint. */
    interface Candidate
    {
        Endpoint endpoint();

        /** Calls of this client in flight on it now. */
        int inFlight();
    }

    /** Each call to the next endpoint in turn. */
    static LoadBalancer roundRobin()
    {
        return Balancers.roundRobin();
    }

    /** The endpoint with the fewest calls of this client in flight; ties in turn. */
    static LoadBalancer leastInFlight()
    {
        return Balancers.leastInFlight();
    }

    /**
     * The endpoint with the highest rendezvous score for the call's key (its id and the key hashed together): equal
     * keys land on one endpoint while it is there, and a member leaving or joining moves only the keys it had or
     * gains. Calls without a key go round robin.
     */
    static LoadBalancer rendezvous()
    {
        return Balancers.rendezvous();
    }
}
