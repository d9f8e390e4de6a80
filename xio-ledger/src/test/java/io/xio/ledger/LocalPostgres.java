package io.xio.ledger;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A throw-away PostgreSQL server from the machine's own binaries (Debian's {@code postgresql} package, in
 * {@code /usr/lib/postgresql/<version>/bin}; or the directory {@code -Dxio.test.postgres.bin} or
 * {@code XIO_POSTGRES_BIN} names, or any bin directory given to {@link #start(Path, Durability)}): {@code initdb} into
 * a temporary directory, started with {@code pg_ctl} on a free port of 127.0.0.1 with its unix socket inside that
 * directory; durable as a production server is, or with durability traded for speed ({@link Durability}). Its one
 * user, a superuser, has a random password ({@code scram-sha-256}, on the socket too), which {@link #jdbcUrl()}
 * carries: another local user can reach the port, and a superuser runs programs as the server's user.
 * {@link #close()} stops it ({@code immediate}) and deletes the directory; a shutdown hook does the same for a JVM
 * that ends without closing it. A JVM killed outright leaves its server behind: the next {@link #start()} stops the
 * servers whose JVM is gone (the directory names its pid) or whose directory is, and deletes what they left. initdb
 * refuses to run as root, so when the JVM runs as root (its effective uid, not {@code user.name}) the server's
 * commands run as the {@code postgres} user ({@code runuser}), the directory owned by it, and the directory is
 * deleted with that user's rights (so that nothing in it, swapped for a link meanwhile, leads root elsewhere).
 *
 * <p>Free of JUnit, for the benchmarks too. Tests take one through {@link LocalPostgresExtension}, which skips them
 * where the machine lacks PostgreSQL ({@link #skipReason()}). Thread-safe.
 */
public final class LocalPostgres implements AutoCloseable
{
    /** The database {@link #jdbcUrl()} names, created at start; {@link #createDatabase} makes others. */
    public static final String DATABASE = "xio";
    /** The superuser initdb makes, with the password {@link #password()} gives. */
    public static final String USER = "xio";
    /** The environment variable that turns a missing PostgreSQL from a skip into a failure (CI sets it). */
    public static final String REQUIRED = "XIO_TEST_POSTGRES_REQUIRED";

    private static final Pattern DATABASE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final Duration COMMAND_LIMIT = Duration.ofSeconds(120);
    /** The prefix of a server's directory in the temporary directory. */
    private static final String DIRECTORY_PREFIX = "xio-postgres-";
    /** The file in a server's directory that names the JVM that started it: its pid and start instant. */
    private static final String OWNER = "owner";

    /** What a server trades for speed. */
    public enum Durability
    {
        /**
         * {@code fsync}, {@code synchronous_commit} and {@code full_page_writes} off: a commit waits for no disk,
         * and a crash may lose or corrupt data. For tests.
         */
        OFF(" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"),
        /** PostgreSQL's own settings, as a production server has them: a commit waits for its WAL to reach the disk. */
        ON("");

        private final String options;

        Durability(final String options)
        {
            this.options = options;
        }
    }

    private final Path binaries;
    private final Durability durability;
    private final Path directory;
    private final boolean asPostgresUser;
    private final int port;
    private final String password;
    private final Thread shutdownHook;
    private boolean stopped;

    private LocalPostgres(final Path binaries, final Durability durability, final Path directory,
        final boolean asPostgresUser, final int port)
    {
        this.binaries = binaries;
        this.durability = durability;
        this.directory = directory;
        this.asPostgresUser = asPostgresUser;
        this.port = port;
        final byte[] secret = new byte[18];
        new SecureRandom().nextBytes(secret);
        this.password = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        this.shutdownHook = new Thread(this::stopQuietly, "local-postgres-stop");
    }

    /**
     * What this machine lacks to start a server from {@link #binaries()} (no binaries, or running as root without a
     * {@code postgres} user), or null when it has it all.
     */
    public static String missing()
    {
        return missing(binaries());
    }

    /**
     * Why a run must do without a server: what this machine lacks ({@link #missing()}), or null when it has it all.
     *
     * @throws IllegalStateException instead, where {@value #REQUIRED} is {@code true} (CI, which installs
     *                               PostgreSQL, so that a lost install shows)
     */
    public static String skipReason()
    {
        final String lack = missing();
        if (lack != null && Boolean.parseBoolean(System.getenv(REQUIRED)))
        {
            throw new IllegalStateException(REQUIRED + " is set, but " + lack);
        }
        return lack;
    }

    /** Starts a server for tests from {@link #binaries()}, durability {@link Durability#OFF}; the caller closes it. */
    public static LocalPostgres start() throws IOException, InterruptedException, SQLException
    {
        return start(binaries(), Durability.OFF);
    }

    /**
     * Starts a server of its own from {@code binaries} (a bin directory holding {@code initdb}, {@code pg_ctl} and
     * {@code postgres}, such as {@link #binaries()}) with database {@value #DATABASE}; the caller closes it.
     *
     * @throws IllegalStateException where the machine lacks what it takes (no such binaries, root without a
     *                               {@code postgres} user)
     */
    public static LocalPostgres start(final Path binaries, final Durability durability)
        throws IOException, InterruptedException, SQLException
    {
        final String lack = missing(binaries);
        if (lack != null)
        {
            throw new IllegalStateException("cannot start PostgreSQL: " + lack);
        }
        final boolean asPostgres = runsAsRoot();
        stopLeftovers(binaries, asPostgres);
        final Path directory = Files.createTempDirectory(DIRECTORY_PREFIX);
        Files.writeString(directory.resolve(OWNER), owner(ProcessHandle.current()), StandardCharsets.UTF_8);
        final LocalPostgres server = new LocalPostgres(binaries, durability, directory, asPostgres, freePort());
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

    private static String missing(final Path binaries)
    {
        if (binaries == null || !complete(binaries))
        {
            return "no PostgreSQL binaries (initdb, pg_ctl, postgres) in " + (binaries != null ? binaries :
                "/usr/lib/postgresql/*/bin, -Dxio.test.postgres.bin or XIO_POSTGRES_BIN") +
                ": install Debian's postgresql package";
        }
        if (runsAsRoot() && (postgresUser() == null || runuser() == null))
        {
            return "the JVM runs as root, which initdb refuses, and there is no postgres user to run it as " +
                "(or no runuser to do it with)";
        }
        return null;
    }

    /** The directory the server's data, socket and log are in. */
    Path directory()
    {
        return directory;
    }

    /** The port on 127.0.0.1 the server listens on. */
    public int port()
    {
        return port;
    }

    /** {@value #USER}'s password, made at random for this server (URL-safe). */
    public String password()
    {
        return password;
    }

    /** The JDBC URL of {@value #DATABASE}, with the user and the password in it. */
    public String jdbcUrl()
    {
        return jdbcUrl(DATABASE);
    }

    /** The JDBC URL of {@code database} on this server, with the user and the password in it. */
    public String jdbcUrl(final String database)
    {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=" + USER + "&password=" + password;
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
            deleteTree(directory, asPostgresUser);
        }
    }

    @Override
    public String toString()
    {
        return "PostgreSQL on 127.0.0.1:" + port + " from " + binaries + " in " + directory + ", durability " +
            durability;
    }

    private void initialise() throws IOException, InterruptedException
    {
        final Path passwordFile = directory.resolve("password");
        Files.writeString(Files.createFile(passwordFile,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))), password);
        if (asPostgresUser)
        {
            Files.setOwner(passwordFile, postgresUser());
            Files.setOwner(directory, postgresUser());
        }
        try
        {
            run("initdb", "-D", data(), "-U", USER, "--pwfile=" + passwordFile, "-A", "scram-sha-256", "-E", "UTF8",
                "--locale=C", "--no-sync");
        }
        finally
        {
            Files.deleteIfExists(passwordFile);
        }
        run("pg_ctl", "-D", data(), "-l", directory.resolve("server.log").toString(), "-w", "-t", "60",
            // mmap: dynamic shared memory in the data directory, which close deletes; POSIX segments would stay
            // in /dev/shm after the immediate stop
            "-o", "-p " + port + " -k " + directory + " -c listen_addresses=127.0.0.1 -c max_connections=60" +
                " -c dynamic_shared_memory_type=mmap" + durability.options,
            "start");
    }

    private String data()
    {
        return directory.resolve("data").toString();
    }

    /** Runs one of the server's programs (as the postgres user when we are root); its output goes into the error. */
    private void run(final String program, final String... arguments) throws IOException, InterruptedException
    {
        run(binaries, asPostgresUser, directory.resolve("server.log"), program, arguments);
    }

    private static void run(final Path binaries, final boolean asPostgresUser, final Path log, final String program,
        final String... arguments) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        if (asPostgresUser)
        {
            command.addAll(List.of(runuser().toString(), "-u", "postgres", "--"));
        }
        command.add(binaries.resolve(program).toString());
        command.addAll(List.of(arguments));
        final Map<String, String> environment = new HashMap<>();
        environment.put("LC_ALL", "C");
        environment.put("PGDATA", null);
        final BoundedCommand.Result result = BoundedCommand.run(command, environment, COMMAND_LIMIT);
        if (result.exitStatus() != 0)
        {
            throw new IOException(String.join(" ", command) + " exited with " + result.exitStatus() + ":\n" +
                result.output() +
                (Files.exists(log) ? "\nserver log:\n" + Files.readString(log, StandardCharsets.UTF_8) : ""));
        }
    }

    /**
     * Stops the servers that earlier runs left (their JVM killed before it could stop them), and deletes their
     * directories: those whose directory names a JVM that is gone, and those whose directory is gone. Another run's
     * live server is left alone. What cannot be stopped or deleted is reported, not thrown.
     */
    static void stopLeftovers(final Path binaries, final boolean asPostgresUser)
    {
        final Path temporary = Paths.get(System.getProperty("java.io.tmpdir")).toAbsolutePath();
        try (DirectoryStream<Path> directories = Files.newDirectoryStream(temporary, DIRECTORY_PREFIX + "*"))
        {
            for (final Path directory : directories)
            {
                final Path owner = directory.resolve(OWNER);
                // A directory without its owner yet is being made by another run.
                if (Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS) &&
                    Files.isRegularFile(owner, LinkOption.NOFOLLOW_LINKS) &&
                    !ownerRuns(Files.readString(owner, StandardCharsets.UTF_8)))
                {
                    stopLeftover(binaries, asPostgresUser, directory);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            System.err.println("looking for PostgreSQL servers left by earlier runs failed: " + ex);
        }
        ProcessHandle.allProcesses().filter(process -> orphanedPostmaster(process, binaries, temporary))
            .forEach(postmaster ->
            {
                System.err.println("stopping the PostgreSQL server " + postmaster.pid() + " whose directory is gone");
                postmaster.destroyForcibly(); // its backends end when they find their postmaster gone
            });
    }

    private static void stopLeftover(final Path binaries, final boolean asPostgresUser, final Path directory)
    {
        System.err.println("stopping the PostgreSQL server an earlier run left in " + directory);
        try
        {
            if (Files.exists(directory.resolve("data").resolve("postmaster.pid")))
            {
                run(binaries, asPostgresUser, directory.resolve("server.log"), "pg_ctl", "-D",
                    directory.resolve("data").toString(), "-m", "immediate", "-w", "stop");
            }
            deleteTree(directory, asPostgresUser);
        }
        catch (final IOException | RuntimeException ex)
        {
            System.err.println("stopping it failed: " + ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** What an owner file says of {@code jvm}: its pid and when it started, so that a reused pid is not taken as it. */
    static String owner(final ProcessHandle jvm)
    {
        return jvm.pid() + " " + jvm.info().startInstant().map(Object::toString).orElse("?");
    }

    /** Whether the JVM an owner file names still runs. */
    private static boolean ownerRuns(final String owner)
    {
        final String[] parts = owner.trim().split(" ");
        try
        {
            final Optional<ProcessHandle> jvm = ProcessHandle.of(Long.parseLong(parts[0]));
            return jvm.isPresent() && jvm.get().isAlive() && (parts.length < 2 || "?".equals(parts[1]) ||
                owner(jvm.get()).equals(owner.trim()));
        }
        catch (final NumberFormatException ex)
        {
            return true; // not ours to judge
        }
    }

    /** Whether {@code process} is a postmaster of these binaries whose directory, one of ours, is gone. */
    private static boolean orphanedPostmaster(final ProcessHandle process, final Path binaries, final Path temporary)
    {
        final ProcessHandle.Info info = process.info();
        if (info.command().isEmpty() || !Paths.get(info.command().get()).equals(binaries.resolve("postgres")) ||
            info.arguments().isEmpty())
        {
            return false;
        }
        final List<String> arguments = Arrays.asList(info.arguments().get());
        final int option = arguments.indexOf("-D");
        if (option < 0 || option + 1 >= arguments.size())
        {
            return false;
        }
        final Path data = Paths.get(arguments.get(option + 1)).toAbsolutePath().normalize();
        final Path directory = data.getParent();
        return directory != null && temporary.equals(directory.getParent()) &&
            directory.getFileName().toString().startsWith(DIRECTORY_PREFIX) &&
            !Files.exists(directory, LinkOption.NOFOLLOW_LINKS);
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

    /**
     * The bin directory a server starts from by default: the one {@code -Dxio.test.postgres.bin} or
     * {@code XIO_POSTGRES_BIN} names, else the newest version's in {@code /usr/lib/postgresql} that holds the three
     * programs; null when none.
     */
    public static Path binaries()
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

    /**
     * Whether the JVM runs with root's rights: its effective uid, from {@code /proc/self/status} (or {@code id -u}),
     * not {@code user.name}, which says what the environment claims.
     */
    static boolean runsAsRoot()
    {
        try
        {
            for (final String line : Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.UTF_8))
            {
                if (line.startsWith("Uid:"))
                {
                    return "0".equals(line.substring(4).trim().split("\\s+")[1]);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // Not Linux's /proc: ask id.
        }
        try
        {
            final BoundedCommand.Result id = BoundedCommand.run(List.of("id", "-u"), Map.of(), Duration.ofSeconds(10));
            return id.exitStatus() == 0 && "0".equals(id.output().trim());
        }
        catch (final IOException ex)
        {
            return false;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return false;
        }
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

    /**
     * Deletes {@code root} and all in it, following no link. As root, it is the postgres user's {@code rm -rf} that
     * deletes: a link swapped in for a directory of the tree meanwhile then leads only where that user may delete.
     */
    static void deleteTree(final Path root, final boolean asPostgresUser) throws IOException, InterruptedException
    {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS))
        {
            return;
        }
        if (asPostgresUser)
        {
            final BoundedCommand.Result removed = BoundedCommand.run(
                List.of(runuser().toString(), "-u", "postgres", "--", "rm", "-rf", "--", root.toString()), Map.of(),
                COMMAND_LIMIT);
            if (removed.exitStatus() != 0 || Files.exists(root, LinkOption.NOFOLLOW_LINKS))
            {
                throw new IOException("deleting " + root + " as postgres failed: " + removed.output());
            }
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>()
        {
            @Override
            public FileVisitResult visitFile(final Path file, final BasicFileAttributes attributes)
                throws IOException
            {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(final Path directory, final IOException failure)
                throws IOException
            {
                if (failure != null)
                {
                    throw failure;
                }
                Files.delete(directory);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
