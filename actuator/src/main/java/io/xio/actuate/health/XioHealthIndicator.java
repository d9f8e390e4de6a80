package io.xio.actuate.health;

import io.xio.engine.Context;
import io.xio.engine.ContextState;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import io.xio.spring.client.XioClientRegistry;
import io.xio.spring.client.XioClientStatus;
import io.xio.spring.service.XioServiceExporter;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code xio} health: UP when every context runs and every portal the application exports is bound. A context
 * that failed (an Error on its thread) shows as {@code failed: <cause>} and makes the health DOWN for as long as it
 * is one of the engine's contexts, that is until it is restarted ({@code xio.on-context-failure}); the
 * {@code failures} detail lists every context that failed, restarted or not.
 * Clients are listed with their session's state; one that cannot reach its server makes the health DOWN only
 * when {@code management.health.xio.require-clients} is set, since a server being down is usually that
 * server's problem, not this application's. Each check also starts opening the sessions of clients not
 * connected yet (without waiting), so reachability shows before the first call. A client that names a service
 * shows how many of its instances it knows and how many take calls ({@code active}). Once the server drains (on
 * shutdown or through the {@code xio} endpoint) the health is OUT_OF_SERVICE with {@code draining: true}.
 */
public final class XioHealthIndicator extends AbstractHealthIndicator
{
    private final XioEngine engine;
    private final @Nullable XioServiceExporter exporter;
    private final @Nullable XioClientRegistry clients;
    private final boolean requireClients;

    public XioHealthIndicator(final XioEngine engine, final @Nullable XioServiceExporter exporter,
        final @Nullable XioClientRegistry clients, final boolean requireClients)
    {
        super("xio health check failed");
        this.engine = engine;
        this.exporter = exporter;
        this.clients = clients;
        this.requireClients = requireClients;
    }

    @Override
    protected void doHealthCheck(final Health.Builder builder)
    {
        boolean up = true;
        final Map<String, Object> contexts = new LinkedHashMap<>();
        for (final Context context : engine.contexts())
        {
            contexts.put(context.name(), context.state() == ContextState.FAILED ? "failed: " + context.failure() :
                context.isRunning() ? "running" : "stopped");
            up &= context.isRunning();
        }
        final Map<String, Object> failures = new LinkedHashMap<>();
        for (final Context failed : engine.failedContexts())
        {
            failures.put(failed.name(), String.valueOf(failed.failure())); // a restarted one may fail again: last wins
        }
        final List<Portal> bound = engine.portals();
        final Map<String, Object> portals = new LinkedHashMap<>();
        if (exporter != null && exporter.isRunning())
        {
            for (final Portal portal : exporter.portals())
            {
                final boolean open = bound.contains(portal);
                portals.put(portal.uri().toString(), open ? "bound" : "closed");
                up &= open;
            }
        }
        int serverSessions = 0;
        int clientSessions = 0;
        int connections = 0;
        for (final Session session : engine.sessions())
        {
            if (session.isServerSide())
            {
                serverSessions++;
            }
            else
            {
                clientSessions++;
            }
            connections += session.connectionCount();
        }
        final Map<String, Object> clientDetails = new LinkedHashMap<>();
        if (clients != null)
        {
            clients.probe();
            for (final XioClientStatus client : clients.statuses())
            {
                final Map<String, Object> shown = new LinkedHashMap<>();
                if (client.serviceId() != null)
                {
                    shown.put("service-id", client.serviceId());
                    shown.put("endpoints", client.endpoints().size());
                    shown.put("active", client.activeEndpoints());
                }
                else
                {
                    shown.put("uri", client.uri());
                }
                shown.put("state", client.state());
                if (client.detail() != null)
                {
                    shown.put("reason", client.detail());
                }
                // A client made from a URI alone has no name: its interface and address tell it apart.
                clientDetails.put(client.name().isEmpty() ? client.api().getSimpleName() + " " + client.uri()
                    : client.name(), shown);
                up &= !requireClients || client.isEstablished();
            }
        }
        final boolean draining = exporter != null && exporter.isDraining();
        builder.status(draining ? org.springframework.boot.health.contributor.Status.OUT_OF_SERVICE
                : up ? org.springframework.boot.health.contributor.Status.UP
                : org.springframework.boot.health.contributor.Status.DOWN)
            .withDetail("engine", engine.name())
            .withDetail("draining", draining)
            .withDetail("contexts", contexts)
            .withDetail("failures", failures)
            .withDetail("portals", portals)
            .withDetail("sessions", Map.of("server", serverSessions, "client", clientSessions))
            .withDetail("connections", connections)
            .withDetail("clients", clientDetails);
    }
}
