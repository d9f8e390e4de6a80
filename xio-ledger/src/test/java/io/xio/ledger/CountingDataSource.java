package io.xio.ledger;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;

/**
 * A data source that counts the statements executed through it: the SQL of each, in the order they were started
 * (when they start, so a statement still waiting in the database shows). A thin proxy over the connections and
 * statements of another data source; everything else passes through. Thread-safe.
 */
public final class CountingDataSource implements DataSource
{
    private static final Set<String> EXECUTES = Set.of("execute", "executeQuery", "executeUpdate",
        "executeLargeUpdate", "executeBatch", "executeLargeBatch");

    private final DataSource target;
    private final List<String> started = new ArrayList<>();

    public CountingDataSource(final DataSource target)
    {
        this.target = target;
    }

    /** The SQL of every statement started since the last {@link #clear()}, in order. */
    public List<String> statements()
    {
        synchronized (started)
        {
            return List.copyOf(started);
        }
    }

    /** How many statements started since the last {@link #clear()} contain {@code text} (case-insensitive). */
    public long count(final String text)
    {
        final String wanted = text.toLowerCase(java.util.Locale.ROOT);
        return statements().stream().filter(sql -> sql.toLowerCase(java.util.Locale.ROOT).contains(wanted)).count();
    }

    public void clear()
    {
        synchronized (started)
        {
            started.clear();
        }
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
        final InvocationHandler counting = (proxy, method, arguments) ->
        {
            if (EXECUTES.contains(method.getName()))
            {
                synchronized (started)
                {
                    started.add(prepared != null ? prepared : arguments == null ? "batch" : (String)arguments[0]);
                }
            }
            return invoke(statement, method, arguments);
        };
        return type.cast(Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, counting));
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
        return "counting " + target;
    }
}
