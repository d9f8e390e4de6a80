package io.xio.it.exactlyonce;

import io.xio.engine.CallOptions;
import io.xio.ledger.JdbcExecutionLedger;
import io.xio.ledger.LedgerSchema;
import io.xio.ledger.LocalPostgres;
import io.xio.ledger.LocalPostgresExtension;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Exactly-once across servers, as processes: three servers ({@link LedgerServerMain}) sharing one real PostgreSQL,
 * each behind a relay ({@link TcpRelay}), and a cluster client with 4 writer threads making non-idempotent writes
 * continuously, while each server in turn is killed with SIGKILL and restarted, and then a partition hides a server
 * that still runs. Every disturbance is certain to find writes in the middle of their transaction: a
 * {@link WriteGate} holds the server's writes after their row until PostgreSQL shows one waiting there, and only then
 * comes the kill or the partition. The partition lets its held writes go on only once the client has noticed it and
 * every writer has finished a call since: their retries have committed elsewhere, so each held first attempt runs on
 * into a key another server committed. Three runs, counted from the database write by write and printed side by side:
 * exactly-once calls on servers with the execution ledger (no call fails, every write has exactly one row, some ran
 * on a retry, and the servers replayed the retries' answers to the held first attempts); the same calls on servers
 * without it (the held first attempts commit too: writes with two rows, so that count can fail); and plain calls on
 * servers without it (calls fail saying they may have run, and some of them ran). Skipped, with the reason, where
 * PostgreSQL's binaries are missing (CI installs them and requires them).
 */
@ExtendWith(LocalPostgresExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExactlyOnceClusterIT
{
    private static final int SERVERS = 3;
    private static final int WRITERS = 4;
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    /** The servers killed, in order, one at a time. */
    private static final int[] KILLED = {0, 1, 2};
    /** The server the partition hides, after the kills: it stops cleanly at the end, with what it counted. */
    private static final int PARTITIONED = 0;
    /** Answers a server must give before it is disturbed, and after, to show it takes calls. */
    private static final int ANSWERS = 20;
    private static final Duration RECOVERY = Duration.ofSeconds(30);
    /** The longest the client may take to stop taking a hidden server for active (about 4 s is expected). */
    private static final Duration NOTICE = Duration.ofSeconds(20);
    /**
     * The longest the partition waits for every writer to finish a call once the client noticed it, before it lets the
     * held writes go on all the same: well within {@link #DEADLINE}, for a held write that was itself a retry holding
     * its key's claim, whose own retry waits for that claim.
     */
    private static final Duration FAILOVER = Duration.ofSeconds(5);

    private static LocalPostgres postgres;
    private static final List<Tally> RUNS = new ArrayList<>();

    @BeforeAll
    static void startPostgres() throws Exception
    {
        postgres = LocalPostgres.start();
    }

    @AfterAll
    static void stopPostgres() throws Exception
    {
        if (!RUNS.isEmpty())
        {
            System.out.println("[exactly-once] the runs, counted from the database write by write:\n" +
                Tally.table(RUNS));
        }
        if (postgres != null)
        {
            postgres.close();
        }
    }

    @Test
    @Order(1)
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void exactlyOnceWritesThroughKilledServersAndAPartitionNeitherFailNorGetLostNorRunTwice() throws Exception
    {
        final Tally tally = run("exactly-once + ledger", database("with_ledger", true), true,
            CallOptions.timeout(DEADLINE).withExactlyOnce(true), "L");

        assertThat(tally.failed()).as("failed calls: %s", tally.failures()).isZero();
        assertThat(tally.duplicates()).as("writes executed twice").isZero();
        assertThat(tally.lost()).as("writes that succeeded with no row").isZero();
        assertThat(tally.notRunOnce()).as("writes attempted without exactly one row").isZero();
        assertThat(tally.answeredByOther()).as("answers not from the server whose row it is").isZero();
        assertThat(tally.strayRows()).isZero();
        assertThat(tally.ledgerEntries()).as("one ledger entry per write").isEqualTo(tally.writes());
        assertThat(tally.ranByRetry()).as("writes held in a killed server's transaction ran on a retry")
            .isPositive();
        assertThat(tally.servers().replayed()).as("first attempts held across the partition met the key their " +
            "retry had committed on another server, and replayed its answer instead of committing again")
            .isPositive();
    }

    @Test
    @Order(2)
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void exactlyOnceCallsOnServersWithoutTheLedgerRunTwiceWhenTheirFirstAttemptOutlivesThePartition() throws Exception
    {
        final Tally tally = run("exactly-once, no ledger", database("keys_without_ledger", false), false,
            CallOptions.timeout(DEADLINE).withExactlyOnce(true), "K");

        assertThat(tally.duplicates()).as("writes held across the partition, retried elsewhere, then committed on " +
            "the hidden server too: what the ledger prevents, and proof that the count of duplicates can fail")
            .isPositive();
        assertThat(tally.lost()).as("a call that succeeded ran").isZero();
    }

    @Test
    @Order(3)
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void plainCallsOnAKilledOrHiddenServerFailSayingTheyMayHaveRunAndSomeDid() throws Exception
    {
        final Tally tally = run("plain calls, no ledger", database("without_ledger", false), false,
            CallOptions.timeout(DEADLINE), "P");

        assertThat(tally.failedMayHaveRun()).as("plain calls in flight on a killed or hidden server fail, and say " +
            "they may have run: what the feature removes").isPositive();
        assertThat(tally.failedButRan()).as("calls held across the partition failed once the client gave up on the " +
            "server's session, then committed there").isPositive();
        assertThat(tally.lost()).as("a plain call that succeeded ran").isZero();
    }

    /** A database of its own for one run, with the ledger's table (if {@code ledger}) and the application's. */
    private static String database(final String name, final boolean ledger) throws Exception
    {
        final String jdbcUrl = postgres.createDatabase(name);
        final PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(jdbcUrl);
        if (ledger)
        {
            LedgerSchema.create(dataSource);
        }
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement())
        {
            statement.execute(LedgerServerMain.applicationTableDdl());
        }
        return jdbcUrl;
    }

    /**
     * One run: the cluster ({@code ledger}: its servers keep the execution ledger), the writers making calls with
     * {@code options}, the kills and the partition, then the writers stopped, the cluster closed and every write
     * counted against the database; prints the run's figures.
     */
    private static Tally run(final String name, final String jdbcUrl, final boolean ledger, final CallOptions options,
        final String prefix) throws Exception
    {
        int heldAtKills = 0;
        final int heldInPartition;
        final List<Writers.Outcome> outcomes;
        final LedgerCluster cluster = LedgerCluster.start(jdbcUrl, ledger, SERVERS);
        try (cluster; WriteGate gate = new WriteGate(jdbcUrl))
        {
            final Writers writers = new Writers(cluster.client(), options, prefix, WRITERS);
            writers.start();
            try
            {
                for (final int index : KILLED)
                {
                    heldAtKills += kill(cluster, writers, gate, index);
                }
                heldInPartition = partition(cluster, writers, gate, PARTITIONED);
                final long succeeded = writers.succeeded();
                await().atMost(RECOVERY).until(() -> writers.succeeded() >= succeeded + ANSWERS);
            }
            finally
            {
                outcomes = writers.stop(DEADLINE.plusSeconds(10));
            }
        }
        final Tally tally = Tally.count(name, outcomes, jdbcUrl, ledger ? JdbcExecutionLedger.DEFAULT_TABLE : null,
            heldAtKills, heldInPartition, ledger ? cluster.counts() : null);
        RUNS.add(tally);
        System.out.println("[exactly-once] " + name + ", counted from the database write by write:\n" +
            Tally.table(List.of(tally)));
        return tally;
    }

    /**
     * Kills server {@code index} with SIGKILL while writes of it wait at the gate in the middle of their transaction,
     * restarts it (on a fresh port, where its relay then points) and awaits its answers; returns how many writes it
     * held.
     */
    private static int kill(final LedgerCluster cluster, final Writers writers, final WriteGate gate, final int index)
        throws Exception
    {
        final ServerProcess victim = cluster.server(index);
        awaitAnswers(cluster, writers, victim.name());
        final int held;
        gate.hold(victim.name());
        try
        {
            held = gate.awaitHeldWrite(victim.name(), RECOVERY);
            victim.kill();
        }
        finally
        {
            gate.release(victim.name()); // its orphaned transactions go on, only to find their client gone
        }
        System.out.println("[exactly-once] SIGKILL " + victim + " with " + held + " writes in their transaction");
        cluster.restart(index);
        awaitAnswers(cluster, writers, victim.name());
        System.out.println("[exactly-once] " + victim + " restarted and answering");
        return held;
    }

    /**
     * Hides server {@code index}, which still runs, behind its paused relay while writes of it wait at the gate in the
     * middle of their transaction; awaits the client noticing (the endpoint no longer active) and every writer
     * finishing a call since (the held calls ended elsewhere: retried, or failed), then lets the held writes go on,
     * awaits them, and only then ends the partition and awaits the server's answers. Returns how many writes it held.
     */
    private static int partition(final LedgerCluster cluster, final Writers writers, final WriteGate gate,
        final int index) throws Exception
    {
        final ServerProcess hidden = cluster.server(index);
        final TcpRelay relay = cluster.relay(index);
        awaitAnswers(cluster, writers, hidden.name());
        final int held;
        boolean released = false;
        gate.hold(hidden.name());
        try
        {
            held = gate.awaitHeldWrite(hidden.name(), RECOVERY);
            relay.pause();
            System.out.println("[exactly-once] partition: " + hidden.name() + " hidden with " + held +
                " writes in their transaction");
            awaitInactive(cluster, index);
            final long[] noticed = writers.completions();
            try
            {
                await().atMost(FAILOVER).pollInterval(Duration.ofMillis(10))
                    .until(() -> writers.eachCompletedSince(noticed));
            }
            catch (final ConditionTimeoutException ex)
            {
                System.out.println("[exactly-once] not every writer finished a call within " + FAILOVER + " of the " +
                    "client noticing the partition: its held writes go on all the same");
            }
            gate.release(hidden.name());
            released = true;
            gate.awaitNoHeldWrite(hidden.name(), RECOVERY);
        }
        finally
        {
            try
            {
                if (!released)
                {
                    gate.release(hidden.name());
                }
            }
            finally
            {
                relay.resume();
            }
        }
        System.out.println("[exactly-once] " + hidden.name() + "'s held writes went on; partition over");
        awaitAnswers(cluster, writers, hidden.name());
        System.out.println("[exactly-once] " + hidden.name() + " answering again");
        return held;
    }

    /** Waits until the client no longer takes server {@code index} for active. */
    private static void awaitInactive(final LedgerCluster cluster, final int index)
    {
        try
        {
            await().atMost(NOTICE).pollInterval(Duration.ofMillis(10)).until(() -> !cluster.isActive(index));
        }
        catch (final ConditionTimeoutException ex)
        {
            throw new AssertionError("the client still took " + cluster.server(index).name() + " for active " +
                NOTICE + " into its partition: " + cluster.describe(), ex);
        }
    }

    /** Waits until {@code server} has answered {@value #ANSWERS} more writes. */
    private static void awaitAnswers(final LedgerCluster cluster, final Writers writers, final String server)
    {
        final long before = writers.answeredBy(server);
        try
        {
            await().atMost(RECOVERY).pollInterval(Duration.ofMillis(20))
                .until(() -> writers.answeredBy(server) >= before + ANSWERS);
        }
        catch (final ConditionTimeoutException ex)
        {
            throw new AssertionError(server + " did not answer " + ANSWERS + " more writes within " + RECOVERY +
                "; the client sees " + cluster.describe(), ex);
        }
    }
}
