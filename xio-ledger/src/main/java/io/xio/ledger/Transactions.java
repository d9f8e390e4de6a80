package io.xio.ledger;

/**
 * Runs work in a database transaction on the connection that the work's own writes use: the ledger's statements
 * and the call's writes then commit or roll back together. {@link DataSourceTransactions} is the plain JDBC one; a
 * framework implements it with its transaction manager (Spring's, say, so that the service method's writes through
 * its templates land in the same transaction). Implementations are thread-safe: each call runs on the calling
 * thread, in a transaction of its own.
 */
public interface Transactions
{
    /**
     * Runs {@code work} in a new transaction: commits when it returns, rolls back when it throws (and rethrows what
     * it threw).
     *
     * @param work given the transaction's connection, in manual-commit mode; it neither commits nor rolls back
     * @return what {@code work} returned, once committed
     * @throws Exception what {@code work} threw, or what beginning, committing or rolling back the transaction threw
     */
    <T> T inTransaction(TransactionalWork<T> work) throws Exception;
}
