package io.xio.benchmarks.ledger;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throw-away PostgreSQL server with the settings a production server starts with, for the benchmark: Debian's
 * binaries ({@code /usr/lib/postgresql/<version>/bin}, the newest), {@code initdb} into a temporary directory, started
 * on a free port of 127.0.0.1 with nothing changed but where it listens, so {@code fsync} and
 * {@code synchronous_commit} are on and every commit waits for its WAL to reach the disk. (xio-ledger's test server,
 * {@code LocalPostgres}, turns those off for speed, and lives in a test jar built on JUnit.) As root, the server's
 * programs run as the {@code postgres} user. {@link #close()} stops it and deletes the directory; a shutdown hook
 * does the same for a run cut short. Used by one thread.
 */
final class PostgresServer implements AutoCloseable
{
    static final String USER = "xio";
    static final String DATABASE = "bench";

    private static final long COMMAND_SECONDS = 120;

    private final Path binaries;
    private final Path directory;
    private final boolean asPostgres;
    private final int port;
    private final Thread shutdownHook = new Thread(this::stopQuietly, "postgres-stop");
    private boolean stopped;

    private PostgresServer(final Path binaries, final Path directory, final boolean asPostgres, final int port)
    {
        this.binaries = binaries;
        this.directory = directory;
        this.asPostgres = asPostgres;
        this.port = port;
    }

    /** What this machine lacks to start a server, or null when it has it all. */
    static String missing()
    {
        if (binaries() == null)
        {
            return "no PostgreSQL binaries (initdb, pg_ctl, postgres) in /usr/lib/postgresql/*/bin: install " +
                "Debian's postgresql package";
        }
        if (runsAsRoot() && (postgresUser() == null || runuser() == null))
        {
            return "running as root, which initdb refuses, and there is no postgres user (or runuser) to run it as";
        }
        return null;
    }

    /** Starts a server with database {@value #DATABASE}; the caller closes it. */
    static PostgresServer start() throws IOException, InterruptedException, SQLException
    {
        final String lack = missing();
        if (lack != null)
        {
            throw new IllegalStateException(lack);
        }
        final Path directory = Files.createTempDirectory("xio-ledger-cost-postgres-");
        final PostgresServer server = new PostgresServer(binaries(), directory, runsAsRoot(), freePort());
        Runtime.getRuntime().addShutdownHook(server.shutdownHook);
        try
        {
            if (server.asPostgres)
            {
                Files.setOwner(directory, postgresUser());
            }
            server.run("initdb", "-D", server.data(), "-U", USER, "-A", "trust", "-E", "UTF8", "--locale=C");
            server.run("pg_ctl", "-D", server.data(), "-l", directory.resolve("server.log").toString(), "-w",
                "-t", "60", "-o", "-p " + server.port + " -k " + directory + " -c listen_addresses=127.0.0.1",
                "start");
            try (Connection connection = DriverManager.getConnection(server.jdbcUrl("postgres"));
                Statement statement = connection.createStatement())
            {
                statement.execute("CREATE DATABASE " + DATABASE);
            }
            return server;
        }
        catch (final IOException | InterruptedException | SQLException | RuntimeException ex)
        {
            server.stopQuietly();
            throw ex;
        }
    }

    /** The JDBC URL of {@value #DATABASE}. */
    String jdbcUrl()
    {
        return jdbcUrl(DATABASE);
    }

    private String jdbcUrl(final String database)
    {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=" + USER;
    }

    /** Where it runs from and where its data is, for messages. */
    @Override
    public String toString()
    {
        return "PostgreSQL from " + binaries + " in " + directory;
    }

    /** Stops the server ({@code fast}: its sessions are over) and deletes its directory. */
    @Override
    public void close() throws IOException, InterruptedException
    {
        if (stopped)
        {
            return;
        }
        stopped = true;
        try
        {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        }
        catch (final IllegalStateException ex)
        {
            // The JVM is shutting down: the hook is this call.
        }
        try
        {
            if (Files.exists(directory.resolve("data").resolve("postmaster.pid")))
            {
                run("pg_ctl", "-D", data(), "-m", "fast", "-w", "stop");
            }
        }
        finally
        {
            deleteTree(directory);
        }
    }

    private void stopQuietly()
    {
        try
        {
            close();
        }
        catch (final IOException | InterruptedException | RuntimeException ex)
        {
            System.err.println("stopping " + this + " failed: " + ex);
        }
    }

    private String data()
    {
        return directory.resolve("data").toString();
    }

    /** Runs one of the server's programs (as the postgres user when we are root); its output goes into the error. */
    private void run(final String program, final String... arguments) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        if (asPostgres)
        {
            command.addAll(List.of(runuser().toString(), "-u", "postgres", "--"));
        }
        command.add(binaries.resolve(program).toString());
        command.addAll(List.of(arguments));
        final Path output = Files.createTempFile("xio-ledger-cost-" + program + "-", ".out");
        try
        {
            final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(output.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File(
                    "/dev/null")));
            builder.environment().put("LC_ALL", "C");
            builder.environment().remove("PGDATA");
            final Process process = builder.start();
            if (!process.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + " still ran after " + COMMAND_SECONDS + " s:\n" +
                    Files.readString(output, StandardCharsets.UTF_8));
            }
            if (process.exitValue() != 0)
            {
                final Path log = directory.resolve("server.log");
                throw new IOException(String.join(" ", command) + " exited with " + process.exitValue() + ":\n" +
                    Files.readString(output, StandardCharsets.UTF_8) +
                    (Files.exists(log) ? "\nserver log:\n" + Files.readString(log, StandardCharsets.UTF_8) : ""));
            }
        }
        finally
        {
            Files.deleteIfExists(output);
        }
    }

    /** The newest version's bin directory that holds the three programs; null when none. */
    private static Path binaries()
    {
        final Path installed = Paths.get("/usr/lib/postgresql");
        if (!Files.isDirectory(installed))
        {
            return null;
        }
        try (Stream<Path> versions = Files.list(installed))
        {
            return versions.map(version -> version.resolve("bin"))
                .filter(bin -> Stream.of("initdb", "pg_ctl", "postgres")
                    .allMatch(program -> Files.isExecutable(bin.resolve(program))))
                .max(Comparator.comparingInt(PostgresServer::majorVersion)).orElse(null);
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    private static int majorVersion(final Path bin)
    {
        try
        {
            return Integer.parseInt(bin.getParent().getFileName().toString().replaceAll("\\..*", ""));
        }
        catch (final NumberFormatException ex)
        {
            return 0;
        }
    }

    private static Path runuser()
    {
        return Stream.of("/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser").map(Paths::get)
            .filter(Files::isExecutable).findFirst().orElse(null);
    }

    private static boolean runsAsRoot()
    {
        return "root".equals(System.getProperty("user.name"));
    }

    private static UserPrincipal postgresUser()
    {
        try
        {
            return Paths.get("/").getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }

    static void deleteTree(final Path root) throws IOException
    {
        if (!Files.exists(root))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(root))
        {
            for (final Path path : (Iterable<Path>)paths.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.deleteIfExists(path);
            }
        }
    }
}
