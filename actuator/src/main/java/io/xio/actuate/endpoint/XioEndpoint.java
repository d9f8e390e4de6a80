package io.xio.actuate.endpoint;

import io.xio.engine.Context;
import io.xio.engine.EngineStatistics;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import java.util.List;

/**
 * The {@code xio} actuator endpoint, read-only: the engine's contexts with their traffic, its portals, and
 * its sessions on both sides with their peers, resources, states and connections.
 */
@Endpoint(id = "xio")
public class XioEndpoint
{
    private final XioEngine engine;

    public XioEndpoint(final XioEngine engine)
    {
        this.engine = engine;
    }

    @ReadOperation
    public XioDescriptor xio()
    {
        return new XioDescriptor(engine.name(),
            engine.contexts().stream().map(XioEndpoint::context).toList(),
            engine.portals().stream().map(XioEndpoint::portal).toList(),
            engine.sessions().stream().map(XioEndpoint::session).toList());
    }

    private static ContextDescriptor context(final Context context)
    {
        return new ContextDescriptor(context.name(), context.index(), context.statistics());
    }

    private static PortalDescriptor portal(final Portal portal)
    {
        return new PortalDescriptor(portal.uri().toString(), portal.context().name());
    }

    private static SessionDescriptor session(final Session session)
    {
        return new SessionDescriptor(session.id(), session.isServerSide() ? "server" : "client",
            session.uri().toString(), session.resource(), session.isOpen() ? "open" : "closed",
            session.connectionCount());
    }

    /** Everything the endpoint shows. */
    public record XioDescriptor(String engine, List<ContextDescriptor> contexts, List<PortalDescriptor> portals,
        List<SessionDescriptor> sessions)
    {
    }

    /** One context (thread and event loop) and its traffic since it started. */
    public record ContextDescriptor(String name, int index, EngineStatistics traffic)
    {
    }

    /** One bound portal. */
    public record PortalDescriptor(String uri, String context)
    {
    }

    /** One session, from this side's point of view. */
    public record SessionDescriptor(long id, String side, String uri, String resource, String state, int connections)
    {
    }
}
