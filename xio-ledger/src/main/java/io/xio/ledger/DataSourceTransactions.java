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
 * connection to the work, commits or rolls back, and gives the connection back as it found it. A commit that fails is
 * followed by a rollback. A rollback that fails leaves autocommit off (turning it on would commit what is open) and
 * aborts the connection ({@link Connection#abort}: closed for good, where the driver or pool supports it; closed as
 * usual otherwise), so that the database rolls the transaction back when the connection goes; the failure is kept as
 * suppressed by the error thrown. Thread-safe.
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
            final T result;
            try
            {
                result = work.run(connection);
                connection.commit();
            }
            catch (final Throwable ex)
            {
                // The work's failure, or the commit's: either way nothing may commit from here on.
                if (rolledBack(connection, ex) && autoCommit)
                {
                    restoreAutoCommit(connection);
                }
                throw ex;
            }
            if (autoCommit)
            {
                restoreAutoCommit(connection);
            }
            return result;
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

    /** Rolls back; when that fails, aborts the connection instead and says so (false). */
    private static boolean rolledBack(final Connection connection, final Throwable cause)
    {
        try
        {
            connection.rollback();
            return true;
        }
        catch (final SQLException | RuntimeException ex)
        {
            cause.addSuppressed(ex);
        }
        LOG.warn("rolling back a transaction failed: its connection is aborted, so that the database rolls it back",
            cause);
        try
        {
            connection.abort(Runnable::run);
        }
        catch (final SQLException | RuntimeException ex)
        {
            // Closed at the end all the same; H2's abort does nothing, its close rolls back.
            cause.addSuppressed(ex);
        }
        return false;
    }

    @Override
    public String toString()
    {
        return "transactions on " + dataSource;
    }
}
