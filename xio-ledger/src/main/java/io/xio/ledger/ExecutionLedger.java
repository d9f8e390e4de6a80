package io.xio.ledger;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * What an execution ledger does on the caller's connection, inside the caller's transaction: the durable record of
 * which idempotency keys ran, and their answers. Each method issues what it needs on {@code connection} and neither
 * commits nor rolls back: the caller's transaction, which also holds the call's own writes, decides. The database's
 * unique key on the idempotency key is what settles duplicates: an attempt that meets an entry another transaction
 * holds uncommitted waits for that transaction's outcome, at most the wait given (an implementation may stop sooner,
 * at the database's own lock timeout). {@link ExactlyOnceExecution} is the algorithm over these steps;
 * {@link JdbcExecutionLedger} the implementation in one table.
 *
 * <p>Implementations are thread-safe: each call works on the connection it is given, which one thread uses at a
 * time.
 */
public interface ExecutionLedger
{
    /**
     * Records {@code key} with its answer, in one statement: the end of the first attempt of a key, whose work ran
     * without a claim. Waits, when another transaction holds the key uncommitted (a retry of the call that claimed it
     * meanwhile), for that transaction's outcome, at most {@code wait}.
     *
     * @param wait how long to wait at most for another transaction that holds the key (the call's time left)
     * @return true when recorded; false when the key is recorded already (another attempt committed first): the
     *     caller must then roll back (its work's writes with it), since on some databases (PostgreSQL) the failed
     *     statement aborted the transaction, and read the answer that stands in a new one
     * @throws ExecutionInProgressException when the wait ran out while another attempt still held the key (roll back)
     */
    boolean record(Connection connection, String key, LedgerAnswer answer, Duration wait) throws SQLException;

    /**
     * Claims {@code key} with no answer yet, in one statement, before the work runs. When another transaction holds
     * the key uncommitted, waits for its outcome, at most {@code wait}: if it committed, the key is taken; if it
     * rolled back, the claim succeeds.
     *
     * @param wait how long to wait at most for another transaction that holds the key (the call's time left)
     * @return true when claimed: run the work, then {@link #complete}; false when the key is recorded already: roll
     *     back and read the answer that stands in a new transaction
     * @throws ExecutionInProgressException when the wait ran out while another attempt still held the key (roll back)
     */
    boolean claim(Connection connection, String key, Duration wait) throws SQLException;

    /** Stores the answer of a key this transaction {@link #claim claimed}, in one statement. */
    void complete(Connection connection, String key, LedgerAnswer answer) throws SQLException;

    /**
     * The answer recorded for {@code key}, or null when there is none (never recorded, or expired and deleted).
     *
     * @throws IllegalStateException when the entry has no answer although its transaction committed (a claim
     *     committed without its {@link #complete}, as on a connection in autocommit mode)
     */
    LedgerAnswer find(Connection connection, String key) throws SQLException;

    /**
     * Deletes at most {@code limit} entries whose time to live has passed, in one statement: a batch of the
     * retention's cleaning, which the caller runs in a short transaction of its own.
     *
     * @return how many were deleted
     */
    int deleteExpired(Connection connection, int limit) throws SQLException;
}
