package io.xio.ledger;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Ends a claim's wait when its time is up: cancels the claim's statement from the timer's thread, again every
 * {@value #REPEAT_MILLIS} ms until the claiming thread says the statement is over. Once is not enough: a driver
 * ignores a cancel that comes before its statement started executing (both H2 and PostgreSQL do), which a very
 * short wait can hit. A cancel after the statement ended is ignored too, so the race at the end is harmless.
 * {@link #end} from the claiming thread, {@link #run} on the timer's.
 */
final class ClaimCut implements Runnable
{
    private static final long REPEAT_MILLIS = 10;

    private final ScheduledExecutorService timer;
    private final Statement statement;
    private volatile boolean over;
    private volatile ScheduledFuture<?> next;

    private ClaimCut(final ScheduledExecutorService timer, final Statement statement)
    {
        this.timer = timer;
        this.statement = statement;
    }

    /** Cuts {@code statement} short after {@code waitNanos}, unless {@link #end ended} before. */
    static ClaimCut after(final ScheduledExecutorService timer, final Statement statement, final long waitNanos)
    {
        final ClaimCut cut = new ClaimCut(timer, statement);
        cut.next = timer.schedule(cut, waitNanos, TimeUnit.NANOSECONDS);
        return cut;
    }

    @Override
    public void run()
    {
        if (over)
        {
            return;
        }
        try
        {
            statement.cancel();
        }
        catch (final SQLException | RuntimeException ex)
        {
            // Closed meanwhile: the claim is over.
        }
        if (!over)
        {
            next = timer.schedule(this, REPEAT_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** The claim's statement is over: no more cancels. */
    void end()
    {
        over = true;
        final ScheduledFuture<?> pending = next;
        if (pending != null)
        {
            pending.cancel(false);
        }
    }
}
