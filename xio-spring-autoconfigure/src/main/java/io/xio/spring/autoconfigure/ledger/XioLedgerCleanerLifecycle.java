package io.xio.spring.autoconfigure.ledger;

import io.xio.ledger.ExecutionLedger;
import io.xio.ledger.LedgerCleaner;
import io.xio.spring.autoconfigure.XioProperties;
import io.xio.spring.exactlyonce.SpringTransactions;
import io.xio.spring.exactlyonce.TransactionalExactlyOnceCalls;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.Ordered;
import org.springframework.transaction.PlatformTransactionManager;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the execution ledger's {@link LedgerCleaner} in each database the ledger writes in (every
 * {@code DataSource} an exactly-once method's transaction manager binds, and the {@code ExactlyOnceExecution}
 * bean's, in that manager's transactions) while the application context runs: a pass every
 * {@code xio.ledger.cleanup.interval} on a daemon thread of its own per database, deleting expired entries in
 * batches of {@code xio.ledger.cleanup.batch-size}, each a short transaction; stopped with the context. A database
 * told while it runs is cleaned from then on. Lifecycle methods are called by Spring's lifecycle processor;
 * thread-safe.
 */
public final class XioLedgerCleanerLifecycle implements SmartLifecycle, TransactionalExactlyOnceCalls.DatabaseListener,
    Ordered
{
    private final ExecutionLedger ledger;
    private final XioProperties.Ledger.Cleanup settings;
    /** The databases to clean, each with the manager whose transactions clean it. */
    private final Map<DataSource, PlatformTransactionManager> databases = new IdentityHashMap<>();
    private final List<LedgerCleaner> cleaners = new ArrayList<>();
    private boolean running;

    public XioLedgerCleanerLifecycle(final ExecutionLedger ledger, final XioProperties.Ledger.Cleanup settings)
    {
        this.ledger = ledger;
        this.settings = settings;
    }

    /** Cleans {@code dataSource} in {@code manager}'s transactions, from now on if running, else once started. */
    @Override
    public synchronized void using(final PlatformTransactionManager manager, final DataSource dataSource)
    {
        if (databases.putIfAbsent(dataSource, manager) == null && running)
        {
            clean(manager, dataSource);
        }
    }

    @Override
    public synchronized void start()
    {
        if (!running)
        {
            running = true;
            // A cleaner is not started twice: a start after a stop makes new ones.
            databases.forEach((dataSource, manager) -> clean(manager, dataSource));
        }
    }

    private void clean(final PlatformTransactionManager manager, final DataSource dataSource)
    {
        cleaners.add(new LedgerCleaner(ledger, new SpringTransactions(manager, dataSource), settings.getBatchSize())
            .start(settings.getInterval()));
    }

    @Override
    public synchronized void stop()
    {
        cleaners.forEach(LedgerCleaner::close);
        cleaners.clear();
        running = false;
    }

    @Override
    public synchronized boolean isRunning()
    {
        return running;
    }

    /** The cleaners running now, one per database; none when stopped. */
    public synchronized List<LedgerCleaner> cleaners()
    {
        return List.copyOf(cleaners);
    }

    /** After the schema initializer: a database's table is there before its cleaner looks. */
    @Override
    public int getOrder()
    {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
