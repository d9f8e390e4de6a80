package io.xio.it.exactlyonce;

import io.xio.cluster.Endpoint;
import io.xio.cluster.EndpointStatus;
import io.xio.cluster.ServiceClient;
import io.xio.cluster.StaticEndpointResolver;
import io.xio.engine.XioEngine;
import io.xio.engine.XioUri;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;

/**
 * Server processes sharing one database, each behind a {@link TcpRelay} of the test's JVM, and a
 * {@link ServiceClient} that reaches them only through the relays (a {@link StaticEndpointResolver} lists the
 * relays). The client's engine notices a silent connection within {@link #KEEPALIVE_TIMEOUT}, so that a partition
 * shows within about 2 s. {@link #close()} stops it all, processes included, whatever state it is in. Used by the
 * test's thread.
 */
final class LedgerCluster implements AutoCloseable
{
    /** Traffic-free time after which the client's connections send a keepalive. */
    static final Duration KEEPALIVE_INTERVAL = Duration.ofMillis(250);
    /** Silence after which the client drops a connection: how soon it notices a partition. */
    static final Duration KEEPALIVE_TIMEOUT = Duration.ofMillis(1500);

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
                final ServerProcess server = new ServerProcess("server-" + i, freePort(), jdbcUrl, ledger);
                cluster.servers.add(server);
                final TcpRelay relay = new TcpRelay(server.name(), server.port());
                cluster.relays.add(relay);
                endpoints.add(Endpoint.of(server.name(), "", List.of(XioUri.parse("tcp://127.0.0.1:" +
                    relay.port()))));
                server.start();
            }
            cluster.clientEngine = XioEngine.builder().name("eo-client").contexts(2)
                .keepalive(KEEPALIVE_INTERVAL, KEEPALIVE_TIMEOUT)
                .connectTimeout(Duration.ofSeconds(1))
                .reconnectTimeout(Duration.ofSeconds(10))
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

    int size()
    {
        return servers.size();
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

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }
}
