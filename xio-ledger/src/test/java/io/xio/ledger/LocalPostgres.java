package io.xio.ledger;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

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
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server for tests, from the machine's own binaries (Debian's {@code postgresql} package, in
 * {@code /usr/lib/postgresql/<version>/bin}; or the directory {@code -Dxio.test.postgres.bin} or
 * {@code XIO_POSTGRES_BIN} names): {@code initdb} into a temporary directory, started with {@code pg_ctl} on a free
 * port of 127.0.0.1 with its unix socket inside that directory, trusting local connections, durability traded for
 * speed (fsync off). {@link #close()} stops it ({@code immediate}) and deletes the directory; a shutdown hook does the
 * same for a JVM that ends without closing it. initdb refuses to run as root, so when the JVM runs as root the
 * server's commands run as the {@code postgres} user ({@code runuser}), the directory owned by it.
 *
 * <p>Tests take one through the JUnit {@link Extension}: {@code @ExtendWith(LocalPostgres.Extension.class)} and a
 * {@code LocalPostgres} parameter, one server for the whole run, stopped when the run ends. Without binaries that
 * test is skipped by an assumption naming what is missing (it fails where {@value #REQUIRED} is {@code true}).
 * Thread-safe.
 */
public final class LocalPostgres implements AutoCloseable
{
    /** The database {@link #jdbcUrl()} names, created at start; {@link #createDatabase} makes others. */
    public static final String DATABASE = "xio";
    /** The superuser initdb makes, trusted without a password. */
    public static final String USER = "xio";
    /** The environment variable that turns a missing PostgreSQL from a skip into a failure. */
    public static final String REQUIRED = "XIO_TEST_POSTGRES_REQUIRED";

    private static final Pattern DATABASE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final long COMMAND_SECONDS = 120;

    private final Path binaries;
    private final Path directory;
    private final boolean asPostgresUser;
    private final int port;
    private final Thread shutdownHook;
    private boolean stopped;

    private LocalPostgres(final Path binaries, final Path directory, final boolean asPostgresUser, final int port)
    {
        this.binaries = binaries;
        this.directory = directory;
        this.asPostgresUser = asPostgresUser;
        this.port = port;
        this.shutdownHook = new Thread(this::stopQuietly, "local-postgres-stop");
    }

    /**
     * What this machine lacks to start a server (no binaries, or running as root without a {@code postgres} user), or
     * null when it has it all.
     */
    public static String missing()
    {
        final Path bin = binaries();
        if (bin == null)
        {
            return "no PostgreSQL binaries (initdb, pg_ctl, postgres) in /usr/lib/postgresql/*/bin, -Dxio.test." +
                "postgres.bin or XIO_POSTGRES_BIN: install Debian's postgresql package";
        }
        if (runsAsRoot() && (postgresUser() == null || runuser() == null))
        {
            return "the JVM runs as root, which initdb refuses, and there is no postgres user to run it as " +
                "(or no runuser to do it with)";
        }
        return null;
    }

    /**
     * Starts a server of its own (the caller closes it); aborts the calling test, as an assumption does, when the
     * machine lacks what it takes ({@link #missing()}).
     */
    public static LocalPostgres start() throws IOException, InterruptedException, SQLException
    {
        assumeAvailable();
        final boolean asPostgres = runsAsRoot();
        final Path directory = Files.createTempDirectory("xio-postgres-");
        final LocalPostgres server = new LocalPostgres(binaries(), directory, asPostgres, freePort());
        Runtime.getRuntime().addShutdownHook(server.shutdownHook);
        try
        {
            server.initialise();
            server.createDatabase(DATABASE);
            return server;
        }
        catch (final IOException | InterruptedException | SQLException | RuntimeException ex)
        {
            server.stopQuietly();
            throw ex;
        }
    }

    /**
     * Aborts the calling test, as an assumption does, when the machine lacks what a server takes; fails it instead
     * where {@value #REQUIRED} is {@code true} (CI, which installs PostgreSQL, so that a lost install shows).
     */
    private static void assumeAvailable()
    {
        final String lack = missing();
        if (lack != null && Boolean.parseBoolean(System.getenv(REQUIRED)))
        {
            throw new IllegalStateException(REQUIRED + " is set, but " + lack);
        }
        Assumptions.assumeTrue(lack == null, () -> "PostgreSQL tests skipped: " + lack);
    }

    /** The port on 127.0.0.1 the server listens on. */
    public int port()
    {
        return port;
    }

    /** The JDBC URL of {@value #DATABASE}, with the user in it. */
    public String jdbcUrl()
    {
        return jdbcUrl(DATABASE);
    }

    /** The JDBC URL of {@code database} on this server, with the user in it. */
    public String jdbcUrl(final String database)
    {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=" + USER;
    }

    /**
     * Creates database {@code name} (lower case letters, digits, underscores) and gives its JDBC URL.
     */
    public String createDatabase(final String name) throws SQLException
    {
        if (!DATABASE_NAME.matcher(name).matches())
        {
            throw new IllegalArgumentException("a test database's name is lower case letters, digits and " +
                "underscores: " + name);
        }
        try (Connection connection = DriverManager.getConnection(jdbcUrl("postgres"));
            Statement statement = connection.createStatement())
        {
            statement.execute("CREATE DATABASE " + name);
        }
        return jdbcUrl(name);
    }

    /** Stops the server at once and deletes its directory. */
    @Override
    public synchronized void close() throws IOException, InterruptedException
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
                run("pg_ctl", "-D", data(), "-m", "immediate", "-w", "stop");
            }
        }
        finally
        {
            deleteTree(directory);
        }
    }

    @Override
    public String toString()
    {
        return "PostgreSQL on 127.0.0.1:" + port + " from " + binaries + " in " + directory;
    }

    private void initialise() throws IOException, InterruptedException
    {
        if (asPostgresUser)
        {
            Files.setOwner(directory, postgresUser());
        }
        run("initdb", "-D", data(), "-U", USER, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync");
        run("pg_ctl", "-D", data(), "-l", directory.resolve("server.log").toString(), "-w", "-t", "60",
            "-o", "-p " + port + " -k " + directory + " -c listen_addresses=127.0.0.1 -c fsync=off " +
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=60",
            "start");
    }

    private String data()
    {
        return directory.resolve("data").toString();
    }

    /** Runs one of the server's programs (as the postgres user when we are root); its output goes into the error. */
    private void run(final String program, final String... arguments) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        if (asPostgresUser)
        {
            command.addAll(List.of(runuser().toString(), "-u", "postgres", "--"));
        }
        command.add(binaries.resolve(program).toString());
        command.addAll(List.of(arguments));
        final Path output = Files.createTempFile("xio-postgres-" + program + "-", ".out");
        try
        {
            final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(output.toFile()).redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
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

    private static java.io.File nullDevice()
    {
        return new java.io.File("/dev/null");
    }

    /** The newest version's bin directory that holds the three programs, or the one named; null when none. */
    private static Path binaries()
    {
        final String named = System.getProperty("xio.test.postgres.bin", System.getenv("XIO_POSTGRES_BIN"));
        if (named != null && !named.isEmpty())
        {
            return complete(Paths.get(named)) ? Paths.get(named) : null;
        }
        final Path installed = Paths.get("/usr/lib/postgresql");
        if (!Files.isDirectory(installed))
        {
            return null;
        }
        try (Stream<Path> versions = Files.list(installed))
        {
            return versions.map(version -> version.resolve("bin")).filter(LocalPostgres::complete)
                .max(Comparator.comparingInt(LocalPostgres::majorVersion)).orElse(null);
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

    private static boolean complete(final Path bin)
    {
        return Stream.of("initdb", "pg_ctl", "postgres").allMatch(program -> Files.isExecutable(bin.resolve(program)));
    }

    /** util-linux's runuser, which root uses to run a command as another user without a password; or null. */
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

    private static void deleteTree(final Path root) throws IOException
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

    /**
     * Gives a test a {@link LocalPostgres} parameter (a constructor's, a test method's, a {@code @BeforeAll}
     * method's): one server for the whole run, started on first use and closed when the run ends; the test is
     * skipped where PostgreSQL cannot be had.
     */
    public static final class Extension implements ExecutionCondition, ParameterResolver
    {
        private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(Extension.class);

        /**
         * Skips a class (or a test) that asks for a server where none can be had, before its {@code @BeforeAll}
         * methods ask: an assumption that fails while a parameter is resolved is an error, not a skip. Fails it
         * where {@value #REQUIRED} says so.
         */
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(final ExtensionContext context)
        {
            final String lack = missing();
            if (lack == null)
            {
                return ConditionEvaluationResult.enabled("PostgreSQL binaries found");
            }
            if (Boolean.parseBoolean(System.getenv(REQUIRED)))
            {
                throw new IllegalStateException(REQUIRED + " is set, but " + lack);
            }
            return ConditionEvaluationResult.disabled("PostgreSQL tests skipped: " + lack);
        }

        @Override
        public boolean supportsParameter(final ParameterContext parameter, final ExtensionContext context)
        {
            return parameter.getParameter().getType() == LocalPostgres.class;
        }

        @Override
        public Object resolveParameter(final ParameterContext parameter, final ExtensionContext context)
        {
            assumeAvailable();
            return context.getRoot().getStore(NAMESPACE).computeIfAbsent(LocalPostgres.class, type ->
            {
                try
                {
                    return start();
                }
                catch (final IOException | SQLException ex)
                {
                    throw new IllegalStateException("starting PostgreSQL failed", ex);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted starting PostgreSQL", ex);
                }
            }, LocalPostgres.class);
        }
    }
}
