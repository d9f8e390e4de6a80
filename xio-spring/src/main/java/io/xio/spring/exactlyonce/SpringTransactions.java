package io.xio.spring.exactlyonce;

import io.xio.ledger.TransactionalWork;
import io.xio.ledger.Transactions;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.util.Objects;

/**
 * The execution ledger's transactions as the application's own: each one a {@link TransactionTemplate} of its
 * {@link PlatformTransactionManager} (propagation REQUIRED, so the service method's {@code @Transactional} and its
 * {@code JdbcTemplate} or JPA writes join it), and the connection the ledger writes on the one that transaction
 * bound to the {@link DataSource} ({@link DataSourceUtils#getConnection}), so that both commit or roll back together.
 * Any exception the work throws rolls the transaction back and is rethrown as it was. A connection that is not the
 * transaction's (a manager of another data source) is in autocommit mode, which the ledger refuses before writing.
 * Thread-safe: each transaction runs on the calling thread.
 */
public final class SpringTransactions implements Transactions
{
    private final TransactionTemplate template;
    private final DataSource dataSource;

    /** Transactions of {@code manager} as {@code definition} says, whose propagation must be REQUIRED. */
    public SpringTransactions(final PlatformTransactionManager manager, final DataSource dataSource,
        final TransactionDefinition definition)
    {
        if (definition.getPropagationBehavior() != TransactionDefinition.PROPAGATION_REQUIRED)
        {
            throw new IllegalArgumentException("the ledger's transactions propagate as REQUIRED, not " +
                definition.getPropagationBehavior());
        }
        this.template = new TransactionTemplate(Objects.requireNonNull(manager, "manager"), definition);
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /** Transactions of {@code manager} with the default definition (REQUIRED, the database's isolation). */
    public SpringTransactions(final PlatformTransactionManager manager, final DataSource dataSource)
    {
        this(manager, dataSource, TransactionDefinition.withDefaults());
    }

    @Override
    public <T> T inTransaction(final TransactionalWork<T> work) throws Exception
    {
        try
        {
            return template.execute(status ->
            {
                final java.sql.Connection connection = DataSourceUtils.getConnection(dataSource);
                try
                {
                    return work.run(connection);
                }
                catch (final RuntimeException | Error ex)
                {
                    throw ex;
                }
                catch (final Exception ex)
                {
                    throw new Checked(ex); // the template rolls back on what is unchecked
                }
                finally
                {
                    DataSourceUtils.releaseConnection(connection, dataSource);
                }
            });
        }
        catch (final Checked checked)
        {
            throw checked.exception;
        }
    }

    @Override
    public String toString()
    {
        return "Spring transactions of " + template.getTransactionManager() + " on " + dataSource;
    }

    /** A checked exception of the work, carried through the template (which rolled back) and thrown as it was. */
    private static final class Checked extends RuntimeException
    {
        private static final long serialVersionUID = 1L;
        private final transient Exception exception;

        Checked(final Exception exception)
        {
            super(null, null, false, false);
            this.exception = exception;
        }

        @Override
        public synchronized @Nullable Throwable getCause()
        {
            return exception;
        }
    }
}
