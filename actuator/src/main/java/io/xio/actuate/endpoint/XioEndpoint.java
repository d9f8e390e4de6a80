package io.xio.actuate.endpoint;

import io.xio.engine.Context;
import io.xio.engine.EngineStatistics;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.SessionStatistics;
import io.xio.engine.XioEngine;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import java.time.Duration;
import java.util.List;

/**
 * The {@code xio} actuator endpoint, read-only: the engine's totals, its contexts (running, busy and idle time,
 * traffic), its portals, and its sessions on both sides with their peers, resources, states, connections,
 * requests in flight and counters. Reading it takes a snapshot; it never blocks the engine.
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
        return new XioDescriptor(engine.name(), engine.statistics(),
            engine.contexts().stream().map(XioEndpoint::context).toList(),
            engine.portals().stream().map(XioEndpoint::portal).toList(),
            engine.sessions().stream().map(XioEndpoint::session).toList());
    }

    private static ContextDescriptor context(final Context context)
    {
        final EngineStatistics figures = context.statistics();
        return new ContextDescriptor(context.name(), context.index(), context.isRunning(),
            Duration.ofNanos(figures.busyNanos()), Duration.ofNanos(figures.idleNanos()), figures);
    }

    private static PortalDescriptor portal(final Portal portal)
    {
        return new PortalDescriptor(portal.uri().toString(), portal.context().name());
    }

    private static SessionDescriptor session(final Session session)
    {
        return new SessionDescriptor(session.id(), session.isServerSide() ? "server" : "client",
            session.uri().toString(), session.resource(), session.peerAddresses(),
            session.isOpen() ? (session.connectionCount() > 0 ? "established" : "reconnecting") : "closed",
            session.connectionCount(), session.principal() == null ? null : session.principal().getName(),
            session.statistics());
    }

    /** Everything the endpoint shows. */
    public record XioDescriptor(String engine, EngineStatistics totals, List<ContextDescriptor> contexts,
        List<PortalDescriptor> portals, List<SessionDescriptor> sessions)
    {
    }

    /** One context (thread and event loop): whether it runs, its busy and idle time, its traffic. */
    public record ContextDescriptor(String name, int index, boolean running, Duration busy, Duration idle,
        EngineStatistics traffic)
    {
    }

    /** One bound portal and the context that serves it. */
    public record PortalDescriptor(String uri, String context)
    {
    }

    /**
     * One session, from this side's point of view: the address it was opened with (client) or arrived at
     * (server), the remote address of each connection, the name of who it belongs to (server side, once its set-up
     * was authenticated; never credentials), and its counters.
     */
    public record SessionDescriptor(long id, String side, String uri, String resource, List<String> peers,
        String state, int connections, String principal, SessionStatistics counters)
    {
    }
}
