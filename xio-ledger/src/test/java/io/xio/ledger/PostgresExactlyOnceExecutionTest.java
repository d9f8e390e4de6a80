package io.xio.ledger;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link ExactlyOnceExecutionContract} on PostgreSQL, the machine's own ({@link LocalPostgres}). */
@ExtendWith(TestDatabase.OnPostgres.class)
class PostgresExactlyOnceExecutionTest extends ExactlyOnceExecutionContract
{
    @Override
    String lockTimeout(final int millis)
    {
        return "SET LOCAL lock_timeout = '" + millis + "ms'";
    }
}
