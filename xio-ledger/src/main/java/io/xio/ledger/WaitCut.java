package io.xio.ledger;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Ends a ledger statement's wait for another transaction when its time is up: cancels the statement, again every
 * {@value #REPEAT_MILLIS} ms until the waiting thread says the statement is over. Once is not enough: a driver ignores
 * a cancel that comes before its statement started executing, which a very short wait can hit. The timer only
 * schedules; the cancel itself runs on the {@code canceller}'s thread, since a driver may block in it (pgjdbc opens a
 * connection to send it, for up to its {@code cancelSignalTimeout}, 10 s by default), and one unreachable database
 * must not hold up the cuts of others that share the timer. Not for H2, which keeps a cancel that comes late on the
 * session's cached command and fails that command's next run with it. {@link #end} from the waiting thread; the rest
 * on the timer's and the canceller's threads.
 */
final class WaitCut implements Runnable
{
    private static final long REPEAT_MILLIS = 10;

    private final ScheduledExecutorService timer;
    private final Executor canceller;
    private final Statement statement;
    private volatile boolean over;
    private volatile ScheduledFuture<?> next;

    private WaitCut(final ScheduledExecutorService timer, final Executor canceller, final Statement statement)
    {
        this.timer = timer;
        this.canceller = canceller;
        this.statement = statement;
    }

    /** Cuts {@code statement} short after {@code waitNanos}, unless {@link #end ended} before. */
    static WaitCut after(final ScheduledExecutorService timer, final Executor canceller, final Statement statement,
        final long waitNanos)
    {
        final WaitCut cut = new WaitCut(timer, canceller, statement);
        cut.next = timer.schedule(cut, waitNanos, TimeUnit.NANOSECONDS);
        return cut;
    }

    /** On the timer's thread: hands the cancel over. */
    @Override
    public void run()
    {
        if (over)
        {
            return;
        }
        try
        {
            canceller.execute(this::cancel);
        }
        catch (final RejectedExecutionException ex)
        {
            // Shut down: the statement ends within the database's own timeouts.
        }
    }

    /** The statement is over: no more cancels. */
    void end()
    {
        over = true;
        final ScheduledFuture<?> pending = next;
        if (pending != null)
        {
            pending.cancel(false);
        }
    }

    /** On the canceller's thread; a cancel that comes after the statement ended is ignored by the driver. */
    private void cancel()
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
            // Closed meanwhile: the statement is over.
        }
        if (!over)
        {
            next = timer.schedule(this, REPEAT_MILLIS, TimeUnit.MILLISECONDS);
        }
    }
}
