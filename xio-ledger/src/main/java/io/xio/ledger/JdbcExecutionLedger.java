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
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The execution ledger in one table of the application's database (H2 or PostgreSQL; {@link LedgerSchema} creates
 * it): a row per idempotency key (the primary key), with the answer, when it was made and when it expires. Each step
 * is one prepared statement on the caller's connection. A claim's wait for another transaction that holds the key is
 * cut at the time given ({@link java.sql.Statement#cancel()} from a timer thread, SQLState 57014 on both databases),
 * so it never outlasts its call's deadline. The first use's {@link #record} is not timed, being on every call's path:
 * it meets a held key only when a retry of its call claimed the key meanwhile, and waits for that retry's outcome
 * within the database's own lock timeout.
 *
 * <p>Thread-safe; the timer's thread only cancels statements.
 */
public final class JdbcExecutionLedger implements ExecutionLedger
{
    /** The table's name unless told otherwise. */
    public static final String DEFAULT_TABLE = "xio_execution_ledger";
    /** How long an entry is kept unless told otherwise: a day, far beyond any retry of a call. */
    public static final Duration DEFAULT_TIME_TO_LIVE = Duration.ofHours(24);

    private static final String UNIQUE_VIOLATION = "23505";
    /** A statement cancelled (ours, at the end of a claim's wait) or past PostgreSQL's statement_timeout. */
    private static final String QUERY_CANCELED = "57014";
    /** PostgreSQL's lock_timeout. */
    private static final String LOCK_NOT_AVAILABLE = "55P03";
    /** H2's lock timeout. */
    private static final String H2_LOCK_TIMEOUT = "HYT00";

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
    public boolean record(final Connection connection, final String key, final LedgerAnswer answer)
        throws SQLException
    {
        try (PreparedStatement insert = connection.prepareStatement(table.record))
        {
            final OffsetDateTime now = now();
            insert.setString(1, key);
            insert.setShort(2, (short)answer.kind().code());
            insert.setBytes(3, answer.bytes());
            insert.setObject(4, now);
            insert.setObject(5, now.plus(timeToLive));
            insert.executeUpdate();
            return true;
        }
        catch (final SQLException ex)
        {
            if (UNIQUE_VIOLATION.equals(ex.getSQLState()))
            {
                return false;
            }
            if (waitCut(ex))
            {
                throw new ExecutionInProgressException("another attempt of the call with idempotency key " + key +
                    " holds it, still running, past the database's lock timeout", ex);
            }
            throw ex;
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
            final ClaimCut cut = ClaimCut.after(timer, insert, Math.max(0, wait.toNanos()));
            try
            {
                insert.executeUpdate();
                return true;
            }
            catch (final SQLException ex)
            {
                if (UNIQUE_VIOLATION.equals(ex.getSQLState()))
                {
                    return false;
                }
                if (waitCut(ex))
                {
                    throw new ExecutionInProgressException("another attempt of the call with idempotency key " + key +
                        " is still running: its transaction held the key past this attempt's wait of " + wait, ex);
                }
                throw ex;
            }
            finally
            {
                cut.end();
            }
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

    /** Whether a wait for another transaction's lock was cut short: by our cancel, or the database's timeouts. */
    private static boolean waitCut(final SQLException ex)
    {
        final String state = ex.getSQLState();
        return QUERY_CANCELED.equals(state) || LOCK_NOT_AVAILABLE.equals(state) || H2_LOCK_TIMEOUT.equals(state);
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
         * What cuts a claim's wait at its end: by default one daemon thread shared by the JVM's ledgers, started on
         * the first claim and kept, idle, afterwards. The application's own scheduler may stand in.
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
                final Thread thread = new Thread(task, "xio-ledger-claim-timer");
                thread.setDaemon(true);
                return thread;
            });
            // Nearly every claim ends before its wait: its cut is cancelled, and should not stay queued for hours.
            timer.setRemoveOnCancelPolicy(true);
            return timer;
        }
    }
}
