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

    /** A case that makes its call with {@code body}, which must be thread-safe. */
    static CostCase of(final String name, final String ledgerAdds, final Body body)
    {
        return new Named(name, ledgerAdds, body);
    }

    /** One call of a case made by {@link #of}. */
    @FunctionalInterface
    interface Body
    {
        void call() throws Exception;
    }

    /** A case made by {@link #of}. */
    record Named(String name, String ledgerAdds, Body body) implements CostCase
    {
        @Override
        public void call() throws Exception
        {
            body.call();
        }
    }
}
