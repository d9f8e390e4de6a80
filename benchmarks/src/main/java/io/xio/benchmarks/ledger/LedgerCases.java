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

    LedgerCases(final DataSource dataSource) throws SQLException
    {
        this.dataSource = dataSource;
        Transfers.create(dataSource);
        LedgerSchema.create(dataSource);
        LedgerSchema.create(dataSource, KeyRows.TABLE);
        final Transactions transactions = new DataSourceTransactions(dataSource);
        final ExactlyOnceExecution execution = ExactlyOnceExecution.of(JdbcExecutionLedger.create(), transactions);
        cases = List.of(
            new Case("plain transaction", "-", () ->
            {
                transactions.inTransaction(Transfers::transfer);
                plainCalls.increment();
            }),
            new Case("control: key row by hand", "INSERT by hand", () ->
            {
                transactions.inTransaction(connection ->
                {
                    final byte[] answer = Transfers.transfer(connection);
                    KeyRows.insert(connection, IdempotencyKeys.next(), answer);
                    return answer;
                });
                controlCalls.increment();
            }),
            new Case("exactly-once, first use", "INSERT", () ->
            {
                executed(execution.execute(IdempotencyKeys.next(), true, CLAIM_WAIT, Transfers::transfer));
                keyedCalls.increment();
            }),
            new Case("exactly-once, retry", "INSERT, UPDATE", () ->
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

    /** Every call logged one transfer, every keyed one a ledger entry, and the balances moved by what was logged. */
    @Override
    public void verify() throws SQLException
    {
        final long calls = plainCalls.sum() + keyedCalls.sum() + controlCalls.sum();
        final long logged = Transfers.logged(dataSource);
        final long entries = Transfers.count(dataSource, "SELECT COUNT(*) FROM " + JdbcExecutionLedger.DEFAULT_TABLE);
        final long debited = (long)Transfers.ACCOUNTS * Transfers.INITIAL_BALANCE -
            Transfers.count(dataSource, "SELECT SUM(balance) FROM bench_account");
        final long amounts = Transfers.count(dataSource, "SELECT COALESCE(SUM(amount), 0) FROM bench_transfer_log");
        final long keyRows = Transfers.count(dataSource, "SELECT COUNT(*) FROM " + KeyRows.TABLE);
        if (logged != calls || entries != keyedCalls.sum() || keyRows != controlCalls.sum() || debited != amounts)
        {
            throw new IllegalStateException("the database does not match the calls made: " + calls + " calls, " +
                logged + " transfers logged; " + keyedCalls.sum() + " keyed calls, " + entries + " ledger entries; " +
                controlCalls.sum() + " control calls, " + keyRows + " key rows; " + debited + " debited, " + amounts +
                " logged as debited");
        }
    }

    private static void executed(final ExecutionOutcome outcome)
    {
        if (outcome.replayed())
        {
            throw new IllegalStateException("a new key's call was replayed, not executed: " + outcome);
        }
    }

    /** A case of this set. */
    private record Case(String name, String ledgerAdds, Call body) implements CostCase
    {
        @Override
        public void call() throws Exception
        {
            body.run();
        }
    }

    @FunctionalInterface
    private interface Call
    {
        void run() throws Exception;
    }
}
