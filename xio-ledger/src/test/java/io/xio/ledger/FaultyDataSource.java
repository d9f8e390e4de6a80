package io.xio.ledger;

import javax.sql.DataSource;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A data source whose connections fail as a test tells them to: commits (before or after committing), rollbacks,
 * statements of a given SQL, and cancels that hang; and that counts aborted connections and cancelled statements.
 * Each fault is armed for a number of times, then everything passes through to the real connection. A failure
 * carries SQLState {@value #CONNECTION_FAILURE}, as a lost connection does. Thread-safe.
 */
final class FaultyDataSource extends InterceptingDataSource
{
    static final String CONNECTION_FAILURE = "08006";

    private final AtomicInteger commitFailures = new AtomicInteger();
    private final AtomicInteger rollbackFailures = new AtomicInteger();
    private final AtomicInteger statementFailures = new AtomicInteger();
    private final AtomicInteger aborts = new AtomicInteger();
    private final AtomicInteger cancels = new AtomicInteger();
    private volatile boolean commitFirst;
    private volatile String failingSql;
    private volatile CountDownLatch cancelGate;

    FaultyDataSource(final DataSource target)
    {
        super(target);
    }

    /** The next {@code times} commits throw; after committing when {@code afterCommitting}, else without. */
    void failCommits(final int times, final boolean afterCommitting)
    {
        commitFirst = afterCommitting;
        commitFailures.set(times);
    }

    /** The next {@code times} rollbacks throw without rolling back. */
    void failRollbacks(final int times)
    {
        rollbackFailures.set(times);
    }

    /** The next {@code times} statements whose SQL starts with {@code sqlStart} throw instead of running. */
    void failStatements(final String sqlStart, final int times)
    {
        failingSql = sqlStart;
        statementFailures.set(times);
    }

    /** Every statement cancel waits for {@code gate} before it goes on, as a driver's does for an unreachable host. */
    void holdCancels(final CountDownLatch gate)
    {
        cancelGate = gate;
    }

    /** Connections aborted through this data source. */
    int aborts()
    {
        return aborts.get();
    }

    /** Statement cancels asked of this data source's statements. */
    int cancels()
    {
        return cancels.get();
    }

    @Override
    void beforeConnectionCall(final Connection connection, final Method method, final Object[] arguments)
        throws SQLException
    {
        switch (method.getName())
        {
            case "commit":
                if (armed(commitFailures))
                {
                    if (commitFirst)
                    {
                        connection.commit();
                    }
                    throw new SQLException("the commit's answer was lost (test)", CONNECTION_FAILURE);
                }
                break;
            case "rollback":
                if (arguments == null && armed(rollbackFailures))
                {
                    throw new SQLException("the rollback failed (test)", CONNECTION_FAILURE);
                }
                break;
            case "abort":
                aborts.incrementAndGet();
                break;
            default:
                break;
        }
    }

    @Override
    void beforeStatementCall(final Method method, final String sql) throws SQLException, InterruptedException
    {
        if ("cancel".equals(method.getName()))
        {
            cancels.incrementAndGet();
            final CountDownLatch gate = cancelGate;
            if (gate != null && !gate.await(60, TimeUnit.SECONDS))
            {
                throw new SQLException("the test never opened the cancel gate");
            }
        }
        final String failing = failingSql;
        if (sql != null && failing != null && sql.startsWith(failing) && armed(statementFailures))
        {
            throw new SQLException("the connection broke running " + sql + " (test)", CONNECTION_FAILURE);
        }
    }

    /** Whether one more of these faults is due, counting it. */
    private static boolean armed(final AtomicInteger remaining)
    {
        return remaining.getAndUpdate(count -> Math.max(0, count - 1)) > 0;
    }
}
