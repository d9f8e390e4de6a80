package io.xio.ledger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link LedgerScriptsContract} on H2, in memory. */
class H2LedgerScriptsTest extends LedgerScriptsContract
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
}
