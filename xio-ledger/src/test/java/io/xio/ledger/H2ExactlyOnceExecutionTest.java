package io.xio.ledger;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link ExactlyOnceExecutionContract} on H2, in memory. */
@ExtendWith(TestDatabase.OnH2.class)
class H2ExactlyOnceExecutionTest extends ExactlyOnceExecutionContract
{
    @Override
    String lockTimeout(final int millis)
    {
        return "SET LOCK_TIMEOUT " + millis;
    }
}
