package io.xio.it.exactlyonce;

import org.awaitility.core.ConditionTimeoutException;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import static org.awaitility.Awaitility.await;

/**
 * Holds one server's writes in the middle of their transaction, so that a kill or a partition is certain to find
 * writes in flight there, and decides when they go on. Every write of a {@link LedgerServerMain} takes, after its row,
 * the shared advisory lock of its server ({@link #PASS}, released with its transaction); {@link #hold} takes that
 * lock exclusively on a connection of the gate's own, so that the server's next writes wait in PostgreSQL, their row
 * uncommitted, until {@link #release}. PostgreSQL shows such a write as a backend with the server's application name
 * waiting for an advisory lock. Locks are per database: the gate's connection is to the run's. Used by the test's
 * thread.
 */
final class WriteGate implements AutoCloseable
{
    /** What a write runs after its row, with its server's name: it waits there while the gate holds the server. */
    static final String PASS = "SELECT pg_advisory_xact_lock_shared(hashtext(?))";
    /** A bound on any statement of the gate, so that nothing here can hang the test. */
    private static final String STATEMENT_TIMEOUT = "SET statement_timeout = '30s'";

    private final Connection connection;
    private final PreparedStatement held;

    WriteGate(final String jdbcUrl) throws SQLException
    {
        connection = DriverManager.getConnection(jdbcUrl);
        try (Statement statement = connection.createStatement())
        {
            statement.execute(STATEMENT_TIMEOUT);
            held = connection.prepareStatement("SELECT COUNT(*) FROM pg_locks l JOIN pg_stat_activity a " +
                "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name = ? " +
                "AND a.datname = current_database()");
        }
        catch (final SQLException ex)
        {
            connection.close();
            throw ex;
        }
    }

    /** Makes {@code server}'s next writes wait after their row; returns once it holds (the writes in flight ended). */
    void hold(final String server) throws SQLException
    {
        try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_lock(hashtext(?))"))
        {
            lock.setString(1, server);
            lock.execute();
        }
    }

    /** Lets {@code server}'s held writes go on; fails if the gate did not hold it. */
    void release(final String server) throws SQLException
    {
        try (PreparedStatement unlock = connection.prepareStatement("SELECT pg_advisory_unlock(hashtext(?))"))
        {
            unlock.setString(1, server);
            try (ResultSet result = unlock.executeQuery())
            {
                if (!result.next() || !result.getBoolean(1))
                {
                    throw new IllegalStateException("the gate did not hold " + server);
                }
            }
        }
    }

    /** Writes of {@code server} waiting at the gate now. */
    int heldWrites(final String server) throws SQLException
    {
        held.setString(1, server);
        try (ResultSet result = held.executeQuery())
        {
            result.next();
            return result.getInt(1);
        }
    }

    /** Waits, at most {@code within}, until a write of {@code server} waits at the gate; returns how many do. */
    int awaitHeldWrite(final String server, final Duration within) throws SQLException
    {
        try
        {
            await().atMost(within).pollInSameThread().pollInterval(Duration.ofMillis(5))
                .until(() -> heldWrites(server) > 0);
        }
        catch (final ConditionTimeoutException ex)
        {
            throw new AssertionError("no write of " + server + " reached the gate within " + within, ex);
        }
        return heldWrites(server);
    }

    /** Waits, at most {@code within}, until no write of {@code server} waits at the gate (after a release). */
    void awaitNoHeldWrite(final String server, final Duration within)
    {
        try
        {
            await().atMost(within).pollInSameThread().pollInterval(Duration.ofMillis(5))
                .until(() -> heldWrites(server) == 0);
        }
        catch (final ConditionTimeoutException ex)
        {
            throw new AssertionError("writes of " + server + " still waited at the gate " + within +
                " after its release", ex);
        }
    }

    /** Closes its connection, which releases whatever it still holds. */
    @Override
    public void close() throws SQLException
    {
        connection.close();
    }
}
