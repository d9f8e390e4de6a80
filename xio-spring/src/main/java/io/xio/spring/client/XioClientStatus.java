package io.xio.spring.client;

import io.xio.cluster.EndpointStatus;
import org.jspecify.annotations.Nullable;

import java.util.List;

/**
 * What one client proxy's session is doing, for health and monitoring; for a client that names a service, what
 * each of the service's instances is doing.
 *
 * @param name the client's name ({@code xio.clients.<name>}), or empty for a client given only a URI
 * @param api the interface the proxy implements
 * @param uri the address it calls; null for a client that names a service
 * @param state where its session stands (a service client: ESTABLISHED while one instance takes calls)
 * @param detail why it is not established (the last failure), or null
 * @param serviceId the service it calls ({@code xio.clients.<name>.service-id}), or null for a client given a URI
 * @param endpoints a service client's instances: id, state, portal, transport and why that transport; else empty
 */
public record XioClientStatus(String name, Class<?> api, @Nullable String uri, State state, @Nullable String detail,
    @Nullable String serviceId, List<EndpointStatus> endpoints)
{
    public XioClientStatus
    {
        endpoints = List.copyOf(endpoints);
    }

    /** The status of a client given a URI. */
    public XioClientStatus(final String name, final Class<?> api, final String uri, final State state,
        final @Nullable String detail)
    {
        this(name, api, uri, state, detail, null, List.of());
    }

    /** Where a client's session stands. */
    public enum State
    {
        /** Not used yet: the session opens on the first call (or the first probe). */
        NOT_OPENED,
        /** Opening now. */
        CONNECTING,
        /** Open, with at least one connection up. */
        ESTABLISHED,
        /** Open, but every connection is down: the engine is re-attaching. */
        RECONNECTING,
        /** The last attempt to open it failed; the next call tries again. */
        UNREACHABLE
    }

    public boolean isEstablished()
    {
        return state == State.ESTABLISHED;
    }

    /** How many of a service client's instances take calls now. */
    public long activeEndpoints()
    {
        return endpoints.stream().filter(e -> e.state() == EndpointStatus.State.ACTIVE).count();
    }
}
