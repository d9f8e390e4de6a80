package io.xio.ledger;

import java.sql.Connection;

/**
 * A call's work as {@link ExactlyOnceExecution} runs it: on the connection of the transaction that also records its
 * key, so its writes and the ledger's entry commit together. Runs on the thread that called
 * {@link ExactlyOnceExecution#execute}.
 */
@FunctionalInterface
public interface LedgerWork
{
    /**
     * Does the call's work on {@code connection} (neither commit nor roll back here) and returns its answer as the
     * bytes to store and to give to a later attempt of the same key. A throw is an application error, which rolls
     * the transaction back or is stored as the answer as the execution's rollback rule says.
     */
    byte[] run(Connection connection) throws Exception;
}
