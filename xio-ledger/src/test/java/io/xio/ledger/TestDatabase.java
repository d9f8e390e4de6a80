package io.xio.ledger;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A database for one test class, H2 in memory or a database of its own on {@link LocalPostgres}, with a way to make
 * fresh ones (for schema scripts that need an empty database) and small helpers for the tests' reads and writes. A
 * test class takes its own through {@code @ExtendWith(TestDatabase.OnH2.class)} or
 * {@code @ExtendWith(TestDatabase.OnPostgres.class)}, as a {@code TestDatabase} parameter ({@link DatabaseContract}).
 */
abstract class TestDatabase implements AutoCloseable
{
    private static final AtomicInteger NAMES = new AtomicInteger();

    /** The database's name in test output. */
    abstract String name();

    /** The class's database. */
    abstract DataSource dataSource();

    /** A new, empty database. */
    abstract DataSource fresh() throws SQLException;

    /** How many sessions of the database wait for a lock another transaction holds. */
    abstract long sessionsWaitingForLocks() throws SQLException;

    /**
     * Lets the session of {@code connection} wait for locks far longer than the database's other sessions, so that a
     * deadlock it takes part in ends with another session's wait whatever the timing: on H2, which ends a deadlock
     * through a lock timeout, by raising its session's to 60 s; PostgreSQL finds deadlocks itself and waits without
     * limit by default, so nothing changes there.
     */
    abstract void outwaitOtherSessions(Connection connection) throws SQLException;

    static String unique(final String prefix)
    {
        return prefix + "_" + ProcessHandle.current().pid() + "_" + NAMES.incrementAndGet();
    }

    /** Runs each statement on a connection of its own, committed. */
    static void execute(final DataSource dataSource, final String... statements) throws SQLException
    {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement())
        {
            for (final String sql : statements)
            {
                statement.execute(sql);
            }
        }
    }

    /** Runs {@code sql} on {@code connection}, in whatever transaction it is in. */
    static void execute(final Connection connection, final String sql) throws SQLException
    {
        try (Statement statement = connection.createStatement())
        {
            statement.execute(sql);
        }
    }

    /** The one number {@code query} gives. */
    static long number(final DataSource dataSource, final String query) throws SQLException
    {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
            ResultSet row = statement.executeQuery(query))
        {
            row.next();
            return row.getLong(1);
        }
    }

    /**
     * H2 in memory, named per class. Its lock timeout bounds every wait for a held key or row (the ledger cancels no
     * statement on H2): 3 s, above what the tests hold a key for, yet short for those that wait it out.
     */
    static TestDatabase h2()
    {
        return new TestDatabase()
        {
            private final java.util.List<JdbcDataSource> opened = new java.util.ArrayList<>();
            private final JdbcDataSource main = open();

            private JdbcDataSource open()
            {
                final JdbcDataSource source = new JdbcDataSource();
                source.setURL("jdbc:h2:mem:" + unique("ledger") + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=3000");
                source.setUser("sa");
                opened.add(source);
                return source;
            }

            @Override
            String name()
            {
                return "H2";
            }

            @Override
            DataSource dataSource()
            {
                return main;
            }

            @Override
            DataSource fresh()
            {
                return open();
            }

            @Override
            long sessionsWaitingForLocks() throws SQLException
            {
                return number(main, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL");
            }

            @Override
            void outwaitOtherSessions(final Connection connection) throws SQLException
            {
                // For the rest of the session, whatever its transaction does: the tests' connections close with it.
                execute(connection, "SET LOCK_TIMEOUT 60000");
            }

            @Override
            public void close() throws SQLException
            {
                for (final JdbcDataSource source : opened)
                {
                    execute(source, "SHUTDOWN");
                }
            }
        };
    }

    /** A database of its own on the run's PostgreSQL; dropped with the server at the end of the run. */
    static TestDatabase postgres(final LocalPostgres server) throws SQLException
    {
        final PGSimpleDataSource main = new PGSimpleDataSource();
        main.setURL(server.createDatabase(unique("ledger")));
        return new TestDatabase()
        {
            @Override
            String name()
            {
                return "PostgreSQL";
            }

            @Override
            DataSource dataSource()
            {
                return main;
            }

            @Override
            DataSource fresh() throws SQLException
            {
                final PGSimpleDataSource source = new PGSimpleDataSource();
                source.setURL(server.createDatabase(unique("fresh")));
                return source;
            }

            @Override
            long sessionsWaitingForLocks() throws SQLException
            {
                return number(main, "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() " +
                    "AND wait_event_type = 'Lock'");
            }

            @Override
            void outwaitOtherSessions(final Connection connection)
            {
                // PostgreSQL's deadlock detection ends a deadlock, not a timeout.
            }

            @Override
            public void close()
            {
                // The server and its databases go at the end of the run.
            }
        };
    }

    /**
     * Gives a test's methods a {@code TestDatabase} parameter: one per test class, opened on first use and closed
     * after the class. Called by JUnit's threads.
     */
    private abstract static class PerClass implements ParameterResolver
    {
        private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(PerClass.class);

        /** Opens the class's database. */
        abstract TestDatabase open(ExtensionContext context) throws SQLException;

        @Override
        public final boolean supportsParameter(final ParameterContext parameter, final ExtensionContext context)
        {
            return parameter.getParameter().getType() == TestDatabase.class;
        }

        @Override
        public final Object resolveParameter(final ParameterContext parameter, final ExtensionContext context)
        {
            final ExtensionContext testClass = context.getTestMethod().isPresent() ?
                context.getParent().orElseThrow() : context;
            return testClass.getStore(NAMESPACE).computeIfAbsent(TestDatabase.class, type ->
            {
                try
                {
                    return open(context);
                }
                catch (final SQLException ex)
                {
                    throw new IllegalStateException("opening the test class's database failed", ex);
                }
            }, TestDatabase.class);
        }
    }

    /** The test class's database is H2 in memory ({@link #h2()}). */
    static final class OnH2 extends PerClass
    {
        @Override
        TestDatabase open(final ExtensionContext context)
        {
            return h2();
        }
    }

    /**
     * The test class's database is a database of its own on the run's {@link LocalPostgres} ({@link #postgres}); the
     * class is skipped as {@link LocalPostgresExtension} skips it where the machine lacks PostgreSQL.
     */
    static final class OnPostgres extends PerClass implements ExecutionCondition
    {
        private final LocalPostgresExtension server = new LocalPostgresExtension();

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(final ExtensionContext context)
        {
            return server.evaluateExecutionCondition(context);
        }

        @Override
        TestDatabase open(final ExtensionContext context) throws SQLException
        {
            return postgres(LocalPostgresExtension.server(context));
        }
    }
}
