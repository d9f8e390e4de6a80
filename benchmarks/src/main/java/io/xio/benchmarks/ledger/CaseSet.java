package io.xio.benchmarks.ledger;

import java.util.List;

/**
 * Cases measured side by side over one database's pool, the first of them the baseline the others are divided by:
 * each set compares a way of calling with and without exactly-once. {@link LedgerCases} is the ledger's own API;
 * {@link SpringCases} an {@code @Transactional} service method with and without {@code exactlyOnce}, called through
 * xio. Every case's call makes one transfer ({@link Transfers}) in the tables all sets share. Made and used by the
 * benchmark's main thread; the cases are called by its measuring threads.
 */
interface CaseSet extends AutoCloseable
{
    /** The baseline first, then the cases compared with it. */
    List<CostCase> cases();

    /** The calls of its cases made so far, each of which logged one transfer. */
    long transfers();

    /**
     * Checks the set's own rows (its ledger's entries, say) against the calls made, so that a case that did nothing
     * cannot pass for a fast one; the transfers of all sets are checked together ({@link Transfers#verify}).
     *
     * @throws IllegalStateException naming what does not add up
     */
    void verify() throws Exception;

    @Override
    default void close() throws Exception
    {
    }
}
