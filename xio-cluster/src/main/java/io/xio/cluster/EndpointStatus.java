package io.xio.cluster;

import io.xio.engine.XioUri;

/**
 * Where one endpoint of a {@link ServiceClient} stands, for monitoring. Immutable.
 *
 * @param endpoint as the resolver reported it
 * @param state what the client does with it
 * @param portal the portal its session uses or is opening; null before one was tried
 * @param transport the scheme of that portal; null before one was tried
 * @param reason why that transport ("same host", "an rdma device here reaches it", "network, tls", "network"), then
 *               what was passed over and why, as in "network (passed over: shm: another host; rdma: no rdma
 *               transport here)"
 * @param inFlight this client's calls in flight on it
 * @param lastFailure the last failure opening or using its session, or null
 */
public record EndpointStatus(Endpoint endpoint, State state, XioUri portal, String transport, String reason,
    int inFlight, String lastFailure)
{
    /** An endpoint's state in its client. */
    public enum State
    {
        /** Its session is being opened. */
        CONNECTING,
        /** It takes calls. */
        ACTIVE,
        /** Its server sent GOAWAY or the resolver no longer lists it: it finishes its calls and takes no new ones. */
        DRAINING,
        /** No portal of it could be reached; tried again later. */
        UNREACHABLE
    }
}
