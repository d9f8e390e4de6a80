package io.xio.ledger;

import org.junit.jupiter.api.BeforeEach;

/**
 * The base of the contracts run once per database: a subclass names its database with
 * {@code @ExtendWith(TestDatabase.OnH2.class)} or {@code @ExtendWith(TestDatabase.OnPostgres.class)}, and this takes
 * it before the contract's own {@code @BeforeEach} methods run.
 */
abstract class DatabaseContract
{
    private TestDatabase database;

    @BeforeEach
    void takeDatabase(final TestDatabase database)
    {
        this.database = database;
    }

    /** The test class's database. */
    final TestDatabase database()
    {
        return database;
    }
}
