package io.xio.benchmarks.ledger;

/**
 * One way of making the measured call, run by several threads at once for a window: {@link LedgerCost} times each
 * {@link #call()}. Implementations are thread-safe.
 */
interface CostCase
{
    /** The case's name in the table. */
    String name();

    /** What the ledger adds to the call's transaction, for the table (a dash for a baseline). */
    String ledgerAdds();

    /** Makes one call: returns once its transaction committed, throws when it failed. */
    void call() throws Exception;
}
