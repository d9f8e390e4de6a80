package io.xio.spring.autoconfigure.ledger;

import io.xio.ledger.ExecutionLedger;
import io.xio.ledger.LedgerCleaner;
import io.xio.ledger.Transactions;
import io.xio.spring.autoconfigure.XioProperties;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the execution ledger's {@link LedgerCleaner} while the application context runs: a pass every
 * {@code xio.ledger.cleanup.interval} on a daemon thread of its own, deleting expired entries in batches of
 * {@code xio.ledger.cleanup.batch-size}, each a short transaction; stopped with the context. Lifecycle methods are
 * called by Spring's lifecycle processor.
 */
public final class XioLedgerCleanerLifecycle implements SmartLifecycle
{
    private final ExecutionLedger ledger;
    private final Transactions transactions;
    private final XioProperties.Ledger.Cleanup settings;
    private @Nullable LedgerCleaner cleaner;

    public XioLedgerCleanerLifecycle(final ExecutionLedger ledger, final Transactions transactions,
        final XioProperties.Ledger.Cleanup settings)
    {
        this.ledger = ledger;
        this.transactions = transactions;
        this.settings = settings;
    }

    @Override
    public synchronized void start()
    {
        if (cleaner == null)
        {
            // A cleaner is not started twice: a start after a stop makes a new one.
            cleaner = new LedgerCleaner(ledger, transactions, settings.getBatchSize()).start(settings.getInterval());
        }
    }

    @Override
    public synchronized void stop()
    {
        if (cleaner != null)
        {
            cleaner.close();
            cleaner = null;
        }
    }

    @Override
    public synchronized boolean isRunning()
    {
        return cleaner != null;
    }

    /** The cleaner running now, or null when stopped. */
    public synchronized @Nullable LedgerCleaner cleaner()
    {
        return cleaner;
    }
}
