package io.xio.ledger;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;

/**
 * The ledger's table and its expiry index, created on request in H2 or PostgreSQL (others are refused: the ledger
 * relies on how these two settle a duplicate key held by an open transaction). Creating is idempotent (a table that
 * exists is left as it is), so every server may do it at start. Applications that run their own migrations use the
 * scripts shipped instead: {@link #FLYWAY_LOCATION} (a portable {@code V1__xio_execution_ledger.sql}) and the
 * Liquibase changelog {@link #LIQUIBASE_CHANGELOG}, both for the default table name. Any thread.
 */
public final class LedgerSchema
{
    /** The Flyway location of the shipped migration (for the default table), for H2 and PostgreSQL alike. */
    public static final String FLYWAY_LOCATION = "classpath:db/xio/flyway";
    /** The class path resource of the shipped Liquibase changelog (for the default table). */
    public static final String LIQUIBASE_CHANGELOG = "db/xio/liquibase/xio-execution-ledger.xml";

    private static final String UNIQUE_VIOLATION = "23505";
    private static final String DUPLICATE_TABLE = "42P07";

    private LedgerSchema()
    {
    }

    /** Creates {@value JdbcExecutionLedger#DEFAULT_TABLE} and its index when absent. */
    public static void create(final DataSource dataSource) throws SQLException
    {
        create(dataSource, JdbcExecutionLedger.DEFAULT_TABLE);
    }

    /**
     * Creates table {@code table} and its expiry index when absent, on a connection of its own, each statement
     * committed as it runs.
     *
     * @throws IllegalStateException when the database is neither H2 nor PostgreSQL
     */
    public static void create(final DataSource dataSource, final String table) throws SQLException
    {
        try (Connection connection = dataSource.getConnection())
        {
            final List<String> statements = statements(connection, table);
            final boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(true);
            try
            {
                run(connection, statements);
            }
            catch (final SQLException ex)
            {
                // Servers starting together race in PostgreSQL's catalogue: the loser's IF NOT EXISTS saw no table
                // yet. Once the winner committed, the same statements change nothing.
                if (!UNIQUE_VIOLATION.equals(ex.getSQLState()) && !DUPLICATE_TABLE.equals(ex.getSQLState()))
                {
                    throw ex;
                }
                run(connection, statements);
            }
            finally
            {
                connection.setAutoCommit(autoCommit);
            }
        }
    }

    /**
     * The statements that create {@code table} and its index when absent, for the database {@code connection} is
     * on.
     *
     * @throws IllegalStateException when the database is neither H2 nor PostgreSQL
     */
    public static List<String> statements(final Connection connection, final String table) throws SQLException
    {
        final LedgerTable named = new LedgerTable(table);
        final String product = connection.getMetaData().getDatabaseProductName();
        final boolean h2 = "H2".equals(product);
        if (!h2 && !"postgresql".equals(product.toLowerCase(Locale.ROOT)))
        {
            throw new IllegalStateException("the execution ledger runs on H2 and PostgreSQL, not on " + product +
                ": it relies on how these settle a duplicate key that an open transaction holds");
        }
        // H2 puts an index in the schema its name gives, PostgreSQL always in its table's and takes no schema there.
        final String index = h2 && named.schema() != null ? named.schema() + "." + named.indexName() :
            named.indexName();
        return List.of(
            "CREATE TABLE IF NOT EXISTS " + named.name + " (" +
                "idempotency_key VARCHAR(128) NOT NULL PRIMARY KEY, " +
                "outcome SMALLINT, " +
                "answer BYTEA, " +
                "created_at TIMESTAMP WITH TIME ZONE NOT NULL, " +
                "expires_at TIMESTAMP WITH TIME ZONE NOT NULL)",
            "CREATE INDEX IF NOT EXISTS " + index + " ON " + named.name + " (expires_at)");
    }

    private static void run(final Connection connection, final List<String> statements) throws SQLException
    {
        try (Statement statement = connection.createStatement())
        {
            for (final String sql : statements)
            {
                statement.execute(sql);
            }
        }
    }
}
