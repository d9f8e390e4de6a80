package io.xio.cluster;

import io.xio.engine.XioUri;

import java.util.List;
import java.util.Map;

/**
 * One instance of a service as a resolver reports it: every portal it exposes (tcp, tls, shm, rdma, local) and the
 * identity of the host it runs on, which decides whether a client may use a same-host transport. Immutable.
 *
 * @param id unique among the service's instances (a restarted server registers under a new one)
 * @param host the host identity ({@link HostIdentity#local()} of the server); empty when unknown, which rules out
 *             shm and local for it
 * @param portals the portals' endpoints (no resource), any order: the client orders them by its transport preference
 * @param metadata anything else the registry carried (a zone, a version), for balancers and monitoring
 */
public record Endpoint(String id, String host, List<XioUri> portals, Map<String, String> metadata)
{
    public Endpoint
    {
        if (id == null || id.isEmpty())
        {
            throw new IllegalArgumentException("an endpoint needs an id");
        }
        host = host == null ? "" : host;
        portals = portals.stream().map(XioUri::endpoint).toList();
        if (portals.isEmpty())
        {
            throw new IllegalArgumentException("endpoint " + id + " has no portal");
        }
        metadata = Map.copyOf(metadata);
    }

    public static Endpoint of(final String id, final String host, final List<XioUri> portals)
    {
        return new Endpoint(id, host, portals, Map.of());
    }

    /** An endpoint known only by one address (a static client URI): its host unknown, its id the address. */
    public static Endpoint of(final XioUri portal)
    {
        return new Endpoint(portal.endpoint().toString(), "", List.of(portal), Map.of());
    }
}
