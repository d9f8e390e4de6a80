package io.xio.actuate.endpoint;

import io.xio.cluster.EndpointStatus;
import io.xio.engine.Context;
import io.xio.engine.EngineStatistics;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.SessionStatistics;
import io.xio.engine.XioEngine;
import io.xio.spring.client.XioClientRegistry;
import io.xio.spring.client.XioClientStatus;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.service.ServiceDispatcher;
import io.xio.spring.service.XioServiceExporter;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;

/**
 * The {@code xio} actuator endpoint: reading it shows the engine's totals and streams open, its contexts (running,
 * busy and idle time, traffic), its portals, the exported services with their methods (wire names, parameter and
 * result types, calls running and waiting), its sessions on both sides with their peers, resources, states,
 * connections, requests in flight, streams open and counters, and each client proxy with, for a client that names
 * a service, every instance with its state, portal, transport and why that transport. Reading takes a snapshot; it
 * never blocks the engine.
 * Writing to it ({@code POST /actuator/xio}) drains the server: it is deregistered from service discovery, every
 * session is sent GOAWAY and finishes its calls within {@code xio.shutdown.grace-period}, new sessions are
 * refused; the application keeps running, for a restart or a move of its load.
 */
@Endpoint(id = "xio")
public class XioEndpoint
{
    private final XioEngine engine;
    private final @Nullable XioServiceExporter exporter;
    private final @Nullable XioClientRegistry clients;

    public XioEndpoint(final XioEngine engine)
    {
        this(engine, null, null);
    }

    /** With the exporter to drain and the clients to show; either may be null. */
    public XioEndpoint(final XioEngine engine, final @Nullable XioServiceExporter exporter,
        final @Nullable XioClientRegistry clients)
    {
        this.engine = engine;
        this.exporter = exporter;
        this.clients = clients;
    }

    @ReadOperation
    public XioDescriptor xio()
    {
        return new XioDescriptor(engine.name(), engine.statistics(), engine.openStreams(),
            engine.contexts().stream().map(XioEndpoint::context).toList(),
            engine.portals().stream().map(XioEndpoint::portal).toList(),
            engine.sessions().stream().map(XioEndpoint::session).toList(),
            exporter == null ? List.of() : exporter.services().stream().map(XioEndpoint::service).toList(),
            exporter != null && exporter.isDraining(),
            clients == null ? List.of() : clients.statuses().stream().map(XioEndpoint::client).toList());
    }

    /**
     * Drains the server and waits for it (at most the grace period): deregistered, GOAWAY sent to every session,
     * their calls finished.
     */
    @WriteOperation
    public DrainDescriptor drain()
    {
        if (exporter == null)
        {
            return new DrainDescriptor(false, 0, Duration.ZERO, "this application exports no xio services");
        }
        final boolean already = exporter.isDraining();
        final XioServiceExporter.Drained drained = exporter.drain().join();
        return new DrainDescriptor(true, drained.sessions(), drained.took(), already ? "drained before" :
            "deregistered, " + drained.sessions() + " session(s) sent GOAWAY and drained");
    }

    private static ServiceDescriptor service(final ServiceDispatcher service)
    {
        final int queued = service.queued();
        return new ServiceDescriptor(service.resource(), service.api().getName(),
            Math.max(0, service.running() - queued), queued,
            service.methods().values().stream().map(XioEndpoint::method).toList());
    }

    private static MethodDescriptor method(final ServiceMethod method)
    {
        return new MethodDescriptor(method.method().getName(), method.wireName(),
            java.util.Arrays.stream(method.parameterTypes()).map(Type::getTypeName).toList(),
            method.resultType().getTypeName(),
            method.kind(),
            method.idempotent(), method.exactlyOnce(), method.timeout());
    }

    private static ClientDescriptor client(final XioClientStatus status)
    {
        return new ClientDescriptor(status.name(), status.api().getName(), status.uri(), status.serviceId(),
            status.state().name(), status.detail(), status.endpoints().stream().map(XioEndpoint::endpoint).toList());
    }

    private static EndpointDescriptor endpoint(final EndpointStatus status)
    {
        return new EndpointDescriptor(status.endpoint().id(), status.endpoint().host(), status.state().name(),
            status.portal() == null ? null : status.portal().toString(), status.transport(), status.reason(),
            status.inFlight(), status.lastFailure());
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

    /**
     * Everything the endpoint shows; {@code openStreams} are the streams open on all the engine's sessions now (each
     * session's are in its counters).
     */
    public record XioDescriptor(String engine, EngineStatistics totals, int openStreams,
        List<ContextDescriptor> contexts, List<PortalDescriptor> portals, List<SessionDescriptor> sessions,
        List<ServiceDescriptor> services, boolean draining, List<ClientDescriptor> clients)
    {
    }

    /**
     * One exported service: the resource it is exported as, its interface, its calls running and waiting for a
     * worker now, and its methods.
     */
    public record ServiceDescriptor(String name, String api, int running, int queued, List<MethodDescriptor> methods)
    {
    }

    /**
     * One method of an exported service.
     *
     * @param name the Java method's name
     * @param wireName the name its calls give
     * @param parameters the parameters' types (as declared: a Kotlin suspend function's without its
     *     {@code Continuation}; a streamed parameter's, one message's)
     * @param returns the result's type ({@code void} for none), unwrapped from a future, a {@code Mono} or a stream
     * @param kind {@code plain}, {@code future}, {@code mono}, {@code suspend} (a Kotlin suspend function),
     *     {@code void}, {@code one-way}, or a stream's: {@code server-stream}, {@code client-stream} or
     *     {@code bidi-stream} ({@link io.xio.spring.method.ServiceMethod#kind()})
     * @param idempotent whether a call may be tried again elsewhere
     * @param exactlyOnce whether it runs once per call through the execution ledger
     * @param timeout its deadline from {@code @XioMethod(timeout)}, or null
     */
    public record MethodDescriptor(String name, String wireName, List<String> parameters, String returns, String kind,
        boolean idempotent, boolean exactlyOnce, @Nullable Duration timeout)
    {
    }

    /**
     * What a drain did.
     *
     * @param drained whether this application has a server to drain
     * @param sessions the server sessions sent GOAWAY
     * @param took how long until the last of them closed
     * @param detail what was done, in words
     */
    public record DrainDescriptor(boolean drained, int sessions, Duration took, String detail)
    {
    }

    /** One client proxy: the address or service it calls, its state, and a service client's instances. */
    public record ClientDescriptor(String name, String api, @Nullable String uri, @Nullable String serviceId,
        String state, @Nullable String detail, List<EndpointDescriptor> endpoints)
    {
    }

    /** One instance of a service client: its state, the portal and transport it uses, and why that transport. */
    public record EndpointDescriptor(String id, String host, String state, @Nullable String portal,
        @Nullable String transport, String reason, int inFlight, @Nullable String lastFailure)
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
     * was authenticated; never credentials), and its counters (requests in flight and streams open among them).
     */
    public record SessionDescriptor(long id, String side, String uri, String resource, List<String> peers,
        String state, int connections, @Nullable String principal, SessionStatistics counters)
    {
    }
}
