package io.xio.spring.autoconfigure.ledger;

import io.xio.ledger.LedgerSchema;
import io.xio.spring.autoconfigure.XioProperties;
import io.xio.spring.exactlyonce.TransactionalExactlyOnceCalls;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.core.Ordered;
import org.springframework.transaction.PlatformTransactionManager;

import javax.sql.DataSource;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Creates the execution ledger's table and index when absent in each database the ledger writes in (every
 * {@code DataSource} an exactly-once method's transaction manager binds, and the {@code ExactlyOnceExecution}
 * bean's), as it is told of it: before the method's service is exported, so before a call needs the table. As
 * {@code xio.ledger.initialize-schema} says: {@code embedded}, the default, only in an embedded database (as Spring
 * Boot's own scripts), {@code always}, or {@code never} (the application's migrations create it with the scripts
 * {@code xio-ledger} ships). Idempotent, so every instance of the application may do it. Ordered first among the
 * listeners, so the table is there before the cleaner looks at it. Thread-safe.
 */
public final class XioLedgerSchemaInitializer implements TransactionalExactlyOnceCalls.DatabaseListener, Ordered
{
    private final XioProperties.Ledger settings;
    private final Set<DataSource> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<DataSource> created = Collections.newSetFromMap(new IdentityHashMap<>());

    public XioLedgerSchemaInitializer(final XioProperties.Ledger settings)
    {
        this.settings = settings;
    }

    /** Creates the table in {@code dataSource}, the first time it is told of it, when the setting says so. */
    @Override
    public synchronized void using(final PlatformTransactionManager manager, final DataSource dataSource)
        throws Exception
    {
        if (!seen.add(dataSource))
        {
            return;
        }
        final boolean create = switch (settings.getInitializeSchema())
        {
            case ALWAYS -> true;
            case NEVER -> false;
            case EMBEDDED -> EmbeddedDatabaseConnection.isEmbedded(dataSource);
        };
        if (create)
        {
            try
            {
                LedgerSchema.create(dataSource, settings.getTableName());
            }
            catch (final Exception ex)
            {
                seen.remove(dataSource); // not created: a later start tries again
                throw ex;
            }
            created.add(dataSource);
        }
    }

    /** Whether the table was created (or found there) in some database. */
    public synchronized boolean created()
    {
        return !created.isEmpty();
    }

    /** Whether the table was created (or found there) in {@code dataSource}. */
    public synchronized boolean created(final DataSource dataSource)
    {
        return created.contains(dataSource);
    }

    @Override
    public int getOrder()
    {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
