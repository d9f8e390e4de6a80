package io.xio.ledger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ExactlyOnceExecution} when the database fails, against a real database (a subclass per database): errors of
 * the work's own SQL, deadlocks, commits and rollbacks that fail ({@link FaultyDataSource}), answers that cannot be
 * read, and waits for a held key cut short. Whatever fails, nothing commits twice, nothing commits without its entry,
 * and an attempt that did not settle its call says so ({@link ExecutionUnsettledException}) rather than failing it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class LedgerFailuresContract extends DatabaseContract
{
    static final Duration WAIT = Duration.ofSeconds(30);

    final ExecutorService threads = Executors.newCachedThreadPool();
    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private String writes;
    private String accounts;
    JdbcExecutionLedger ledger;
    FaultyDataSource faulty;
    ExactlyOnceExecution execution;

    /** Whether an error aborts the whole transaction, so that every statement after it fails (PostgreSQL). */
    abstract boolean errorsAbortTheTransaction();

    /** Whether the ledger cuts a wait for a held key by cancelling its statement (not on H2: its lock timeout). */
    abstract boolean cutsWaitsByCancel();

    @BeforeEach
    void tables() throws SQLException
    {
        final String ledgerTable = TestDatabase.unique("ledger");
        writes = TestDatabase.unique("writes");
        accounts = TestDatabase.unique("accounts");
        LedgerSchema.create(database().dataSource(), ledgerTable);
        TestDatabase.execute(database().dataSource(),
            "CREATE TABLE " + writes + " (call_id VARCHAR(128) NOT NULL)",
            "CREATE TABLE " + accounts + " (id INT PRIMARY KEY, balance INT NOT NULL)",
            "INSERT INTO " + accounts + " VALUES (1, 100)",
            "INSERT INTO " + accounts + " VALUES (2, 100)");
        ledger = JdbcExecutionLedger.builder().table(ledgerTable).build();
        faulty = new FaultyDataSource(database().dataSource());
        execution = ExactlyOnceExecution.of(ledger, new DataSourceTransactions(faulty));
    }

    @AfterEach
    void stopThreads() throws InterruptedException
    {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aDatabaseErrorInTheWorkRollsItBackIsNeverStoredAndIsThrownAsItIs() throws Exception
    {
        for (final boolean firstUse : new boolean[] {true, false})
        {
            final String key = "sql-" + firstUse;
            final AtomicReference<SQLException> raised = new AtomicReference<>();
            final LedgerWork failing = connection ->
            {
                write(key).run(connection);
                try
                {
                    TestDatabase.execute(connection, "SELECT * FROM no_such_table");
                }
                catch (final SQLException ex)
                {
                    raised.set(ex);
                    throw ex;
                }
                return null;
            };

            assertThatThrownBy(() -> execution.execute(key, firstUse, WAIT, failing)).as(key)
                .isSameAs(raised.get());
            assertThat(stored(key)).as(key).isNull();
            assertThat(written(key)).as(key).isZero();
            assertThat(execution.execute(key, false, WAIT, write(key)).executed()).as(key).isTrue();
            assertThat(written(key)).as(key).isEqualTo(1);
        }
    }

    @Test
    void aDeadlockVictimIsUnsettledNotStoredAndItsNextAttemptRuns() throws Exception
    {
        final CountDownLatch bothHoldTheirFirstRow = new CountDownLatch(2);
        final Future<ExecutionOutcome> oneWay = threads.submit(() ->
            execution.execute("dl-1", false, WAIT, transfer("dl-1", 1, 2, bothHoldTheirFirstRow)));
        final Future<ExecutionOutcome> otherWay = threads.submit(() ->
            execution.execute("dl-2", false, WAIT, transfer("dl-2", 2, 1, bothHoldTheirFirstRow)));

        final List<String> victims = new ArrayList<>();
        for (final Future<ExecutionOutcome> attempt : List.of(oneWay, otherWay))
        {
            final String key = attempt == oneWay ? "dl-1" : "dl-2";
            try
            {
                assertThat(attempt.get(60, TimeUnit.SECONDS).executed()).isTrue();
            }
            catch (final ExecutionException ex)
            {
                assertThat(ex.getCause()).as(key).isInstanceOf(ExecutionUnsettledException.class);
                assertThat(DatabaseFailures.isTransient(ex.getCause().getCause())).as(key).isTrue();
                victims.add(key);
            }
        }

        assertThat(victims).as("exactly one victim").hasSize(1);
        final String victim = victims.get(0);
        assertThat(stored(victim)).isNull();
        assertThat(written(victim)).isZero();
        assertThat(execution.execute(victim, false, WAIT, write(victim)).executed()).isTrue();
        assertThat(written("dl-1") + written("dl-2")).isEqualTo(2);
    }

    @Test
    void aWorkErrorIsKeptWhenALedgerStepAfterItFails() throws Exception
    {
        for (final boolean firstUse : new boolean[] {true, false})
        {
            final String key = "kept-" + firstUse;
            final ExactlyOnceExecutionContract.Refused refused =
                new ExactlyOnceExecutionContract.Refused("insufficient funds");
            // The work swallows its statement's error and refuses with its own, which the rule commits.
            final LedgerWork swallowing = connection ->
            {
                write(key).run(connection);
                try
                {
                    TestDatabase.execute(connection, "SELECT * FROM no_such_table");
                }
                catch (final SQLException ex)
                {
                    // Swallowed, as careless code does.
                }
                throw refused;
            };

            if (errorsAbortTheTransaction())
            {
                assertThatThrownBy(() -> execution.execute(key, firstUse, WAIT, swallowing)).as(key)
                    .isInstanceOf(SQLException.class).hasSuppressedException(refused);
                assertThat(stored(key)).as(key).isNull();
                assertThat(written(key)).as(key).isZero();
            }
            else
            {
                assertThat(execution.execute(key, firstUse, WAIT, swallowing).thrown()).as(key).isSameAs(refused);
                assertThat(written(key)).as(key).isEqualTo(1);
            }
        }
    }

    @Test
    void aCommitThatFailsBeforeCommittingIsUnsettledAndTheNextAttemptRuns() throws Exception
    {
        faulty.failCommits(1, false);

        assertThatThrownBy(() -> execution.execute("commit-1", true, WAIT, write("commit-1")))
            .isInstanceOf(ExecutionUnsettledException.class).hasMessageContaining("whether it committed is unknown")
            .hasRootCauseMessage("the commit's answer was lost (test)");
        assertThat(written("commit-1")).as("rolled back, not committed by autocommit").isZero();
        assertThat(stored("commit-1")).isNull();

        assertThat(execution.execute("commit-1", false, WAIT, write("commit-1")).executed()).isTrue();
        assertThat(written("commit-1")).isEqualTo(1);
    }

    @Test
    void aCommitThatFailsAfterCommittingIsUnsettledAndTheNextAttemptGetsTheAnswer() throws Exception
    {
        faulty.failCommits(1, true);

        assertThatThrownBy(() -> execution.execute("commit-2", true, WAIT, write("commit-2")))
            .isInstanceOf(ExecutionUnsettledException.class);

        final ExecutionOutcome retry = execution.execute("commit-2", false, WAIT, write("commit-2"));
        assertThat(retry.replayed()).isTrue();
        assertThat(new String(retry.answer().bytes(), StandardCharsets.UTF_8)).isEqualTo("commit-2 done");
        assertThat(runs("commit-2")).isEqualTo(1);
        assertThat(written("commit-2")).isEqualTo(1);
    }

    @Test
    void aRollbackThatFailsAbortsTheConnectionAndCommitsNothing() throws Exception
    {
        faulty.failRollbacks(1);
        final IllegalStateException crash = new IllegalStateException("the work failed");
        final LedgerWork crashing = connection ->
        {
            write("rb-1").run(connection);
            throw crash;
        };

        assertThatThrownBy(() -> execution.execute("rb-1", true, WAIT, crashing)).isSameAs(crash);
        assertThat(crash.getSuppressed()).anySatisfy(suppressed ->
            assertThat(suppressed).hasMessage("the rollback failed (test)"));
        assertThat(written("rb-1")).as("the work's write never committed").isZero();
        assertThat(faulty.aborts()).isEqualTo(1);
        assertThat(stored("rb-1")).isNull();
    }

    @Test
    void aFirstUseThatMeetsACommittedKeyAndFailsToRollBackCommitsNothingAndReplays() throws Exception
    {
        final ExecutionOutcome first = execution.execute("rb-2", true, WAIT, write("rb-2"));
        faulty.failRollbacks(1);

        final ExecutionOutcome second = execution.execute("rb-2", true, WAIT, write("rb-2"));

        assertThat(second.replayed()).isTrue();
        assertThat(second.answer()).isEqualTo(first.answer());
        assertThat(runs("rb-2")).isEqualTo(2);
        assertThat(written("rb-2")).as("the second run's write never committed").isEqualTo(1);
        assertThat(faulty.aborts()).isEqualTo(1);
    }

    @Test
    void anAnswerThatCannotBeReadIsUnsettledAndTheNextAttemptReadsIt() throws Exception
    {
        final ExecutionOutcome first = execution.execute("read-1", true, WAIT, write("read-1"));
        faulty.failStatements("SELECT outcome, answer FROM", 1);

        assertThatThrownBy(() -> execution.execute("read-1", false, WAIT, write("read-1")))
            .isInstanceOf(ExecutionUnsettledException.class).hasMessageContaining("could not be read");

        assertThat(execution.execute("read-1", false, WAIT, write("read-1")).answer()).isEqualTo(first.answer());
        assertThat(runs("read-1")).isEqualTo(1);
    }

    @Test
    void aFirstUseHeldUpByItsRetryPastItsWaitIsTurnedAwayAndRollsBack() throws Exception
    {
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Future<ExecutionOutcome> retry = threads.submit(() ->
            execution.execute("slow-1", false, WAIT, held("slow-1", holding, release)));
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();

        // PostgreSQL's lock_timeout is 0 (none): only the cut at the wait ends this; on H2 its lock timeout does.
        final Future<ExecutionOutcome> first = threads.submit(() ->
            execution.execute("slow-1", true, Duration.ofMillis(300), write("slow-1")));
        assertThatThrownBy(() -> first.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(
            ExecutionInProgressException.class);

        release.countDown();
        assertThat(retry.get(30, TimeUnit.SECONDS).executed()).isTrue();
        assertThat(written("slow-1")).as("only the retry's write committed").isEqualTo(1);
    }

    @Test
    void aWaitCutShortCancelsItsStatementOnlyWhereALateCancelIsHarmless() throws Exception
    {
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final ExactlyOnceExecution plain = ExactlyOnceExecution.of(ledger,
            new DataSourceTransactions(database().dataSource()));
        final Future<ExecutionOutcome> running = threads.submit(() ->
            plain.execute("cut-1", false, WAIT, held("cut-1", holding, release)));
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();

        assertThatThrownBy(() -> execution.execute("cut-1", false, Duration.ofMillis(300), write("cut-1")))
            .isInstanceOf(ExecutionInProgressException.class);

        assertThat(faulty.cancels() > 0).as("statements cancelled").isEqualTo(cutsWaitsByCancel());
        release.countDown();
        assertThat(running.get(30, TimeUnit.SECONDS).executed()).isTrue();
        assertThat(execution.execute("cut-1", false, WAIT, write("cut-1")).replayed()).isTrue();
    }

    /** Work that writes a row for {@code callId} and answers "{@code callId} done". */
    LedgerWork write(final String callId)
    {
        return connection ->
        {
            runs.computeIfAbsent(callId, id -> new AtomicInteger()).incrementAndGet();
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + writes + " VALUES (?)"))
            {
                insert.setString(1, callId);
                insert.executeUpdate();
            }
            return (callId + " done").getBytes(StandardCharsets.UTF_8);
        };
    }

    /** Writes, says so, and waits for {@code release} before it answers. */
    LedgerWork held(final String callId, final CountDownLatch holding, final CountDownLatch release)
    {
        return connection ->
        {
            final byte[] answer = write(callId).run(connection);
            holding.countDown();
            assertThat(release.await(60, TimeUnit.SECONDS)).isTrue();
            return answer;
        };
    }

    /**
     * Moves one from account {@code from} to {@code to}, locking {@code from} first and {@code to} only once
     * {@code both} transfers hold their first: two of them the other way round deadlock.
     */
    private LedgerWork transfer(final String callId, final int from, final int to, final CountDownLatch both)
    {
        return connection ->
        {
            final byte[] answer = write(callId).run(connection);
            add(connection, from, -1);
            both.countDown();
            assertThat(both.await(30, TimeUnit.SECONDS)).isTrue();
            add(connection, to, 1);
            return answer;
        };
    }

    private void add(final Connection connection, final int account, final int amount) throws SQLException
    {
        try (PreparedStatement update = connection.prepareStatement(
            "UPDATE " + accounts + " SET balance = balance + ? WHERE id = ?"))
        {
            update.setInt(1, amount);
            update.setInt(2, account);
            update.executeUpdate();
        }
    }

    int runs(final String callId)
    {
        final AtomicInteger count = runs.get(callId);
        return count == null ? 0 : count.get();
    }

    long written(final String callId) throws SQLException
    {
        return TestDatabase.number(database().dataSource(),
            "SELECT COUNT(*) FROM " + writes + " WHERE call_id = '" + callId + "'");
    }

    LedgerAnswer stored(final String key) throws Exception
    {
        return new DataSourceTransactions(database().dataSource())
            .inTransaction(connection -> ledger.find(connection, key));
    }
}
