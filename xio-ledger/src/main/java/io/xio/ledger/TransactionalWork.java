package io.xio.ledger;

import java.sql.Connection;

/** Work run in a transaction by {@link Transactions#inTransaction}, on the thread that called it. */
@FunctionalInterface
public interface TransactionalWork<T>
{
    /** Runs on {@code connection}, within the transaction: neither commit nor roll back here. */
    T run(Connection connection) throws Exception;
}
