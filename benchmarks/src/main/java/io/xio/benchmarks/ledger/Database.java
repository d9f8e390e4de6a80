package io.xio.benchmarks.ledger;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.xio.ledger.LocalPostgres;

import javax.sql.DataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A database the cases run on, behind a HikariCP pool of as many connections as the most threads measured: H2 in a
 * file of a temporary directory, or a durable {@link LocalPostgres} of its own. {@link #close()} closes the pool and
 * removes the database (the directory, the server). Used by the benchmark's main thread; the pool by any.
 */
final class Database implements AutoCloseable
{
    private final String name;
    private final String version;
    private final HikariDataSource pool;
    private final AutoCloseable owner;

    private Database(final String name, final HikariDataSource pool, final AutoCloseable owner) throws SQLException
    {
        this.name = name;
        this.pool = pool;
        this.owner = owner;
        try (Connection connection = pool.getConnection())
        {
            this.version = connection.getMetaData().getDatabaseProductVersion();
        }
    }

    /**
     * H2 in a file of a new temporary directory: the ledger is only worth something in a database that outlives
     * the process, and writing the file store is part of what a row costs. H2 writes its store in the background
     * and does not sync each commit, so the figures are what the statements cost in CPU.
     */
    static Database h2File(final int poolSize) throws IOException, SQLException
    {
        final Path directory = Files.createTempDirectory("xio-ledger-cost-h2-");
        final Thread cleanUp = new Thread(() -> deleteQuietly(directory), "h2-delete");
        Runtime.getRuntime().addShutdownHook(cleanUp);
        final AutoCloseable owner = () ->
        {
            Runtime.getRuntime().removeShutdownHook(cleanUp);
            deleteTree(directory);
        };
        try
        {
            return new Database("H2", pool("jdbc:h2:file:" + directory.resolve("bench") + ";LOCK_TIMEOUT=10000",
                "sa", poolSize), owner);
        }
        catch (final SQLException | RuntimeException ex)
        {
            deleteQuietly(directory);
            throw ex;
        }
    }

    /**
     * PostgreSQL as a production server starts ({@link LocalPostgres.Durability#ON}: {@code fsync} and
     * {@code synchronous_commit} on, so each commit waits for the disk): a server of its own from
     * {@link LocalPostgres#binaries()}, stopped and deleted with this.
     */
    static Database postgres(final int poolSize) throws Exception
    {
        final LocalPostgres server = LocalPostgres.start(LocalPostgres.binaries(), LocalPostgres.Durability.ON);
        try
        {
            return new Database("PostgreSQL", pool(server.jdbcUrl(), LocalPostgres.USER, poolSize), server);
        }
        catch (final SQLException | RuntimeException ex)
        {
            server.close();
            throw ex;
        }
    }

    private static HikariDataSource pool(final String url, final String user, final int size)
    {
        final HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setPoolName("ledger-cost");
        return new HikariDataSource(config);
    }

    String name()
    {
        return name;
    }

    /** The server's version as its driver reports it. */
    String version()
    {
        return version;
    }

    DataSource dataSource()
    {
        return pool;
    }

    @Override
    public void close() throws Exception
    {
        try
        {
            pool.close();
        }
        finally
        {
            owner.close();
        }
    }

    private static void deleteQuietly(final Path directory)
    {
        try
        {
            deleteTree(directory);
        }
        catch (final IOException ex)
        {
            System.err.println("deleting " + directory + " failed: " + ex);
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
}
