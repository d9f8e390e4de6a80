package io.xio.ledger;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link ExactlyOnceRequestsContract} on PostgreSQL, the machine's own ({@link LocalPostgres}). */
@ExtendWith(TestDatabase.OnPostgres.class)
class PostgresExactlyOnceRequestsTest extends ExactlyOnceRequestsContract
{
}
