package io.xio.ledger;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link LedgerFailuresContract} on H2, in memory. */
@ExtendWith(TestDatabase.OnH2.class)
class H2LedgerFailuresTest extends LedgerFailuresContract
{
    @Override
    boolean errorsAbortTheTransaction()
    {
        return false;
    }

    @Override
    boolean cutsWaitsByCancel()
    {
        return false;
    }
}
