package io.xio.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The execution ledger in one table of the application's database (H2 or PostgreSQL; {@link LedgerSchema} creates
 * it): a row per idempotency key (the primary key), with the answer, when it was made and when it expires. Each step
 * is one prepared statement on the caller's connection.
 *
 * <p>A claim, and a first use's {@link #record} (which meets a held key only when a retry of its call claimed it
 * meanwhile), wait for another transaction that holds the key at most the wait given: on PostgreSQL the statement is
 * cancelled at its end ({@link java.sql.Statement#cancel()}, scheduled on a timer and sent from a thread of the
 * ledger's own, SQLState 57014), or sooner at the session's {@code lock_timeout} if one is set. On H2 the session's
 * lock timeout bounds the wait instead ({@code LOCK_TIMEOUT}, 2 s unless set in the URL or by
 * {@code SET LOCK_TIMEOUT}), whatever the wait given: H2 keeps a cancel that comes as its statement ends on the
 * session's cached command, where it fails the same statement's next run, so the ledger never cancels there. H2 waits
 * by running the insert again and again, on a CPU, until the key is free or the lock timeout passes: keep that short.
 * A wait cut short is an {@link ExecutionInProgressException}.
 *
 * <p>Thread-safe; the timer's thread only schedules cancels.
 */
public final class JdbcExecutionLedger implements ExecutionLedger
{
    /** The table's name unless told otherwise. */
    public static final String DEFAULT_TABLE = "xio_execution_ledger";
    /** How long an entry is kept unless told otherwise: a day, far beyond any retry of a call. */
    public static final Duration DEFAULT_TIME_TO_LIVE = Duration.ofHours(24);

    private static final String UNIQUE_VIOLATION = "23505";
    /** A statement cancelled (ours, at the end of a wait) or past PostgreSQL's statement_timeout. */
    private static final String QUERY_CANCELED = "57014";
    /** PostgreSQL's lock_timeout. */
    private static final String LOCK_NOT_AVAILABLE = "55P03";
    /** H2's lock timeout. */
    private static final String H2_LOCK_TIMEOUT = "HYT00";
    /** The product name H2's driver gives; the ledger never cancels a statement there. */
    private static final String H2 = "H2";

    private final LedgerTable table;
    private final Duration timeToLive;
    private final Clock clock;
    private final ScheduledExecutorService timer;

    private JdbcExecutionLedger(final Builder builder)
    {
        this.table = new LedgerTable(builder.table);
        this.timeToLive = builder.timeToLive;
        this.clock = builder.clock;
        this.timer = builder.timer;
    }

    /** A ledger in {@value #DEFAULT_TABLE}, entries kept {@link #DEFAULT_TIME_TO_LIVE}. */
    public static JdbcExecutionLedger create()
    {
        return builder().build();
    }

    public static Builder builder()
    {
        return new Builder();
    }

    /** The table's name, as given. */
    public String table()
    {
        return table.name;
    }

    public Duration timeToLive()
    {
        return timeToLive;
    }

    @Override
    public boolean record(final Connection connection, final String key, final LedgerAnswer answer,
        final Duration wait) throws SQLException
    {
        try (PreparedStatement insert = connection.prepareStatement(table.record))
        {
            final OffsetDateTime now = now();
            insert.setString(1, key);
            insert.setShort(2, (short)answer.kind().code());
            insert.setBytes(3, answer.bytes());
            insert.setObject(4, now);
            insert.setObject(5, now.plus(timeToLive));
            return insertCut(connection, insert, wait, key);
        }
    }

    @Override
    public boolean claim(final Connection connection, final String key, final Duration wait) throws SQLException
    {
        try (PreparedStatement insert = connection.prepareStatement(table.claim))
        {
            final OffsetDateTime now = now();
            insert.setString(1, key);
            insert.setObject(2, now);
            insert.setObject(3, now.plus(timeToLive));
            return insertCut(connection, insert, wait, key);
        }
    }

    @Override
    public void complete(final Connection connection, final String key, final LedgerAnswer answer)
        throws SQLException
    {
        try (PreparedStatement update = connection.prepareStatement(table.complete))
        {
            update.setShort(1, (short)answer.kind().code());
            update.setBytes(2, answer.bytes());
            update.setString(3, key);
            if (update.executeUpdate() != 1)
            {
                throw new IllegalStateException("the ledger holds no unanswered claim of idempotency key " + key +
                    " to complete: was it claimed in this transaction?");
            }
        }
    }

    @Override
    public LedgerAnswer find(final Connection connection, final String key) throws SQLException
    {
        try (PreparedStatement select = connection.prepareStatement(table.find))
        {
            select.setString(1, key);
            try (ResultSet row = select.executeQuery())
            {
                if (!row.next())
                {
                    return null;
                }
                final short outcome = row.getShort(1);
                if (row.wasNull())
                {
                    throw new IllegalStateException("the ledger's entry of idempotency key " + key + " was " +
                        "committed without an answer: its claim committed apart from its work (autocommit on?)");
                }
                final byte[] bytes = row.getBytes(2);
                return LedgerAnswer.of(LedgerAnswer.Kind.of(outcome), bytes);
            }
        }
    }

    @Override
    public int deleteExpired(final Connection connection, final int limit) throws SQLException
    {
        if (limit < 1)
        {
            throw new IllegalArgumentException("a batch deletes at least 1 entry, not " + limit);
        }
        try (PreparedStatement delete = connection.prepareStatement(table.deleteExpired))
        {
            delete.setObject(1, now());
            delete.setInt(2, limit);
            return delete.executeUpdate();
        }
    }

    /**
     * Runs the insert of {@code key}'s entry, its wait for another transaction that holds the key cut at
     * {@code wait} (see the class comment for H2): true when inserted, false when the key is recorded already.
     */
    private boolean insertCut(final Connection connection, final PreparedStatement insert, final Duration wait,
        final String key) throws SQLException
    {
        final WaitCut cut = H2.equals(connection.getMetaData().getDatabaseProductName()) ? null :
            WaitCut.after(timer, Canceller.INSTANCE, insert, Math.max(0, wait.toNanos()));
        try
        {
            insert.executeUpdate();
            return true;
        }
        catch (final SQLException ex)
        {
            final String state = ex.getSQLState();
            if (UNIQUE_VIOLATION.equals(state))
            {
                return false;
            }
            if (QUERY_CANCELED.equals(state))
            {
                throw new ExecutionInProgressException("another attempt of the call with idempotency key " + key +
                    " is still running: its transaction held the key past this attempt's wait of " + wait +
                    " (or the session's statement timeout)", ex);
            }
            if (LOCK_NOT_AVAILABLE.equals(state) || H2_LOCK_TIMEOUT.equals(state))
            {
                throw new ExecutionInProgressException("another attempt of the call with idempotency key " + key +
                    " is still running: its transaction held the key past the database's lock timeout", ex);
            }
            throw ex;
        }
        finally
        {
            if (cut != null)
            {
                cut.end();
            }
        }
    }

    private OffsetDateTime now()
    {
        return OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
    }

    @Override
    public String toString()
    {
        return "execution ledger in " + table.name + ", entries kept " + timeToLive;
    }

    /** Settings of a {@link JdbcExecutionLedger}. Not thread-safe. */
    public static final class Builder
    {
        private String table = DEFAULT_TABLE;
        private Duration timeToLive = DEFAULT_TIME_TO_LIVE;
        private Clock clock = Clock.systemUTC();
        private ScheduledExecutorService timer;

        private Builder()
        {
        }

        /** The table, {@value #DEFAULT_TABLE} by default: an SQL identifier, optionally after its schema and a dot. */
        public Builder table(final String name)
        {
            this.table = LedgerTable.check(name);
            return this;
        }

        /** How long an entry is kept before {@link LedgerCleaner} may delete it; 24 hours by default. */
        public Builder timeToLive(final Duration value)
        {
            if (value.isNegative() || value.isZero())
            {
                throw new IllegalArgumentException("an entry's time to live is positive, not " + value);
            }
            this.timeToLive = value;
            return this;
        }

        /** The clock that stamps entries and decides which expired; the system's by default. */
        public Builder clock(final Clock value)
        {
            this.clock = Objects.requireNonNull(value, "clock");
            return this;
        }

        /**
         * What schedules the end of a wait for a held key: by default one daemon thread shared by the JVM's ledgers,
         * started on first use and kept, idle, afterwards. The application's own scheduler may stand in; it only
         * schedules, the cancels themselves run on daemon threads of the ledger's own, made as needed.
         */
        public Builder timer(final ScheduledExecutorService value)
        {
            this.timer = Objects.requireNonNull(value, "timer");
            return this;
        }

        public JdbcExecutionLedger build()
        {
            if (timer == null)
            {
                timer = SharedTimer.INSTANCE;
            }
            return new JdbcExecutionLedger(this);
        }
    }

    /** The default timer, made on first use (the holder idiom): one daemon thread for the JVM's ledgers. */
    private static final class SharedTimer
    {
        static final ScheduledExecutorService INSTANCE = start();

        private static ScheduledExecutorService start()
        {
            final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, task ->
            {
                final Thread thread = new Thread(task, "xio-ledger-wait-timer");
                thread.setDaemon(true);
                return thread;
            });
            // Nearly every wait ends before its cut: the cut is cancelled, and should not stay queued for hours.
            timer.setRemoveOnCancelPolicy(true);
            return timer;
        }
    }

    /**
     * Where cancels run: a thread per cancel under way, made on demand and gone after a minute idle, so that a
     * driver blocked sending one (to a database out of reach) holds up only its own.
     */
    private static final class Canceller
    {
        static final ExecutorService INSTANCE = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
            new SynchronousQueue<>(), task ->
            {
                final Thread thread = new Thread(task, "xio-ledger-cancel");
                thread.setDaemon(true);
                return thread;
            });
    }
}
