package io.xio.it.exactlyonce;

import io.xio.cluster.Endpoint;
import io.xio.cluster.EndpointStatus;
import io.xio.cluster.ServiceClient;
import io.xio.cluster.StaticEndpointResolver;
import io.xio.engine.XioEngine;
import io.xio.engine.XioUri;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;

/**
 * Server processes sharing one database, each behind a {@link TcpRelay} of the test's JVM, and a
 * {@link ServiceClient} that reaches them only through the relays (a {@link StaticEndpointResolver} lists the
 * relays, which stay the servers' addresses across restarts). The client's engine drops a silent connection after
 * {@link #KEEPALIVE_TIMEOUT} and gives up re-attaching its session after {@link #RECONNECT_TIMEOUT}, so that a
 * partition shows as a server no longer active within about 4 s. {@link #close()} stops it all, processes included,
 * whatever state it is in. Used by the test's thread.
 */
final class LedgerCluster implements AutoCloseable
{
    /**
     * Traffic-free time after which a connection sends a keepalive, on the client and the servers: a quiet healthy
     * connection is silent for at most about twice this (the engine looks once an interval), well within
     * {@link #KEEPALIVE_TIMEOUT}.
     */
    static final Duration KEEPALIVE_INTERVAL = Duration.ofMillis(250);
    /** Silence after which a connection is dropped: how soon the client notices a partition. */
    static final Duration KEEPALIVE_TIMEOUT = Duration.ofMillis(1500);
    /** How long the client tries to re-attach a session whose connection was dropped before it fails the session. */
    static final Duration RECONNECT_TIMEOUT = Duration.ofSeconds(2);

    private final List<ServerProcess> servers = new ArrayList<>();
    private final List<TcpRelay> relays = new ArrayList<>();
    private XioEngine clientEngine;
    private ServiceClient client;

    private LedgerCluster()
    {
    }

    /**
     * Starts {@code size} servers on {@code jdbcUrl}'s database ({@code ledger}: through the execution ledger), their
     * relays, and the client; returns once the client has an active session to every one.
     */
    static LedgerCluster start(final String jdbcUrl, final boolean ledger, final int size)
        throws IOException, InterruptedException
    {
        final LedgerCluster cluster = new LedgerCluster();
        try
        {
            final List<Endpoint> endpoints = new ArrayList<>();
            for (int i = 1; i <= size; i++)
            {
                final ServerProcess server = new ServerProcess("server-" + i, jdbcUrl, ledger);
                cluster.servers.add(server);
                server.start();
                final TcpRelay relay = new TcpRelay(server.name(), server.port());
                cluster.relays.add(relay);
                endpoints.add(Endpoint.of(server.name(), "", List.of(XioUri.parse("tcp://127.0.0.1:" +
                    relay.port()))));
            }
            cluster.clientEngine = XioEngine.builder().name("eo-client").contexts(2)
                .keepalive(KEEPALIVE_INTERVAL, KEEPALIVE_TIMEOUT)
                .connectTimeout(Duration.ofSeconds(1))
                .reconnectTimeout(RECONNECT_TIMEOUT)
                .build();
            cluster.client = ServiceClient.builder(cluster.clientEngine,
                StaticEndpointResolver.of(LedgerServerMain.SERVICE, endpoints), LedgerServerMain.SERVICE)
                .transports(List.of("tcp"))
                .build();
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.client.endpoints().stream()
                .filter(endpoint -> endpoint.state() == EndpointStatus.State.ACTIVE).count() == size);
            return cluster;
        }
        catch (final IOException | InterruptedException | RuntimeException ex)
        {
            cluster.close();
            throw ex;
        }
    }

    ServiceClient client()
    {
        return client;
    }

    ServerProcess server(final int index)
    {
        return servers.get(index);
    }

    TcpRelay relay(final int index)
    {
        return relays.get(index);
    }

    /** Starts server {@code index} again, on a fresh port, and points its relay there. */
    void restart(final int index) throws IOException, InterruptedException
    {
        final ServerProcess server = servers.get(index);
        server.start();
        relays.get(index).retarget(server.port());
    }

    /** Whether the client takes calls to server {@code index}'s endpoint (its state is {@code ACTIVE}). */
    boolean isActive(final int index)
    {
        final String id = servers.get(index).name();
        return client.endpoints().stream().anyMatch(endpoint -> endpoint.endpoint().id().equals(id) &&
            endpoint.state() == EndpointStatus.State.ACTIVE);
    }

    /** What the servers counted, summed over the processes that stopped cleanly: read it after {@link #close()}. */
    ServerCounts counts()
    {
        return servers.stream().map(ServerProcess::counts).reduce(ServerCounts.NONE, ServerCounts::plus);
    }

    /** The client's view of its endpoints, for messages. */
    String describe()
    {
        return client == null ? "no client" : client.endpoints().stream().map(e -> e.endpoint().id() + " " +
            e.state() + (e.lastFailure() == null ? "" : " (" + e.lastFailure() + ")")).toList().toString();
    }

    /**
     * Closes the client, stops every server (killing those that do not stop) and closes the relays; goes on past a
     * part that fails to close, and throws the first failure at the end.
     */
    @Override
    public void close() throws InterruptedException
    {
        RuntimeException first = null;
        boolean interrupted = false;
        final List<AutoCloseable> parts = new ArrayList<>();
        if (client != null)
        {
            parts.add(client);
        }
        if (clientEngine != null)
        {
            parts.add(clientEngine);
        }
        for (final ServerProcess server : servers)
        {
            parts.add(server::stop);
        }
        parts.addAll(relays);
        for (final AutoCloseable part : parts)
        {
            try
            {
                part.close();
            }
            catch (final InterruptedException ex)
            {
                interrupted = true; // the other parts are closed all the same: no process is left behind
            }
            catch (final Exception ex)
            {
                if (first == null)
                {
                    first = new IllegalStateException("closing " + part + " failed", ex);
                }
                else
                {
                    first.addSuppressed(ex);
                }
            }
        }
        if (first != null)
        {
            throw first;
        }
        if (interrupted)
        {
            throw new InterruptedException("interrupted while closing the cluster");
        }
    }
}
