package io.xio.spring.autoconfigure.sample.hops.first;

import io.xio.annotation.XioService;
import io.xio.spring.call.XioServerCall;
import io.xio.spring.autoconfigure.sample.hops.api.FirstHop;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/** Calls the last hop while serving: the call inherits what is left of this one's deadline. */
@XioService("first")
public class FirstHopService implements FirstHop
{
    /** What the call made after the deadline failed with, for tests. */
    public static final AtomicReference<Throwable> LATE = new AtomicReference<>();

    private final LastHopClient last;

    public FirstHopService(final LastHopClient last)
    {
        this.last = last;
    }

    @Override
    public String first(final String what)
    {
        final long left = XioServerCall.current().timeRemaining().toMillis();
        return left + " " + last.last(what);
    }

    @Override
    public String afterTheDeadline(final String what)
    {
        while (!XioServerCall.current().isExpired())
        {
            LockSupport.parkNanos(5_000_000);
        }
        try
        {
            return last.last(what);
        }
        catch (final RuntimeException ex)
        {
            LATE.set(ex);
            // The caller's own deadline must end its call, not this answer, which a busy machine could deliver
            // before the caller's timer fires: answer once its engine has cancelled the call (at its deadline).
            final long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!XioServerCall.current().isCancelled() && System.nanoTime() < giveUp)
            {
                LockSupport.parkNanos(5_000_000);
            }
            throw ex;
        }
    }
}
