package io.xio.ledger;

import io.xio.engine.IdempotencyKeys;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Runs a call's work at most once per idempotency key, whichever servers its attempts reach, with the key's entry in
 * the same transaction as the work's own writes: a crash before commit leaves neither (running it elsewhere is
 * safe), a commit leaves both (a later attempt gets the stored answer without running). One extra statement per call
 * in the common case:
 *
 * <ul>
 *   <li>The first use of a key its client made ({@link IdempotencyKeys#firstUse}) cannot meet an earlier run of its
 *   key: the work runs, then one {@link ExecutionLedger#record} stores key and answer before commit. Should that hit
 *   the unique key, another attempt committed first: the transaction rolls back, the work's writes with it, and the
 *   stored answer is read in a new one and given instead.</li>
 *   <li>Any other attempt (a retry, an application's own key) {@link ExecutionLedger#claim claims} the key first,
 *   as its transaction's first statement. A duplicate that another transaction holds uncommitted makes the claim
 *   wait for that transaction's outcome, at most {@code claimWait}: if it committed, this one rolls back and
 *   replays its answer without running; if it rolled back, the claim holds and the work runs. The answer then
 *   {@link ExecutionLedger#complete completes} the entry before commit. A wait cut short is an
 *   {@link ExecutionInProgressException}, and nothing ran.</li>
 *   <li>Work that throws rolls back when the rollback rule says so (by default for unchecked exceptions, as Spring
 *   does): nothing is stored and the exception propagates. Otherwise its error is stored as the answer in the
 *   transaction, which commits, and duplicates get the same error.</li>
 * </ul>
 *
 * <p>The transaction is {@link Transactions}' to begin and end; this class never commits. Thread-safe: any number of
 * threads may execute at once, each in a transaction of its own.
 */
public final class ExactlyOnceExecution
{
    /** Rounds of claim and read for one call: an entry that turned an attempt away can expire before it is read. */
    private static final int ROUNDS = 3;

    private final ExecutionLedger ledger;
    private final Transactions transactions;
    private final Predicate<Throwable> rollbackOn;
    private final Function<Throwable, byte[]> errorAnswer;

    private ExactlyOnceExecution(final Builder builder)
    {
        this.ledger = builder.ledger;
        this.transactions = builder.transactions;
        this.rollbackOn = builder.rollbackOn;
        this.errorAnswer = builder.errorAnswer;
    }

    /** An execution over {@code ledger} in {@code transactions}' transactions, with the default rules. */
    public static ExactlyOnceExecution of(final ExecutionLedger ledger, final Transactions transactions)
    {
        return builder(ledger, transactions).build();
    }

    public static Builder builder(final ExecutionLedger ledger, final Transactions transactions)
    {
        return new Builder(ledger, transactions);
    }

    /** The default rollback rule, Spring's: unchecked exceptions ({@link RuntimeException}, {@link Error}). */
    public static boolean uncheckedRollsBack(final Throwable error)
    {
        return error instanceof RuntimeException || error instanceof Error;
    }

    /**
     * Runs {@code work} once for {@code key}, or gives the answer an attempt of the same key committed before.
     *
     * @param firstUse  whether this is the first attempt of a key its client made for this call
     *                  ({@link IdempotencyKeys#firstUse}): it then skips the claim
     * @param claimWait how long a claim may wait for another attempt's transaction that holds the key: the call's
     *                  time left, so that it never waits past the call's deadline
     * @return the answer, and whether it was executed now or replayed
     * @throws ExecutionInProgressException when another attempt held the key past {@code claimWait} (or the
     *     database's own lock timeout): nothing of this attempt committed
     * @throws Exception what the work threw when its transaction rolled back, or what the database did
     */
    public ExecutionOutcome execute(final String key, final boolean firstUse, final Duration claimWait,
        final LedgerWork work) throws Exception
    {
        IdempotencyKeys.check(Objects.requireNonNull(key, "key"));
        Objects.requireNonNull(claimWait, "claimWait");
        Objects.requireNonNull(work, "work");
        boolean claimFirst = !firstUse;
        for (int round = 1; ; round++)
        {
            final boolean claim = claimFirst;
            try
            {
                return transactions.inTransaction(connection -> claim ?
                    claimRunComplete(connection, key, claimWait, work) : runRecord(connection, key, work));
            }
            catch (final KeyTaken taken)
            {
                // Rolled back: on PostgreSQL the failed insert aborted the transaction, so the answer that stands is
                // read in a new one.
            }
            final LedgerAnswer stored = transactions.inTransaction(connection -> ledger.find(connection, key));
            if (stored != null)
            {
                return ExecutionOutcome.replayed(stored);
            }
            if (round == ROUNDS)
            {
                throw new IllegalStateException("idempotency key " + key + " was recorded and gone again " + ROUNDS +
                    " times before its answer could be read: is its time to live that short?");
            }
            // Expired and deleted between the two: the key is free again, and a claim settles who runs it.
            claimFirst = true;
        }
    }

    /**
     * Runs {@code work} in a transaction with no ledger entry, under the same rollback rule: for calls that carry no
     * idempotency key where the caller chose to run them anyway (at least once, as any call).
     */
    public ExecutionOutcome executeWithoutKey(final LedgerWork work) throws Exception
    {
        Objects.requireNonNull(work, "work");
        return transactions.inTransaction(connection ->
        {
            checkManualCommit(connection);
            final Ran ran = new Ran();
            final LedgerAnswer answer = run(connection, work, ran);
            return ExecutionOutcome.executed(answer, ran.thrown);
        });
    }

    private ExecutionOutcome runRecord(final Connection connection, final String key, final LedgerWork work)
        throws Exception
    {
        checkManualCommit(connection);
        final Ran ran = new Ran();
        final LedgerAnswer answer = run(connection, work, ran);
        if (!ledger.record(connection, key, answer))
        {
            throw KeyTaken.INSTANCE;
        }
        return ExecutionOutcome.executed(answer, ran.thrown);
    }

    private ExecutionOutcome claimRunComplete(final Connection connection, final String key,
        final Duration claimWait, final LedgerWork work) throws Exception
    {
        checkManualCommit(connection);
        if (!ledger.claim(connection, key, claimWait))
        {
            throw KeyTaken.INSTANCE;
        }
        final Ran ran = new Ran();
        final LedgerAnswer answer = run(connection, work, ran);
        ledger.complete(connection, key, answer);
        return ExecutionOutcome.executed(answer, ran.thrown);
    }

    /** The work's answer; an error the rule commits becomes the answer, one it rolls back is thrown on. */
    private LedgerAnswer run(final Connection connection, final LedgerWork work, final Ran ran) throws Exception
    {
        try
        {
            return LedgerAnswer.value(work.run(connection));
        }
        catch (final Throwable ex)
        {
            if (rollbackOn.test(ex))
            {
                throw rethrow(ex);
            }
            ran.thrown = ex;
            return LedgerAnswer.error(errorAnswer.apply(ex));
        }
    }

    private static Exception rethrow(final Throwable ex)
    {
        if (ex instanceof Error error)
        {
            throw error;
        }
        return ex instanceof Exception exception ? exception : new IllegalStateException(ex);
    }

    /** A ledger entry committed apart from its work would lose the point: refuse before writing anything. */
    private static void checkManualCommit(final Connection connection) throws SQLException
    {
        if (connection.getAutoCommit())
        {
            throw new IllegalStateException("the transaction's connection is in autocommit mode: the ledger's " +
                "entry would commit apart from the call's own writes (Transactions must hand over a connection in " +
                "a transaction)");
        }
    }

    @Override
    public String toString()
    {
        return "exactly-once execution over " + ledger + " in " + transactions;
    }

    /** What the work threw when its transaction commits all the same. */
    private static final class Ran
    {
        Throwable thrown;
    }

    /**
     * The key is recorded already: thrown out of the transaction so that it rolls back. Unchecked, so that a
     * {@link Transactions} built on a framework's template passes it on as it is; one instance, with no stack trace.
     */
    private static final class KeyTaken extends RuntimeException
    {
        private static final long serialVersionUID = 1L;
        static final KeyTaken INSTANCE = new KeyTaken();

        private KeyTaken()
        {
            super("the idempotency key is recorded already", null, false, false);
        }
    }

    /** Settings of an {@link ExactlyOnceExecution}. Not thread-safe. */
    public static final class Builder
    {
        private final ExecutionLedger ledger;
        private final Transactions transactions;
        private Predicate<Throwable> rollbackOn = ExactlyOnceExecution::uncheckedRollsBack;
        private Function<Throwable, byte[]> errorAnswer = error -> LedgerAnswer.error(error).bytes();

        private Builder(final ExecutionLedger ledger, final Transactions transactions)
        {
            this.ledger = Objects.requireNonNull(ledger, "ledger");
            this.transactions = Objects.requireNonNull(transactions, "transactions");
        }

        /**
         * Which errors of the work roll its transaction back (nothing is stored, the error propagates); the others
         * commit it, with the error stored as the answer. By default {@link #uncheckedRollsBack}. A Spring layer
         * passes its transaction attribute's rule.
         */
        public Builder rollbackOn(final Predicate<Throwable> rule)
        {
            this.rollbackOn = Objects.requireNonNull(rule, "rule");
            return this;
        }

        /**
         * How an error that commits is stored, as the bytes of an {@link LedgerAnswer.Kind#ERROR error answer}: by
         * default its class name and message ({@link LedgerAnswer#error(Throwable)}), the engine's form of an error
         * answer.
         */
        public Builder errorAnswer(final Function<Throwable, byte[]> encoder)
        {
            this.errorAnswer = Objects.requireNonNull(encoder, "encoder");
            return this;
        }

        public ExactlyOnceExecution build()
        {
            return new ExactlyOnceExecution(this);
        }
    }
}
