package io.xio.sample.cluster;

import org.apache.zookeeper.server.ServerConfig;
import org.apache.zookeeper.server.ZooKeeperServerMain;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * A standalone ZooKeeper server for the cluster profile, so trying it needs nothing but the sample: run from the
 * ZooKeeper jar the sample already has (Spring Cloud Zookeeper's client jar holds the server too), its data in a
 * temporary directory deleted on exit, no admin server. Arguments: {@code [port [bind-address]]}, default
 * {@code 2181 127.0.0.1}; in a container, {@code 2181 0.0.0.0}. Prints {@code LocalZooKeeper: serving on ...}
 * once clients can connect, then runs until stopped (Ctrl-C, SIGTERM). Not for production: one node, no
 * persistence.
 */
public final class LocalZooKeeper
{
    private LocalZooKeeper()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int port = args.length > 0 ? Integer.parseInt(args[0]) : 2181;
        final String bind = args.length > 1 ? args[1] : "127.0.0.1";
        final Path data = Files.createTempDirectory("xio-zookeeper-");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(data), "xio-zookeeper-cleanup"));

        final Properties settings = new Properties();
        settings.setProperty("dataDir", data.toString());
        settings.setProperty("clientPort", Integer.toString(port));
        settings.setProperty("clientPortAddress", bind);
        settings.setProperty("tickTime", "2000");
        settings.setProperty("maxClientCnxns", "0");
        // Unknown keys become zookeeper.* system properties: no Jetty admin server on 8080 (the sample's port).
        settings.setProperty("admin.enableServer", "false");
        final QuorumPeerConfig parsed = new QuorumPeerConfig();
        parsed.parseProperties(settings);
        final ServerConfig config = new ServerConfig();
        config.readFrom(parsed);

        final Thread announce = new Thread(() -> announce(bind, port, data), "xio-zookeeper-announce");
        announce.setDaemon(true);
        announce.start();
        new ZooKeeperServerMain().runFromConfig(config);
    }

    /**
     * Prints the line scripts and tests wait for, once the server answers {@code srvr} with its mode: the port
     * accepts connections before the database is loaded.
     */
    private static void announce(final String bind, final int port, final Path data)
    {
        final String host = "0.0.0.0".equals(bind) ? "127.0.0.1" : bind;
        // A probe that comes before the database is loaded makes ZooKeeper log an error closing it: start late.
        sleep(1000);
        for (int attempt = 0; attempt < 600; attempt++)
        {
            try (Socket socket = new Socket())
            {
                socket.connect(new InetSocketAddress(host, port), 1000);
                socket.setSoTimeout(1000);
                socket.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
                final String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                if (answer.contains("Mode: "))
                {
                    System.out.println("LocalZooKeeper: serving on " + bind + ":" + port + " (data in " + data +
                        ", deleted on exit); connect with ZOOKEEPER_CONNECT=" + host + ":" + port);
                    return;
                }
            }
            catch (final IOException ex)
            {
                // Not listening yet.
            }
            sleep(100);
        }
        System.out.println("LocalZooKeeper: " + bind + ":" + port + " did not start serving within a minute");
    }

    private static void sleep(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static void delete(final Path dir)
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).forEach(file ->
            {
                try
                {
                    Files.deleteIfExists(file);
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
            });
        }
        catch (final IOException | UncheckedIOException ex)
        {
            System.err.println("LocalZooKeeper: could not delete " + dir + ": " + ex);
        }
    }
}
