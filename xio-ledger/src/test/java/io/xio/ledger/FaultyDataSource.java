package io.xio.ledger;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * A data source whose connections fail as a test tells them to: commits (before or after committing), rollbacks,
 * statements of a given SQL, and cancels that hang; and that counts aborted connections and cancelled statements.
 * Each fault is armed for a number of times, then everything passes through to the real connection. A failure
 * carries SQLState {@value #CONNECTION_FAILURE}, as a lost connection does. Thread-safe.
 */
final class FaultyDataSource implements DataSource
{
    static final String CONNECTION_FAILURE = "08006";

    private static final Set<String> EXECUTES = Set.of("execute", "executeQuery", "executeUpdate",
        "executeLargeUpdate");

    private final DataSource target;
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
        this.target = target;
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
    public Connection getConnection() throws SQLException
    {
        return connection(target.getConnection());
    }

    @Override
    public Connection getConnection(final String username, final String password) throws SQLException
    {
        return connection(target.getConnection(username, password));
    }

    private Connection connection(final Connection connection)
    {
        return (Connection)Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
            (proxy, method, arguments) ->
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
                final Object result = invoke(connection, method, arguments);
                if (result instanceof PreparedStatement prepared)
                {
                    return statement(prepared, PreparedStatement.class, (String)arguments[0]);
                }
                if (result instanceof Statement statement)
                {
                    return statement(statement, Statement.class, null);
                }
                return result;
            });
    }

    private <T extends Statement> T statement(final T statement, final Class<T> type, final String prepared)
    {
        return type.cast(Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type},
            (proxy, method, arguments) ->
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
                if (EXECUTES.contains(method.getName()))
                {
                    final String sql = prepared != null ? prepared : arguments == null ? "" : (String)arguments[0];
                    final String failing = failingSql;
                    if (failing != null && sql.startsWith(failing) && armed(statementFailures))
                    {
                        throw new SQLException("the connection broke running " + sql + " (test)", CONNECTION_FAILURE);
                    }
                }
                return invoke(statement, method, arguments);
            }));
    }

    /** Whether one more of these faults is due, counting it. */
    private static boolean armed(final AtomicInteger remaining)
    {
        return remaining.getAndUpdate(count -> Math.max(0, count - 1)) > 0;
    }

    private static Object invoke(final Object target, final Method method, final Object[] arguments)
        throws Throwable
    {
        try
        {
            return method.invoke(target, arguments);
        }
        catch (final InvocationTargetException ex)
        {
            throw ex.getCause();
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException
    {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(final PrintWriter out) throws SQLException
    {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(final int seconds) throws SQLException
    {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException
    {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException
    {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(final Class<T> type) throws SQLException
    {
        return target.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(final Class<?> type) throws SQLException
    {
        return target.isWrapperFor(type);
    }

    @Override
    public String toString()
    {
        return "faulty " + target;
    }
}
