package io.xio.spring.client;

import io.xio.cluster.EndpointStatus;
import io.xio.cluster.ServiceClient;
import io.xio.engine.Session;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The sessions of a client that names a service: each attempt takes the session the {@link ServiceClient} picks
 * among the instances up and not draining, so an attempt tried again after its instance went away or drained lands
 * on another. Thread-safe.
 */
final class ServiceSessions implements ClientSessions
{
    private final ServiceClient client;
    private final String serviceId;
    private final boolean resolvesName;

    /** @param resolvesName whether the service is a name its settings' resolver looks up (DNS), not a discovery id */
    ServiceSessions(final ServiceClient client, final String serviceId, final boolean resolvesName)
    {
        this.client = client;
        this.serviceId = serviceId;
        this.resolvesName = resolvesName;
    }

    @Override
    public String target()
    {
        return "service " + serviceId;
    }

    @Override
    public String resource()
    {
        return client.resource();
    }

    @Override
    public String transport()
    {
        return "service";
    }

    @Override
    public CompletableFuture<Session> session()
    {
        return client.session(0);
    }

    @Override
    public boolean elsewhere()
    {
        int active = 0;
        for (final EndpointStatus endpoint : client.endpoints())
        {
            if (endpoint.state() == EndpointStatus.State.ACTIVE && ++active > 1)
            {
                return true;
            }
        }
        return false;
    }

    @Override
    public @Nullable String lastFailure()
    {
        for (final EndpointStatus endpoint : client.endpoints())
        {
            if (endpoint.lastFailure() != null)
            {
                return endpoint.endpoint().id() + ": " + endpoint.lastFailure();
            }
        }
        return null;
    }

    @Override
    public XioClientStatus status(final String name, final Class<?> api)
    {
        final List<EndpointStatus> endpoints = client.endpoints();
        final XioClientStatus.State state;
        String detail = null;
        if (endpoints.stream().anyMatch(e -> e.state() == EndpointStatus.State.ACTIVE))
        {
            state = XioClientStatus.State.ESTABLISHED;
        }
        else if (endpoints.stream().anyMatch(e -> e.state() == EndpointStatus.State.CONNECTING))
        {
            state = XioClientStatus.State.CONNECTING;
        }
        else
        {
            state = XioClientStatus.State.UNREACHABLE;
            detail = endpoints.isEmpty() ? (resolvesName ? serviceId + " resolves to no address yet"
                : "no instance of " + serviceId + " with xio portals is registered") : lastFailure();
        }
        return new XioClientStatus(name, api, null, state, detail, serviceId, endpoints);
    }

    @Override
    public void close()
    {
        client.close(); // not the resolver: the application's, or shared by every DNS client of the context
    }
}
