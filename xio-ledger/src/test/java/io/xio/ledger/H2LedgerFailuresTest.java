package io.xio.ledger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link LedgerFailuresContract} on H2, in memory. */
class H2LedgerFailuresTest extends LedgerFailuresContract
{
    private static TestDatabase database;

    @BeforeAll
    static void open()
    {
        database = TestDatabase.h2();
    }

    @AfterAll
    static void close() throws Exception
    {
        database.close();
    }

    @Override
    TestDatabase database()
    {
        return database;
    }

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
