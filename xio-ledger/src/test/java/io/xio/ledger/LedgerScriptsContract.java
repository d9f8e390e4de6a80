package io.xio.ledger;

import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The schema scripts shipped for applications' own migration tools, run by those tools against a real database (a
 * subclass per database): each makes the table and index {@link LedgerSchema} makes, column for column, and a ledger
 * works on it. Each run starts from an empty database that already holds an application table, as a real one does.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class LedgerScriptsContract extends DatabaseContract
{
    @Test
    void theFlywayMigrationMakesTheTableLedgerSchemaMakesAndALedgerWorksOnIt() throws Exception
    {
        final DataSource migrated = applicationDatabase();

        Flyway.configure().dataSource(migrated).locations(LedgerSchema.FLYWAY_LOCATION)
            // A history of its own beside the application's, started below version 1 in a schema that is not empty.
            .table("xio_schema_history").baselineOnMigrate(true).baselineVersion("0")
            .load().migrate();

        assertThat(describe(migrated)).isEqualTo(describe(createdByLedgerSchema()));
        aLedgerWorksOn(migrated);
    }

    @Test
    void theLiquibaseChangelogMakesTheTableLedgerSchemaMakesAndALedgerWorksOnIt() throws Exception
    {
        final DataSource migrated = applicationDatabase();

        liquibaseUpdate(migrated);

        assertThat(describe(migrated)).isEqualTo(describe(createdByLedgerSchema()));
        aLedgerWorksOn(migrated);
    }

    @Test
    void theLiquibaseChangelogTakesATableLedgerSchemaCreatedBefore() throws Exception
    {
        final DataSource created = createdByLedgerSchema();
        final ExactlyOnceExecution execution = ExactlyOnceExecution.of(JdbcExecutionLedger.create(),
            new DataSourceTransactions(created));
        execution.execute("before", true, Duration.ofSeconds(10), connection -> new byte[] {1});

        liquibaseUpdate(created);

        assertThat(execution.execute("before", false, Duration.ofSeconds(10), connection -> new byte[] {2}).replayed())
            .isTrue();
    }

    private DataSource applicationDatabase() throws SQLException
    {
        final DataSource fresh = database().fresh();
        TestDatabase.execute(fresh, "CREATE TABLE orders (id INT PRIMARY KEY)");
        return fresh;
    }

    private DataSource createdByLedgerSchema() throws SQLException
    {
        final DataSource fresh = database().fresh();
        LedgerSchema.create(fresh);
        return fresh;
    }

    private static void liquibaseUpdate(final DataSource dataSource) throws Exception
    {
        try (Connection connection = dataSource.getConnection())
        {
            final Database database =
                DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(connection));
            new CommandScope(UpdateCommandStep.COMMAND_NAME)
                .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, LedgerSchema.LIQUIBASE_CHANGELOG)
                .execute();
        }
    }

    private static void aLedgerWorksOn(final DataSource dataSource) throws Exception
    {
        final ExactlyOnceExecution execution = ExactlyOnceExecution.of(JdbcExecutionLedger.create(),
            new DataSourceTransactions(dataSource));
        final byte[] answer = "paid".getBytes(StandardCharsets.UTF_8);

        assertThat(execution.execute("order-1", true, Duration.ofSeconds(10), connection -> answer).executed())
            .isTrue();
        final ExecutionOutcome retry = execution.execute("order-1", false, Duration.ofSeconds(10),
            connection -> new byte[0]);
        assertThat(retry.replayed()).isTrue();
        assertThat(retry.answer().bytes()).isEqualTo(answer);
        assertThat(execution.execute("order-2", false, Duration.ofSeconds(10), connection -> answer).executed())
            .isTrue();
    }

    /** The default table's columns (name, type, size, nullability), primary key and other indexes, as JDBC says. */
    private static List<String> describe(final DataSource dataSource) throws SQLException
    {
        final List<String> shape = new ArrayList<>();
        try (Connection connection = dataSource.getConnection())
        {
            final DatabaseMetaData metaData = connection.getMetaData();
            final String name = JdbcExecutionLedger.DEFAULT_TABLE;
            final String table = metaData.storesUpperCaseIdentifiers() ? name.toUpperCase(java.util.Locale.ROOT) : name;
            try (ResultSet columns = metaData.getColumns(null, null, table, null))
            {
                while (columns.next())
                {
                    shape.add("column " + columns.getString("COLUMN_NAME") + " " + columns.getString("TYPE_NAME") +
                        "(" + columns.getInt("COLUMN_SIZE") + ") nullable " + columns.getString("IS_NULLABLE"));
                }
            }
            try (ResultSet key = metaData.getPrimaryKeys(null, null, table))
            {
                while (key.next())
                {
                    shape.add("primary key " + key.getString("COLUMN_NAME"));
                }
            }
            try (ResultSet indexes = metaData.getIndexInfo(null, null, table, false, false))
            {
                while (indexes.next())
                {
                    if (indexes.getBoolean("NON_UNIQUE"))
                    {
                        shape.add("index " + indexes.getString("INDEX_NAME") + " on " +
                            indexes.getString("COLUMN_NAME"));
                    }
                }
            }
        }
        assertThat(shape).as("the table exists").anyMatch(line -> line.startsWith("index "));
        return shape;
    }
}
