/**
 * Exactly-once across servers: the server's execution ledger. A call marked exactly-once carries an idempotency key
 * that outlives its session ({@link io.xio.engine.IdempotencyKeys}); the server claims the key and stores the call's
 * answer in the same database transaction as the call's own writes, so a crash before commit leaves nothing and a
 * commit leaves the answer for any later attempt, on any server, to get without running.
 *
 * <p>{@link io.xio.ledger.ExactlyOnceExecution} is the algorithm, over an {@link io.xio.ledger.ExecutionLedger}
 * ({@link io.xio.ledger.JdbcExecutionLedger}: one table, H2 or PostgreSQL) in {@link io.xio.ledger.Transactions}
 * ({@link io.xio.ledger.DataSourceTransactions} for plain JDBC; a framework brings its own).
 * {@link io.xio.ledger.ExactlyOnceRequests} serves engine requests through it; {@link io.xio.ledger.LedgerSchema}
 * creates the table (or ships it as Flyway and Liquibase scripts) and {@link io.xio.ledger.LedgerCleaner} deletes
 * expired entries. No Spring dependency.
 */
package io.xio.ledger;
