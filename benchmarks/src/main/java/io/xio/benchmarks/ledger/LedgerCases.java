package io.xio.benchmarks.ledger;

import io.xio.engine.IdempotencyKeys;
import io.xio.ledger.DataSourceTransactions;
import io.xio.ledger.ExactlyOnceExecution;
import io.xio.ledger.ExecutionOutcome;
import io.xio.ledger.JdbcExecutionLedger;
import io.xio.ledger.LedgerSchema;
import io.xio.ledger.Transactions;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The ledger's own API, below any RPC: the same transfer ({@link Transfers}) plain in a transaction, and through
 * {@link ExactlyOnceExecution} with a new key per call, as a first use (the common case: the work, then one
 * {@code INSERT} of key and answer) and as a retry whose key was never seen (an {@code INSERT} claiming the key
 * first, the work, an {@code UPDATE} storing the answer). A control case stores a new key's row by hand, in a table
 * shaped like the ledger's, with one plain {@code INSERT} after the transfer: what the row costs the database, apart
 * from what the ledger's code adds. All use the same {@link DataSourceTransactions} over the same pool. Thread-safe.
 */
final class LedgerCases implements CaseSet
{
    /** Never reached: every key is new, so no claim meets another transaction's. */
    private static final Duration CLAIM_WAIT = Duration.ofSeconds(10);

    private final DataSource dataSource;
    private final LongAdder plainCalls = new LongAdder();
    private final LongAdder keyedCalls = new LongAdder();
    private final LongAdder controlCalls = new LongAdder();
    private final List<CostCase> cases;

    /** The cases over {@code dataSource}, which holds the transfer tables ({@link Transfers#create}). */
    LedgerCases(final DataSource dataSource) throws SQLException
    {
        this.dataSource = dataSource;
        LedgerSchema.create(dataSource);
        LedgerSchema.create(dataSource, KeyRows.TABLE);
        final Transactions transactions = new DataSourceTransactions(dataSource);
        final ExactlyOnceExecution execution = ExactlyOnceExecution.of(JdbcExecutionLedger.create(), transactions);
        cases = List.of(
            CostCase.of("plain transaction", "-", () ->
            {
                transactions.inTransaction(Transfers::transfer);
                plainCalls.increment();
            }),
            CostCase.of("control: key row by hand", "INSERT by hand", () ->
            {
                transactions.inTransaction(connection ->
                {
                    final byte[] answer = Transfers.transfer(connection);
                    KeyRows.insert(connection, IdempotencyKeys.next(), answer);
                    return answer;
                });
                controlCalls.increment();
            }),
            CostCase.of("exactly-once, first use", "INSERT", () ->
            {
                executed(execution.execute(IdempotencyKeys.next(), true, CLAIM_WAIT, Transfers::transfer));
                keyedCalls.increment();
            }),
            CostCase.of("exactly-once, retry", "INSERT, UPDATE", () ->
            {
                executed(execution.execute(IdempotencyKeys.next(), false, CLAIM_WAIT, Transfers::transfer));
                keyedCalls.increment();
            }));
    }

    @Override
    public List<CostCase> cases()
    {
        return cases;
    }

    @Override
    public long transfers()
    {
        return plainCalls.sum() + keyedCalls.sum() + controlCalls.sum();
    }

    /** Every keyed call made a ledger entry, every control call a key row. */
    @Override
    public void verify() throws SQLException
    {
        final long entries = Transfers.count(dataSource, "SELECT COUNT(*) FROM " + JdbcExecutionLedger.DEFAULT_TABLE);
        final long keyRows = Transfers.count(dataSource, "SELECT COUNT(*) FROM " + KeyRows.TABLE);
        if (entries != keyedCalls.sum() || keyRows != controlCalls.sum())
        {
            throw new IllegalStateException("the ledger's rows do not match the calls made: " + keyedCalls.sum() +
                " keyed calls, " + entries + " ledger entries; " + controlCalls.sum() + " control calls, " + keyRows +
                " key rows");
        }
    }

    private static void executed(final ExecutionOutcome outcome)
    {
        if (outcome.replayed())
        {
            throw new IllegalStateException("a new key's call was replayed, not executed: " + outcome);
        }
    }
}
