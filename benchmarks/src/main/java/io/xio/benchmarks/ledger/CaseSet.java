package io.xio.benchmarks.ledger;

import java.util.List;

/**
 * Cases measured side by side over one database's pool, the first of them the baseline the others are divided by:
 * each set compares a way of calling with and without exactly-once. {@link LedgerCases} is the ledger's own API; a
 * Spring set (an {@code @Transactional} service method with and without {@code exactlyOnce}, called through xio)
 * joins as another set with its own baseline. Made and used by the benchmark's main thread; the cases are called by
 * its measuring threads.
 */
interface CaseSet extends AutoCloseable
{
    /** The baseline first, then the cases compared with it. */
    List<CostCase> cases();

    /**
     * Checks the database against the calls made, so that a case that did nothing cannot pass for a fast one.
     *
     * @throws IllegalStateException naming what does not add up
     */
    void verify() throws Exception;

    @Override
    default void close() throws Exception
    {
    }
}
