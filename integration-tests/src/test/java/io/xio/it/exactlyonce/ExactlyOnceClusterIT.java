package io.xio.it.exactlyonce;

import io.xio.engine.CallOptions;
import io.xio.ledger.JdbcExecutionLedger;
import io.xio.ledger.LedgerSchema;
import io.xio.ledger.LocalPostgres;
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
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Exactly-once across servers, as processes: three servers ({@link LedgerServerMain}) sharing one real PostgreSQL,
 * each behind a relay ({@link TcpRelay}), and a cluster client with 4 writer threads making non-idempotent
 * exactly-once writes continuously, while one server after another is killed with SIGKILL in the middle of a write
 * (and restarted on its port) and once a partition hides a server that still runs. Counted from the database write
 * by write: no call fails, every write has exactly one row, none two, and some ran on a retry after their first
 * attempt died. The same run without the feature (servers without the ledger, plain calls) shows what it removes:
 * calls that fail saying they may have run. Both runs' figures are printed side by side. Skipped, with the reason,
 * where PostgreSQL's binaries are missing (CI installs them and requires them).
 */
@ExtendWith(LocalPostgres.Extension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExactlyOnceClusterIT
{
    private static final int SERVERS = 3;
    private static final int WRITERS = 4;
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    /** Longer than the client takes to notice a silent connection. */
    private static final Duration PARTITION = LedgerCluster.KEEPALIVE_TIMEOUT.multipliedBy(3);
    /** The servers killed, in order, one at a time; the partition hides a running one between the second and third. */
    private static final int[] KILLED = {0, 1, 2};
    private static final int PARTITIONED = 0;
    /** Answers a server must give before it is disturbed, and after, to show it takes calls. */
    private static final int ANSWERS = 20;
    private static final Duration RECOVERY = Duration.ofSeconds(30);

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
            System.out.println("[exactly-once] both runs, counted from the database write by write:\n" +
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
        final String jdbcUrl = database("with_ledger", true);

        final Tally tally = run("with ledger", jdbcUrl, true, CallOptions.timeout(DEADLINE).withExactlyOnce(true));

        assertThat(tally.kills()).isEqualTo(KILLED.length);
        assertThat(tally.partitions()).isEqualTo(1);
        assertThat(tally.failed()).as("failed calls: %s", tally.failures()).isZero();
        assertThat(tally.duplicates()).as("writes executed twice").isZero();
        assertThat(tally.lost()).as("writes that succeeded with no row").isZero();
        assertThat(tally.notRunOnce()).as("writes attempted without exactly one row").isZero();
        assertThat(tally.answeredByOther()).as("answers not from the server whose row it is").isZero();
        assertThat(tally.strayRows()).isZero();
        assertThat(tally.ledgerEntries()).as("one ledger entry per write").isEqualTo(tally.writes());
        assertThat(tally.ranByRetry()).as("writes whose first attempt died with its server ran on a retry")
            .isPositive();
    }

    @Test
    @Order(2)
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void withoutTheLedgerAKilledServerFailsWritesThatMayHaveRun() throws Exception
    {
        final String jdbcUrl = database("without_ledger", false);

        final Tally tally = run("without ledger", jdbcUrl, false, CallOptions.timeout(DEADLINE));

        assertThat(tally.kills()).isEqualTo(KILLED.length);
        assertThat(tally.failedMayHaveRun()).as("plain calls in flight on a killed server fail, and say they may " +
            "have run: what the feature removes").isPositive();
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
     * One run: the cluster, the writers, the kills and the partition, then the writers stopped and every write
     * counted against the database; prints the run's figures.
     */
    private static Tally run(final String name, final String jdbcUrl, final boolean ledger, final CallOptions options)
        throws Exception
    {
        int kills = 0;
        int partitions = 0;
        final List<Writers.Outcome> outcomes;
        try (LedgerCluster cluster = LedgerCluster.start(jdbcUrl, ledger, SERVERS))
        {
            final Writers writers = new Writers(cluster.client(), options, ledger ? "L" : "P", WRITERS);
            writers.start();
            try
            {
                for (int i = 0; i < KILLED.length; i++)
                {
                    if (i == KILLED.length - 1)
                    {
                        partition(cluster, writers, PARTITIONED);
                        partitions++;
                    }
                    kill(cluster, writers, KILLED[i], jdbcUrl);
                    kills++;
                }
                final long succeeded = writers.succeeded();
                await().atMost(RECOVERY).until(() -> writers.succeeded() >= succeeded + ANSWERS);
            }
            finally
            {
                outcomes = writers.stop(DEADLINE.plusSeconds(10));
            }
        }
        final Tally tally = Tally.count(name, outcomes, jdbcUrl, ledger ? JdbcExecutionLedger.DEFAULT_TABLE : null,
            kills, partitions);
        RUNS.add(tally);
        System.out.println("[exactly-once] " + name + ", counted from the database write by write:\n" +
            Tally.table(List.of(tally)));
        return tally;
    }

    /**
     * Kills server {@code index} with SIGKILL in the middle of a write (a transaction of it open in the database),
     * restarts it on its port, and awaits its answers.
     */
    private static void kill(final LedgerCluster cluster, final Writers writers, final int index,
        final String jdbcUrl) throws Exception
    {
        final ServerProcess victim = cluster.server(index);
        awaitAnswers(cluster, writers, victim.name());
        awaitTransactionInFlight(jdbcUrl, victim.name());
        victim.kill();
        System.out.println("[exactly-once] SIGKILL " + victim + " with a write in its transaction");
        victim.start();
        awaitAnswers(cluster, writers, victim.name());
        System.out.println("[exactly-once] " + victim.name() + " restarted and answering");
    }

    /**
     * Hides server {@code index} behind a paused relay for longer than the client takes to notice, while it runs,
     * then lets it be seen again and awaits its answers.
     */
    private static void partition(final LedgerCluster cluster, final Writers writers, final int index)
        throws Exception
    {
        final ServerProcess hidden = cluster.server(index);
        awaitAnswers(cluster, writers, hidden.name());
        System.out.println("[exactly-once] partition: " + hidden.name() + " hidden for " + PARTITION);
        cluster.relay(index).pause();
        try
        {
            Thread.sleep(PARTITION.toMillis());
        }
        finally
        {
            cluster.relay(index).resume();
        }
        awaitAnswers(cluster, writers, hidden.name());
        System.out.println("[exactly-once] partition over: " + hidden.name() + " answering again");
    }

    /**
     * Waits until {@code server} has a transaction open between statements (a write's work lingers after its row),
     * as PostgreSQL sees it, so that a kill now finds a write in flight.
     */
    private static void awaitTransactionInFlight(final String jdbcUrl, final String server) throws SQLException
    {
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
            PreparedStatement query = connection.prepareStatement("SELECT COUNT(*) FROM pg_stat_activity " +
                "WHERE application_name = ? AND state = 'idle in transaction'"))
        {
            query.setString(1, server);
            await().atMost(RECOVERY).pollInterval(Duration.ofMillis(1)).until(() ->
            {
                try (ResultSet result = query.executeQuery())
                {
                    return result.next() && result.getLong(1) > 0;
                }
            });
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
