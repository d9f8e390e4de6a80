package io.xio.ledger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The ledger's retention: deletes the entries whose time to live has passed, in batches of at most
 * {@code batchSize}, each batch a short transaction of its own, so that it never holds many locks nor holds them
 * long, and never on a call's path. {@link #clean()} does one pass now; {@link #start} repeats it on a scheduler it
 * is given, or on a daemon thread of its own, until {@link #close()}. Several servers may clean one ledger at once:
 * an entry deleted by another is simply not deleted again.
 *
 * <p>Thread-safe. A failed pass is logged and the next one tries again.
 */
public final class LedgerCleaner implements AutoCloseable
{
    /** Entries deleted per transaction unless told otherwise. */
    public static final int DEFAULT_BATCH_SIZE = 500;
    /** Time between passes unless told otherwise. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);

    private static final Logger LOG = LoggerFactory.getLogger(LedgerCleaner.class);

    private final ExecutionLedger ledger;
    private final Transactions transactions;
    private final int batchSize;
    private final AtomicLong deleted = new AtomicLong();
    private final Object lifecycle = new Object();
    // Guarded by lifecycle.
    private ScheduledExecutorService ownThread;
    /** The thread of {@link #ownThread}, joined by close: an executor is terminated before its thread has ended. */
    private volatile Thread ownWorker;
    private ScheduledFuture<?> passes;
    private boolean closed;
    /** Set by close: a pass under way stops between batches. */
    private volatile boolean stopping;

    /**
     * @param batchSize entries deleted per transaction, at least 1; {@link #DEFAULT_BATCH_SIZE} suits most
     */
    public LedgerCleaner(final ExecutionLedger ledger, final Transactions transactions, final int batchSize)
    {
        if (batchSize < 1)
        {
            throw new IllegalArgumentException("a batch deletes at least 1 entry, not " + batchSize);
        }
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        this.transactions = Objects.requireNonNull(transactions, "transactions");
        this.batchSize = batchSize;
    }

    /**
     * One pass now, on the calling thread: batch after batch until one deletes fewer than a batch's worth (or the
     * cleaner is closed).
     *
     * @return how many entries this pass deleted
     */
    public long clean() throws Exception
    {
        long pass = 0;
        int batch;
        do
        {
            batch = transactions.inTransaction(connection -> ledger.deleteExpired(connection, batchSize));
            pass += batch;
            deleted.addAndGet(batch);
        }
        while (batch == batchSize && !stopping);
        return pass;
    }

    /** Cleans every {@code interval} on a daemon thread of its own ({@code xio-ledger-cleaner}), first at once. */
    public LedgerCleaner start(final Duration interval)
    {
        checkInterval(interval);
        synchronized (lifecycle)
        {
            checkStartable();
            final ScheduledThreadPoolExecutor thread = new ScheduledThreadPoolExecutor(1, task ->
            {
                final Thread cleaner = new Thread(task, "xio-ledger-cleaner");
                cleaner.setDaemon(true);
                ownWorker = cleaner;
                return cleaner;
            });
            ownThread = thread;
            return schedule(thread, interval);
        }
    }

    /**
     * Cleans every {@code interval} on {@code scheduler}, first at once; {@link #close()} cancels that and leaves the
     * scheduler running. The scheduler's thread blocks on the database for a pass: give it one that may.
     */
    public LedgerCleaner start(final ScheduledExecutorService scheduler, final Duration interval)
    {
        checkInterval(interval);
        synchronized (lifecycle)
        {
            checkStartable();
            return schedule(Objects.requireNonNull(scheduler, "scheduler"), interval);
        }
    }

    /** Entries deleted since this cleaner was made. */
    public long deleted()
    {
        return deleted.get();
    }

    /** Stops the passes (a pass under way ends after its batch) and the cleaner's own thread, if it has one. */
    @Override
    public void close()
    {
        final ScheduledExecutorService thread;
        synchronized (lifecycle)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            stopping = true;
            if (passes != null)
            {
                passes.cancel(false);
            }
            thread = ownThread;
        }
        if (thread != null)
        {
            thread.shutdown();
            try
            {
                if (!thread.awaitTermination(10, TimeUnit.SECONDS))
                {
                    LOG.warn("the ledger cleaner's batch still runs 10 s after close");
                }
                final Thread worker = ownWorker;
                if (worker != null)
                {
                    worker.join(TimeUnit.SECONDS.toMillis(1));
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void checkStartable()
    {
        if (closed)
        {
            throw new IllegalStateException("the ledger cleaner is closed");
        }
        if (passes != null)
        {
            throw new IllegalStateException("the ledger cleaner was started already");
        }
    }

    private static void checkInterval(final Duration interval)
    {
        if (interval.isNegative() || interval.isZero())
        {
            throw new IllegalArgumentException("the interval between passes is positive, not " + interval);
        }
    }

    private LedgerCleaner schedule(final ScheduledExecutorService scheduler, final Duration interval)
    {
        passes = scheduler.scheduleWithFixedDelay(this::pass, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
        return this;
    }

    /** A scheduled pass: a failure must not end the schedule (a scheduler drops a task that throws). */
    private void pass()
    {
        try
        {
            final long count = clean();
            if (count > 0)
            {
                LOG.debug("deleted {} expired ledger entries", count);
            }
        }
        catch (final Exception ex)
        {
            LOG.warn("cleaning the execution ledger failed; the next pass tries again", ex);
        }
    }

    @Override
    public String toString()
    {
        return "cleaner of " + ledger + ", " + batchSize + " entries a batch";
    }
}
