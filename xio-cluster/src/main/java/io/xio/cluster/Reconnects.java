package io.xio.cluster;

import io.xio.engine.SessionRejectedException;
import io.xio.engine.support.Backoff;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * When a service client opens an endpoint's session again: after a failed opening or a lost session, on a backoff
 * by the member's failures in a row, never sooner than {@link #MIN_REOPEN_NANOS}, later after a refusal that will
 * not change soon; a session that lived long enough proves its endpoint and starts the backoff again. The timers
 * run on the client's thread, which reopens a member still waiting then. Any thread may ask; the methods that write
 * a member run under the client's lock (scheduling a reopen reads its failures in a row without it, as before the
 * split: a stale count only picks a neighbouring backoff step).
 */
final class Reconnects
{
    private static final long MIN_REOPEN_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** A server that refused as draining will not take the session soon; it is likely leaving the resolver's list. */
    private static final long DRAINING_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The same credentials fail again, and count against this host: ask seldom. */
    private static final long AUTHENTICATION_RETRY_NANOS = TimeUnit.SECONDS.toNanos(15);
    /** A session that lived this long proved its endpoint: reopening after it starts the backoff again. */
    private static final long PROVEN_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final Backoff backoff;
    private final Object lock;
    private final NanoClock clock;
    private final ClientThread thread;
    private final Consumer<Member> reopen;

    /**
     * @param backoff the waits by failures in a row
     * @param lock    the client's lock, taken to find whether a member still waits to be reopened
     * @param reopen  opens a member's session again, outside the lock
     */
    Reconnects(final Backoff backoff, final Object lock, final NanoClock clock, final ClientThread thread,
        final Consumer<Member> reopen)
    {
        this.backoff = backoff;
        this.lock = lock;
        this.clock = clock;
        this.thread = thread;
        this.reopen = reopen;
    }

    /** The least wait before trying again after an opening refused with {@code rejection} (null: not refused). */
    static long afterRefusal(final SessionRejectedException rejection)
    {
        if (rejection == null)
        {
            return 0;
        }
        return rejection.isAuthenticationFailure() ? AUTHENTICATION_RETRY_NANOS :
            rejection.isDraining() ? DRAINING_RETRY_NANOS : 0;
    }

    /** {@code member}'s session closed, for {@code detail}: it counts as a failure unless it had proven itself. */
    void lost(final Member member, final String detail)
    {
        member.lost(detail, clock.nanoTime() - member.openedAt >= PROVEN_NANOS);
    }

    /**
     * Reopens {@code member} on the client's thread after its backoff, at least {@code atLeastNanos}, if it still
     * waits for it then: not removed, no opening under way, no session open.
     */
    void reopenLater(final Member member, final long atLeastNanos)
    {
        final long delay = Math.max(Math.max(MIN_REOPEN_NANOS, atLeastNanos), backoff.delayNanos(member.failures));
        thread.schedule(delay, () ->
        {
            final boolean due;
            synchronized (lock)
            {
                due = member.awaitsReopen();
            }
            if (due)
            {
                reopen.accept(member);
            }
        });
    }
}
