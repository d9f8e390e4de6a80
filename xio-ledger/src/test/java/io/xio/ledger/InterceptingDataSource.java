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
import java.util.logging.Logger;

/**
 * The base of the tests' data sources that watch or break JDBC calls: everything passes through to another data
 * source, but its connections and their statements come wrapped in proxies that show a subclass each call before it
 * runs ({@link #beforeConnectionCall}, {@link #beforeStatementCall}), which may count it or throw instead of it.
 * Thread-safe as far as the subclass's hooks are.
 */
abstract class InterceptingDataSource implements DataSource
{
    private static final Set<String> EXECUTES = Set.of("execute", "executeQuery", "executeUpdate",
        "executeLargeUpdate", "executeBatch", "executeLargeBatch");

    private final DataSource target;

    InterceptingDataSource(final DataSource target)
    {
        this.target = target;
    }

    /**
     * Called before {@code method} runs on a connection, with its {@code arguments} (null when none); throws to fail
     * the call instead of it. Passes here.
     */
    void beforeConnectionCall(final Connection connection, final Method method, final Object[] arguments)
        throws SQLException
    {
    }

    /**
     * Called before {@code method} runs on a statement; {@code sql} is, for an execute ({@link #executes}), the SQL it
     * runs (the prepared statement's, or the one it names; null for a plain statement's batch), and null for any other
     * call. Throws to fail the call instead of it. Passes here.
     */
    void beforeStatementCall(final Method method, final String sql) throws SQLException, InterruptedException
    {
    }

    /** Whether {@code method} executes SQL: an execute, a query, an update or a batch. */
    static boolean executes(final Method method)
    {
        return EXECUTES.contains(method.getName());
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
                beforeConnectionCall(connection, method, arguments);
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
                beforeStatementCall(method, executes(method) ? executed(prepared, arguments) : null);
                return invoke(statement, method, arguments);
            }));
    }

    /** What an execute runs: the prepared statement's SQL, or the SQL a plain statement's execute names. */
    private static String executed(final String prepared, final Object[] arguments)
    {
        if (prepared != null)
        {
            return prepared;
        }
        return arguments != null ? (String)arguments[0] : null;
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
        return getClass().getSimpleName() + " over " + target;
    }
}
