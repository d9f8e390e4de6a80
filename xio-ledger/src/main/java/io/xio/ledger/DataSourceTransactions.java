package io.xio.ledger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Plain JDBC transactions over a {@link DataSource}, for applications without a transaction manager: each
 * transaction takes a connection of its own (give it a pooling data source), turns autocommit off, hands the
 * connection to the work, commits or rolls back, and gives the connection back as it found it. Thread-safe.
 */
public final class DataSourceTransactions implements Transactions
{
    private static final Logger LOG = LoggerFactory.getLogger(DataSourceTransactions.class);

    private final DataSource dataSource;

    public DataSourceTransactions(final DataSource dataSource)
    {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    @Override
    public <T> T inTransaction(final TransactionalWork<T> work) throws Exception
    {
        try (Connection connection = dataSource.getConnection())
        {
            final boolean autoCommit = connection.getAutoCommit();
            if (autoCommit)
            {
                connection.setAutoCommit(false);
            }
            try
            {
                final T result;
                try
                {
                    result = work.run(connection);
                }
                catch (final Throwable ex)
                {
                    rollBack(connection, ex);
                    throw ex;
                }
                connection.commit();
                return result;
            }
            finally
            {
                if (autoCommit)
                {
                    restoreAutoCommit(connection);
                }
            }
        }
    }

    /**
     * Gives a pool the connection back as it lent it. A failure here changes nothing the transaction did, so it is
     * logged, not thrown: the caller must not take a committed call for a failed one (the pool drops a broken
     * connection on its own).
     */
    private static void restoreAutoCommit(final Connection connection)
    {
        try
        {
            connection.setAutoCommit(true);
        }
        catch (final SQLException ex)
        {
            LOG.warn("turning autocommit back on after a transaction failed", ex);
        }
    }

    private static void rollBack(final Connection connection, final Throwable cause)
    {
        try
        {
            connection.rollback();
        }
        catch (final SQLException ex)
        {
            cause.addSuppressed(ex);
        }
    }

    @Override
    public String toString()
    {
        return "transactions on " + dataSource;
    }
}
