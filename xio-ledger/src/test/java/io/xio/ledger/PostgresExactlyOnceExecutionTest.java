package io.xio.ledger;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.SQLException;

/** {@link ExactlyOnceExecutionContract} on PostgreSQL, the machine's own ({@link LocalPostgres}). */
@ExtendWith(LocalPostgresExtension.class)
class PostgresExactlyOnceExecutionTest extends ExactlyOnceExecutionContract
{
    private static TestDatabase database;

    @BeforeAll
    static void open(final LocalPostgres postgres) throws SQLException
    {
        database = TestDatabase.postgres(postgres);
    }

    @Override
    TestDatabase database()
    {
        return database;
    }

    @Override
    String lockTimeout(final int millis)
    {
        return "SET LOCAL lock_timeout = '" + millis + "ms'";
    }
}
