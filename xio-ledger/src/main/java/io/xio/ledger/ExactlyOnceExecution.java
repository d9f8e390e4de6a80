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
 *   wait for that transaction's outcome: if it committed, this one rolls back and replays its answer without
 *   running; if it rolled back, the claim holds and the work runs. The answer then
 *   {@link ExecutionLedger#complete completes} the entry before commit.</li>
 *   <li>Work that throws rolls back when the rollback rule says so (by default for unchecked exceptions, as Spring
 *   does), and always for a database error (an {@link SQLException}, or an error caused by one): nothing is stored
 *   and the exception propagates. Otherwise its error is stored as the answer in the transaction, which commits, and
 *   duplicates get the same error.</li>
 *   <li>An attempt that does not settle its call throws {@link ExecutionUnsettledException}, for the caller to
 *   answer "try again" rather than with an error: a wait for another attempt that holds the key cut short
 *   ({@link ExecutionInProgressException}), a transient database failure that rolled the attempt back (a deadlock,
 *   a serialization failure, a lock timeout, a lost connection), a commit that failed (whether it committed is then
 *   unknown), or a stored answer that could not be read. The same key's next attempt settles the call.</li>
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
     * @param claimWait how long a claim, or a first use's record, may wait for another attempt's transaction that
     *                  holds the key: the call's time left, so that it never waits past the call's deadline (the
     *                  ledger may stop sooner, at the database's own lock timeout)
     * @return the answer, and whether it was executed now or replayed
     * @throws ExecutionUnsettledException when this attempt did not settle the call and the same key's next attempt
     *     will ({@link ExecutionInProgressException} when another attempt held the key past the wait): answer it as
     *     "try again", never as the call's error
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
            final Ran ran = new Ran();
            try
            {
                return transactions.inTransaction(connection -> ran.returned(claim ?
                    claimRunComplete(connection, key, claimWait, work, ran) :
                    runRecord(connection, key, claimWait, work, ran)));
            }
            catch (final KeyTaken taken)
            {
                // Rolled back: on PostgreSQL the failed insert aborted the transaction, so the answer that stands is
                // read in a new one.
            }
            catch (final Exception ex)
            {
                throw unsettledIfSo(key, ran, ex);
            }
            final LedgerAnswer stored = find(key);
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
     *
     * @throws ExecutionUnsettledException when a transient database failure rolled the work back before its commit
     *     (nothing of it committed); a failed commit is thrown as it is, since the call may then have run
     */
    public ExecutionOutcome executeWithoutKey(final LedgerWork work) throws Exception
    {
        Objects.requireNonNull(work, "work");
        final Ran ran = new Ran();
        try
        {
            return transactions.inTransaction(connection ->
            {
                checkManualCommit(connection);
                final LedgerAnswer answer = run(connection, work, ran);
                return ran.returned(ExecutionOutcome.executed(answer, ran.thrown));
            });
        }
        catch (final Exception ex)
        {
            if (!ran.returned && DatabaseFailures.isTransient(ex))
            {
                throw new ExecutionUnsettledException("a transient database failure rolled back a call without an " +
                    "idempotency key before its commit: nothing of it committed", ex);
            }
            throw ex;
        }
    }

    private ExecutionOutcome runRecord(final Connection connection, final String key, final Duration wait,
        final LedgerWork work, final Ran ran) throws Exception
    {
        checkManualCommit(connection);
        final LedgerAnswer answer = run(connection, work, ran);
        final boolean recorded;
        try
        {
            recorded = ledger.record(connection, key, answer, wait);
        }
        catch (final Exception ex)
        {
            throw ran.keptIn(ex);
        }
        if (!recorded)
        {
            throw new KeyTaken();
        }
        return ExecutionOutcome.executed(answer, ran.thrown);
    }

    private ExecutionOutcome claimRunComplete(final Connection connection, final String key, final Duration wait,
        final LedgerWork work, final Ran ran) throws Exception
    {
        checkManualCommit(connection);
        if (!ledger.claim(connection, key, wait))
        {
            throw new KeyTaken();
        }
        final LedgerAnswer answer = run(connection, work, ran);
        try
        {
            ledger.complete(connection, key, answer);
        }
        catch (final Exception ex)
        {
            throw ran.keptIn(ex);
        }
        return ExecutionOutcome.executed(answer, ran.thrown);
    }

    /**
     * The work's answer; an error the rule commits becomes the answer, one it rolls back (and any database error) is
     * thrown on.
     */
    private LedgerAnswer run(final Connection connection, final LedgerWork work, final Ran ran) throws Exception
    {
        try
        {
            return LedgerAnswer.value(work.run(connection));
        }
        catch (final Throwable ex)
        {
            if (DatabaseFailures.isDatabaseError(ex) || rollbackOn.test(ex))
            {
                throw rethrow(ex);
            }
            ran.thrown = ex;
            try
            {
                return LedgerAnswer.error(errorAnswer.apply(ex));
            }
            catch (final RuntimeException encoding)
            {
                encoding.addSuppressed(ex);
                throw encoding;
            }
        }
    }

    /** The answer another attempt committed for {@code key}, read in a transaction of its own; null when none. */
    private LedgerAnswer find(final String key) throws Exception
    {
        try
        {
            return transactions.inTransaction(connection -> ledger.find(connection, key));
        }
        catch (final Exception ex)
        {
            if (ex instanceof ExecutionUnsettledException || !DatabaseFailures.isDatabaseError(ex))
            {
                throw ex;
            }
            throw new ExecutionUnsettledException("another attempt committed the call with idempotency key " + key +
                ", and its answer could not be read: the key's next attempt reads it", ex);
        }
    }

    /** {@code ex}, or the {@link ExecutionUnsettledException} it makes: what an attempt that failed throws. */
    private static Exception unsettledIfSo(final String key, final Ran ran, final Exception ex)
    {
        if (ex instanceof ExecutionUnsettledException)
        {
            return ex;
        }
        if (ran.returned)
        {
            return new ExecutionUnsettledException("ending the transaction of the call with idempotency key " + key +
                " failed after its work: whether it committed is unknown, and the key's next attempt finds out", ex);
        }
        if (DatabaseFailures.isTransient(ex))
        {
            return new ExecutionUnsettledException("a transient database failure rolled back the attempt of the " +
                "call with idempotency key " + key + ": nothing of it committed, and the key's next attempt runs it " +
                "or gets the answer another committed", ex);
        }
        return ex;
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

    /**
     * One attempt's transaction, as far as it went: what the work threw when its transaction was to commit all the
     * same, and whether the work's side returned (so that a failure after that is its commit's). On the attempt's
     * thread.
     */
    private static final class Ran
    {
        Throwable thrown;
        boolean returned;

        <T> T returned(final T result)
        {
            returned = true;
            return result;
        }

        /** {@code ex}, which replaces the work's error as what the attempt throws, carrying that error along. */
        Exception keptIn(final Exception ex)
        {
            if (thrown != null && thrown != ex)
            {
                ex.addSuppressed(thrown);
            }
            return ex;
        }
    }

    /**
     * The key is recorded already: thrown out of the transaction so that it rolls back. Unchecked, so that a
     * {@link Transactions} built on a framework's template passes it on as it is; no stack trace, but what went wrong
     * ending the transaction is kept as suppressed.
     */
    private static final class KeyTaken extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        KeyTaken()
        {
            super("the idempotency key is recorded already", null, true, false);
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
         * Which of the application's errors roll the work's transaction back (nothing is stored, the error
         * propagates); the others commit it, with the error stored as the answer. By default
         * {@link #uncheckedRollsBack}. A Spring layer passes its transaction attribute's rule. A database error (an
         * {@link SQLException}, or an error caused by one) rolls back whatever the rule says: the database may have
         * ended the transaction already, so it is never stored as the answer.
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
