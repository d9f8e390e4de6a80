package io.xio.spring.exactlyonce;

import io.xio.ledger.TransactionalWork;
import io.xio.ledger.Transactions;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.util.Objects;

/**
 * The execution ledger's transactions as the application's own: each one a {@link TransactionTemplate} of its
 * {@link PlatformTransactionManager} (propagation REQUIRED, so the service method's {@code @Transactional} and its
 * {@code JdbcTemplate} or JPA writes join it), and the connection the ledger writes on the one that transaction
 * bound to the {@link DataSource} ({@link DataSourceUtils#getConnection}), so that both commit or roll back together.
 * Any exception the work throws rolls the transaction back and is rethrown as it was. A transaction that bound no
 * connection of the data source (a manager of another one, a JPA dialect that does not expose its connection) fails
 * the call with {@link IllegalStateException} before anything is written.
 *
 * <p>Each transaction must be the ledger's own, begun here: one already open on the thread (a server interceptor's,
 * a caller's {@code @Transactional}) is refused with {@link IllegalStateException} before the work runs, and marked
 * rollback-only as for any failure inside it. Joined, the ledger could end nothing of it: a duplicate key would only
 * mark it rollback-only, and the stored answer would then be read in that same transaction, which PostgreSQL has
 * aborted, and whose commit fails after the call was answered.
 * Thread-safe: each transaction runs on the calling thread.
 */
public final class SpringTransactions implements Transactions
{
    /** The status of the transaction this thread's work runs in, while it runs. */
    private static final ThreadLocal<TransactionStatus> CURRENT = new ThreadLocal<>();

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
                if (!status.isNewTransaction())
                {
                    throw new IllegalStateException("the execution ledger's transaction of " +
                        template.getTransactionManager() + " would join one already open on this thread (a server " +
                        "interceptor's or a caller's): the ledger must begin and end its own, so the call was " +
                        "refused before it ran. Open no transaction around an exactly-once call; the method's own " +
                        "@Transactional joins the ledger's");
                }
                if (!TransactionSynchronizationManager.hasResource(dataSource))
                {
                    // DataSourceUtils would hand out a connection of its own, which commits apart.
                    throw new IllegalStateException("the transaction of " + template.getTransactionManager() +
                        " bound no connection of " + dataSource + ": the ledger would write outside it (is that " +
                        "manager's DataSource this one, and does its JPA dialect expose its JDBC connection?)");
                }
                final java.sql.Connection connection = DataSourceUtils.getConnection(dataSource);
                final TransactionStatus outer = CURRENT.get();
                CURRENT.set(status);
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
                    CURRENT.set(outer);
                    DataSourceUtils.releaseConnection(connection, dataSource);
                }
            });
        }
        catch (final Checked checked)
        {
            throw checked.exception;
        }
    }

    /**
     * Whether the transaction this thread's work runs in can only roll back, once what it wrote is flushed (a JPA
     * write that breaks a constraint throws here): a {@code @Transactional} the method called marked it so
     * (its exception caught), and committing it would fail after the ledger's writes. False outside such work.
     */
    static boolean rollbackOnlyAfterFlush()
    {
        final TransactionStatus status = CURRENT.get();
        if (status == null)
        {
            return false;
        }
        status.flush();
        return status.isRollbackOnly();
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
