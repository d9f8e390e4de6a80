package io.xio.ledger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@link ExactlyOnceExecution} over {@link JdbcExecutionLedger} in {@link DataSourceTransactions}, against a real
 * database (a subclass per database): the work writes a row per run into a table of its own with no unique key, so
 * a second run, or a write that should have rolled back, shows as a second row. Statements are counted through
 * {@link CountingDataSource}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class ExactlyOnceExecutionContract extends DatabaseContract
{
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private CountingDataSource counting;
    private String ledgerTable;
    private String writes;
    private JdbcExecutionLedger ledger;
    private ExactlyOnceExecution execution;

    /** The statement that sets the database's own lock timeout for the session or transaction. */
    abstract String lockTimeout(int millis);

    @BeforeEach
    void tables() throws SQLException
    {
        final DataSource dataSource = database().dataSource();
        counting = new CountingDataSource(dataSource);
        ledgerTable = TestDatabase.unique("ledger");
        writes = TestDatabase.unique("writes");
        LedgerSchema.create(dataSource, ledgerTable);
        TestDatabase.execute(dataSource,
            "CREATE TABLE " + writes + " (call_id VARCHAR(128) NOT NULL, amount INT NOT NULL)");
        ledger = JdbcExecutionLedger.builder().table(ledgerTable).timeToLive(Duration.ofHours(1)).clock(clock).build();
        execution = ExactlyOnceExecution.of(ledger, new DataSourceTransactions(counting));
    }

    @AfterEach
    void stopThreads() throws InterruptedException
    {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void theFirstUseOfAKeyRunsTheWorkAndAddsOneStatement() throws Exception
    {
        counting.clear();
        final ExecutionOutcome outcome = execution.execute("a-1", true, WAIT, write("a-1", 10));

        assertThat(outcome.executed()).isTrue();
        assertThat(text(outcome.answer())).isEqualTo("a-1 done");
        assertThat(counting.statements()).as("the work's insert, then the ledger's").hasSize(2);
        assertThat(ledgerStatements()).isEqualTo(1);
        assertThat(counting.statements().get(1)).startsWith("INSERT INTO " + ledgerTable + " ");
        assertThat(written("a-1")).isEqualTo(1);
        assertThat(stored("a-1")).isEqualTo(outcome.answer());
    }

    @Test
    void aRetryOfAKeyNeverRecordedClaimsItRunsTheWorkAndCompletesTheEntry() throws Exception
    {
        counting.clear();
        final ExecutionOutcome outcome = execution.execute("b-1", false, WAIT, write("b-1", 10));

        assertThat(outcome.executed()).isTrue();
        assertThat(counting.statements()).as("claim, the work's insert, complete").hasSize(3);
        assertThat(counting.statements().get(0)).startsWith("INSERT INTO " + ledgerTable + " ");
        assertThat(counting.statements().get(2)).startsWith("UPDATE " + ledgerTable + " ");
        assertThat(written("b-1")).isEqualTo(1);
        assertThat(stored("b-1")).isEqualTo(outcome.answer());
    }

    @Test
    void aCommittedKeyIsReplayedWithoutRunningTheWork() throws Exception
    {
        final ExecutionOutcome first = execution.execute("c-1", true, WAIT, write("c-1", 10));
        counting.clear();

        final ExecutionOutcome retry = execution.execute("c-1", false, WAIT, write("c-1", 10));

        assertThat(retry.replayed()).isTrue();
        assertThat(retry.answer()).isEqualTo(first.answer());
        assertThat(runs("c-1")).isEqualTo(1);
        assertThat(counting.statements()).as("the claim that met the key, the read after the rollback")
            .hasSize(2);
        assertThat(ledgerStatements()).isEqualTo(2);
        assertThat(written("c-1")).isEqualTo(1);
    }

    @Test
    void aFirstUseThatMeetsACommittedKeyRollsItsWorkBackAndReplaysTheAnswerThatStands() throws Exception
    {
        // A peer that says "first attempt" twice: the work runs again, but the ledger's unique key refuses its commit.
        final ExecutionOutcome first = execution.execute("d-1", true, WAIT, write("d-1", 10));
        final ExecutionOutcome second = execution.execute("d-1", true, WAIT, write("d-1", 20));

        assertThat(second.replayed()).isTrue();
        assertThat(second.answer()).isEqualTo(first.answer());
        assertThat(runs("d-1")).isEqualTo(2);
        assertThat(written("d-1")).as("the second run's write rolled back").isEqualTo(1);
        assertThat(TestDatabase.number(database().dataSource(),
            "SELECT SUM(amount) FROM " + writes + " WHERE call_id = 'd-1'")).isEqualTo(10);
    }

    @Test
    void aConcurrentDuplicateWaitsForTheFirstsCommitAndReplaysItsAnswer() throws Exception
    {
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Future<ExecutionOutcome> first = threads.submit(() ->
            execution.execute("e-1", false, WAIT, held("e-1", 10, holding, release, null)));
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();

        final Future<ExecutionOutcome> duplicate = threads.submit(() ->
            execution.execute("e-1", false, WAIT, write("e-1", 20)));
        awaitClaims(2);
        Thread.sleep(200); // room for a duplicate that did not wait to finish, wrongly
        assertThat(duplicate.isDone()).as("the duplicate waits in its claim").isFalse();
        release.countDown();

        final ExecutionOutcome ran = first.get(30, TimeUnit.SECONDS);
        final ExecutionOutcome replayed = duplicate.get(30, TimeUnit.SECONDS);
        assertThat(ran.executed()).isTrue();
        assertThat(replayed.replayed()).isTrue();
        assertThat(replayed.answer()).isEqualTo(ran.answer());
        assertThat(runs("e-1")).as("the duplicate's work never ran").isEqualTo(1);
        assertThat(written("e-1")).isEqualTo(1);
    }

    @Test
    void aDuplicateWaitingOnAnAttemptThatRollsBackRunsTheWorkItself() throws Exception
    {
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Future<ExecutionOutcome> first = threads.submit(() -> execution.execute("f-1", false, WAIT,
            held("f-1", 10, holding, release, new IllegalStateException("the first attempt's server failed"))));
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        final Future<ExecutionOutcome> duplicate = threads.submit(() ->
            execution.execute("f-1", false, WAIT, write("f-1", 20)));
        awaitClaims(2);
        release.countDown();

        assertThatThrownBy(() -> first.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
        final ExecutionOutcome ran = duplicate.get(30, TimeUnit.SECONDS);
        assertThat(ran.executed()).isTrue();
        assertThat(runs("f-1")).isEqualTo(2);
        assertThat(written("f-1")).as("only the duplicate's write committed").isEqualTo(1);
        assertThat(TestDatabase.number(database().dataSource(),
            "SELECT SUM(amount) FROM " + writes + " WHERE call_id = 'f-1'")).isEqualTo(20);
        assertThat(stored("f-1")).isEqualTo(ran.answer());
    }

    @Test
    void aFirstAttemptStillRunningWhenItsRetryCommitsRollsItsWorkBackAndReplaysTheRetrysAnswer() throws Exception
    {
        // The first attempt claims nothing; its retry elsewhere claims, runs and commits; the first attempt's record
        // at its end then meets the retry's entry, and its work's writes go with its rollback.
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Future<ExecutionOutcome> first = threads.submit(() ->
            execution.execute("o-1", true, WAIT, held("o-1", 10, holding, release, null)));
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();

        final ExecutionOutcome retry = execution.execute("o-1", false, WAIT, write("o-1", 20));
        release.countDown();
        final ExecutionOutcome slow = first.get(30, TimeUnit.SECONDS);

        assertThat(retry.executed()).isTrue();
        assertThat(slow.replayed()).isTrue();
        assertThat(slow.answer()).isEqualTo(retry.answer());
        assertThat(runs("o-1")).isEqualTo(2);
        assertThat(written("o-1")).as("only the retry's write committed").isEqualTo(1);
        assertThat(TestDatabase.number(database().dataSource(),
            "SELECT SUM(amount) FROM " + writes + " WHERE call_id = 'o-1'")).isEqualTo(20);
    }

    @Test
    void aCrashBeforeCommitLeavesNothingAndTheKeyRunsAgain() throws Exception
    {
        final LedgerWork crashing = connection ->
        {
            write("g-1", 10).run(connection);
            throw new IllegalStateException("the server died before commit");
        };
        assertThatThrownBy(() -> execution.execute("g-1", true, WAIT, crashing))
            .isInstanceOf(IllegalStateException.class).hasMessage("the server died before commit");
        assertThat(stored("g-1")).isNull();
        assertThat(written("g-1")).isZero();

        final ExecutionOutcome retry = execution.execute("g-1", false, WAIT, write("g-1", 10));

        assertThat(retry.executed()).isTrue();
        assertThat(written("g-1")).isEqualTo(1);
    }

    @Test
    void anApplicationErrorThatCommitsIsStoredAndReplayed() throws Exception
    {
        final LedgerWork refusing = connection ->
        {
            write("h-1", 10).run(connection);
            throw new Refused("insufficient funds");
        };
        final ExecutionOutcome first = execution.execute("h-1", true, WAIT, refusing);

        assertThat(first.executed()).isTrue();
        assertThat(first.thrown()).isInstanceOf(Refused.class);
        assertThat(first.answer().isError()).isTrue();
        assertThat(first.answer().errorType()).isEqualTo(Refused.class.getName());
        assertThat(first.answer().errorMessage()).isEqualTo("insufficient funds");
        assertThat(written("h-1")).as("the checked error committed its transaction").isEqualTo(1);

        final ExecutionOutcome retry = execution.execute("h-1", false, WAIT, refusing);
        assertThat(retry.replayed()).isTrue();
        assertThat(retry.thrown()).isNull();
        assertThat(retry.answer()).isEqualTo(first.answer());
        assertThat(runs("h-1")).isEqualTo(1);
    }

    @Test
    void anErrorTheRuleRollsBackLeavesNothing() throws Exception
    {
        final ExactlyOnceExecution strict = ExactlyOnceExecution.builder(ledger, new DataSourceTransactions(counting))
            .rollbackOn(error -> true).build();
        final LedgerWork refusing = connection ->
        {
            write("i-1", 10).run(connection);
            throw new Refused("insufficient funds");
        };

        assertThatThrownBy(() -> strict.execute("i-1", false, WAIT, refusing)).isInstanceOf(Refused.class);
        assertThat(stored("i-1")).isNull();
        assertThat(written("i-1")).isZero();
    }

    @Test
    void aClaimThatWaitsPastItsTimeIsTurnedAwayAsStillRunningAndRunsNothing() throws Exception
    {
        // PostgreSQL cuts the claim at its wait; H2 at its own lock timeout (3 s here), whatever the wait.
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Future<ExecutionOutcome> first = threads.submit(() ->
            execution.execute("j-1", false, WAIT, held("j-1", 10, holding, release, null)));
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();

        assertThatThrownBy(() -> execution.execute("j-1", false, Duration.ofMillis(300), write("j-1", 20)))
            .isInstanceOf(ExecutionInProgressException.class).hasMessageContaining("j-1")
            .hasMessageContaining("still running");
        assertThat(runs("j-1")).isEqualTo(1);

        release.countDown();
        final ExecutionOutcome ran = first.get(30, TimeUnit.SECONDS);
        final ExecutionOutcome later = execution.execute("j-1", false, WAIT, write("j-1", 20));
        assertThat(later.replayed()).isTrue();
        assertThat(later.answer()).isEqualTo(ran.answer());
        assertThat(written("j-1")).isEqualTo(1);
    }

    @Test
    void aFirstUseHeldUpPastTheDatabasesLockTimeoutIsTurnedAwayAsStillRunningAndRollsBack() throws Exception
    {
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Future<ExecutionOutcome> claimed = threads.submit(() ->
            execution.execute("p-1", false, WAIT, held("p-1", 10, holding, release, null)));
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        final DataSourceTransactions plain = new DataSourceTransactions(database().dataSource());
        final Transactions impatient = new Transactions()
        {
            @Override
            public <T> T inTransaction(final TransactionalWork<T> work) throws Exception
            {
                return plain.inTransaction(connection ->
                {
                    TestDatabase.execute(connection, lockTimeout(300));
                    return work.run(connection);
                });
            }
        };

        assertThatThrownBy(() -> ExactlyOnceExecution.of(ledger, impatient).execute("p-1", true, WAIT,
            write("p-1", 20))).isInstanceOf(ExecutionInProgressException.class).hasMessageContaining("p-1");

        release.countDown();
        assertThat(claimed.get(30, TimeUnit.SECONDS).executed()).isTrue();
        assertThat(written("p-1")).as("the turned-away attempt's write rolled back").isEqualTo(1);
        assertThat(TestDatabase.number(database().dataSource(),
            "SELECT SUM(amount) FROM " + writes + " WHERE call_id = 'p-1'")).isEqualTo(10);
    }

    @Test
    void expiredEntriesAreDeletedInBatchesAndTheirKeysRunAgain() throws Exception
    {
        for (int i = 0; i < 7; i++)
        {
            execution.execute("old-" + i, true, WAIT, write("old-" + i, i));
        }
        clock.advance(Duration.ofMinutes(30));
        execution.execute("new-0", true, WAIT, write("new-0", 0));
        execution.execute("new-1", true, WAIT, write("new-1", 1));
        clock.advance(Duration.ofMinutes(45)); // the old ones lived an hour and a quarter, the new ones 45 minutes
        final LedgerCleaner cleaner = new LedgerCleaner(ledger, new DataSourceTransactions(counting), 3);
        counting.clear();

        assertThat(cleaner.clean()).isEqualTo(7);

        assertThat(counting.count("DELETE FROM " + ledgerTable)).as("batches of 3, 3 and 1").isEqualTo(3);
        assertThat(ledgerRows()).isEqualTo(2);
        assertThat(stored("old-0")).isNull();
        assertThat(execution.execute("old-0", false, WAIT, write("old-0", 0)).executed()).isTrue();
        assertThat(execution.execute("new-0", false, WAIT, write("new-0", 0)).replayed()).isTrue();
        assertThat(runs("old-0")).isEqualTo(2);
        assertThat(runs("new-0")).isEqualTo(1);
    }

    @Test
    void theCleanerLeavesAClaimStillRunningAloneAndAnEntrysExpiryCountsFromItsClaim() throws Exception
    {
        final Instant claimedAt = clock.instant();
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Future<ExecutionOutcome> running = threads.submit(() ->
            execution.execute("q-1", false, WAIT, held("q-1", 10, holding, release, null)));
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        clock.advance(Duration.ofHours(2)); // past the claim's hour to live, while its call still runs
        final LedgerCleaner cleaner = new LedgerCleaner(ledger, new DataSourceTransactions(database().dataSource()),
            10);

        assertThat(cleaner.clean()).as("a claim not yet committed is not the cleaner's to see").isZero();

        release.countDown();
        assertThat(running.get(30, TimeUnit.SECONDS).executed()).isTrue();
        assertThat(expiry("q-1")).isEqualTo(claimedAt.plus(Duration.ofHours(1)));
        assertThat(execution.execute("q-1", false, WAIT, write("q-1", 20)).replayed())
            .as("expired, not yet deleted: a retry still gets the answer").isTrue();
        assertThat(cleaner.clean()).isEqualTo(1);
        assertThat(execution.execute("q-1", false, WAIT, write("q-1", 30)).executed())
            .as("deleted: a late attempt runs again").isTrue();
        assertThat(written("q-1")).isEqualTo(2);
        assertThat(expiry("q-1")).isEqualTo(claimedAt.plus(Duration.ofHours(3)));
    }

    @Test
    void theCleanerDeletesExpiredEntriesWhileCallsGoOn() throws Exception
    {
        final JdbcExecutionLedger shortLived = JdbcExecutionLedger.builder().table(ledgerTable)
            .timeToLive(Duration.ofMillis(50)).build();
        final DataSourceTransactions transactions = new DataSourceTransactions(database().dataSource());
        final ExactlyOnceExecution calls = ExactlyOnceExecution.of(shortLived, transactions);
        final int callers = 2;
        final int each = 60;
        try (LedgerCleaner cleaner = new LedgerCleaner(shortLived, transactions, 5).start(Duration.ofMillis(20)))
        {
            final List<Future<Integer>> done = new ArrayList<>();
            for (int c = 0; c < callers; c++)
            {
                final int caller = c;
                done.add(threads.submit(() ->
                {
                    int executed = 0;
                    for (int i = 0; i < each; i++)
                    {
                        final String key = "k-" + caller + "-" + i;
                        executed += calls.execute(key, true, WAIT, write(key, 1)).executed() ? 1 : 0;
                    }
                    return executed;
                }));
            }
            for (final Future<Integer> caller : done)
            {
                assertThat(caller.get(60, TimeUnit.SECONDS)).isEqualTo(each);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> cleaner.deleted() == callers * each);
            assertThat(ledgerRows()).isZero();
        }
        assertThat(TestDatabase.number(database().dataSource(), "SELECT COUNT(*) FROM " + writes))
            .isEqualTo(callers * each);
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(thread ->
            thread.getName().equals("xio-ledger-cleaner") && thread.isAlive());
    }

    @Test
    void aConnectionInAutocommitModeIsRefusedBeforeAnythingIsWritten()
    {
        final Transactions autocommit = new Transactions()
        {
            @Override
            public <T> T inTransaction(final TransactionalWork<T> work) throws Exception
            {
                try (Connection connection = database().dataSource().getConnection())
                {
                    return work.run(connection);
                }
            }
        };
        final ExactlyOnceExecution careless = ExactlyOnceExecution.of(ledger, autocommit);

        assertThatThrownBy(() -> careless.execute("l-1", false, WAIT, write("l-1", 1)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("autocommit");
        assertThat(runs("l-1")).isZero();
    }

    @Test
    void creatingTheSchemaAgainLeavesTheEntriesAsTheyAre() throws Exception
    {
        final ExecutionOutcome first = execution.execute("m-1", true, WAIT, write("m-1", 1));

        LedgerSchema.create(database().dataSource(), ledgerTable);

        assertThat(stored("m-1")).isEqualTo(first.answer());
    }

    @Test
    void aLedgerInASchemaOfItsOwnWorks() throws Exception
    {
        final String schema = TestDatabase.unique("billing");
        TestDatabase.execute(database().dataSource(), "CREATE SCHEMA " + schema);
        LedgerSchema.create(database().dataSource(), schema + ".ledger");
        final ExactlyOnceExecution inSchema = ExactlyOnceExecution.of(
            JdbcExecutionLedger.builder().table(schema + ".ledger").build(), new DataSourceTransactions(counting));

        final ExecutionOutcome first = inSchema.execute("n-1", true, WAIT, write("n-1", 1));

        assertThat(inSchema.execute("n-1", false, WAIT, write("n-1", 1)).answer()).isEqualTo(first.answer());
        assertThat(TestDatabase.number(database().dataSource(), "SELECT COUNT(*) FROM " + schema + ".ledger"))
            .isEqualTo(1);
        assertThat(runs("n-1")).isEqualTo(1);
    }

    /** Work that writes a row for {@code callId} and answers "{@code callId} done". */
    private LedgerWork write(final String callId, final int amount)
    {
        return connection ->
        {
            runs.computeIfAbsent(callId, id -> new AtomicInteger()).incrementAndGet();
            try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO " + writes + " (call_id, amount) VALUES (?, ?)"))
            {
                insert.setString(1, callId);
                insert.setInt(2, amount);
                insert.executeUpdate();
            }
            return (callId + " done").getBytes(StandardCharsets.UTF_8);
        };
    }

    /** Writes, says so, waits for {@code release}; then throws {@code failure}, if any, or answers. */
    private LedgerWork held(final String callId, final int amount, final CountDownLatch holding,
        final CountDownLatch release, final RuntimeException failure)
    {
        return connection ->
        {
            final byte[] answer = write(callId, amount).run(connection);
            holding.countDown();
            assertThat(release.await(60, TimeUnit.SECONDS)).isTrue();
            if (failure != null)
            {
                throw failure;
            }
            return answer;
        };
    }

    /** Until {@code count} claims of this test's ledger have started (the last may be waiting in the database). */
    private void awaitClaims(final int count)
    {
        final String claim = "INSERT INTO " + ledgerTable + " (idempotency_key, created_at";
        await().atMost(Duration.ofSeconds(30)).until(() -> counting.count(claim) == count);
    }

    private int runs(final String callId)
    {
        final AtomicInteger count = runs.get(callId);
        return count == null ? 0 : count.get();
    }

    private long written(final String callId) throws SQLException
    {
        return TestDatabase.number(database().dataSource(),
            "SELECT COUNT(*) FROM " + writes + " WHERE call_id = '" + callId + "'");
    }

    private Instant expiry(final String key) throws SQLException
    {
        try (Connection connection = database().dataSource().getConnection();
            PreparedStatement select = connection.prepareStatement(
                "SELECT expires_at FROM " + ledgerTable + " WHERE idempotency_key = ?"))
        {
            select.setString(1, key);
            try (java.sql.ResultSet row = select.executeQuery())
            {
                assertThat(row.next()).as("an entry of " + key).isTrue();
                return row.getObject(1, java.time.OffsetDateTime.class).toInstant();
            }
        }
    }

    private long ledgerRows() throws SQLException
    {
        return TestDatabase.number(database().dataSource(), "SELECT COUNT(*) FROM " + ledgerTable);
    }

    private long ledgerStatements()
    {
        return counting.statements().stream().filter(sql -> sql.contains(" " + ledgerTable + " ")).count();
    }

    private LedgerAnswer stored(final String key) throws Exception
    {
        return new DataSourceTransactions(database().dataSource())
            .inTransaction(connection -> ledger.find(connection, key));
    }

    private static String text(final LedgerAnswer answer)
    {
        return new String(answer.bytes(), StandardCharsets.UTF_8);
    }

    /** A checked application error: by the default rule its transaction commits, and it is the answer. */
    static final class Refused extends Exception
    {
        private static final long serialVersionUID = 1L;

        Refused(final String message)
        {
            super(message);
        }
    }
}
