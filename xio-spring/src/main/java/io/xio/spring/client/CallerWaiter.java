package io.xio.spring.client;

import io.xio.engine.CallOptions;
import io.xio.engine.Context;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.ResponseListener;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import io.xio.spring.method.ServiceMethod;
import org.jspecify.annotations.Nullable;

/**
 * A thread's waiter for its blocking calls on the engine's listener path (one at a time: the thread waits for
 * each), and its buffer for encoding arguments. Told on a context thread, read on its own.
 */
final class CallerWaiter implements ResponseListener
{
    /** Past this the encoding buffer is let go after its call: one large call does not pin it. */
    static final int KEPT_BYTES = 64 * 1024;
    private static final ThreadLocal<CallerWaiter> WAITERS = ThreadLocal.withInitial(CallerWaiter::new);
    private final Thread owner = Thread.currentThread();
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(256);
    boolean encoding;
    /** A call of this thread is under way on this waiter (and its reused message). */
    boolean busy;
    private @Nullable ResponseDecoder decoder;
    private @Nullable ServiceMethod call;
    private @Nullable Object value;
    private @Nullable Throwable failure;
    private volatile boolean done;
    /** The engine whose context threads this thread was checked against, and whether it is one of them. */
    private @Nullable XioEngine checkedFor;
    private boolean onContext;
    /** The message of this thread's last blocking call of a method with a constant header, sent again. */
    private @Nullable ClientMethodState reusedFor;
    private @Nullable SegmentRequest reused;

    /** The calling thread's waiter. */
    static CallerWaiter current()
    {
        return WAITERS.get();
    }

    /**
     * Whether this thread is one of {@code engine}'s context threads. Kept once known: a context's own thread is
     * made for it, so no other thread ever becomes one; not with manual contexts, which any thread may run.
     */
    boolean onContextThread(final XioEngine engine)
    {
        if (checkedFor != engine)
        {
            boolean found = false;
            for (final Context context : engine.contexts())
            {
                found |= context.inContextThread();
            }
            if (engine.manualContexts())
            {
                return found;
            }
            onContext = found;
            checkedFor = engine;
        }
        return onContext;
    }

    /** The message of a blocking call of {@code state}'s method (constant header): this thread's, reused. */
    Outbound reusable(final ClientMethodState state, final @Nullable Object[] arguments)
    {
        if (reusedFor != state)
        {
            reused = new SegmentRequest(state);
            reusedFor = state;
        }
        return reused.fill(state, arguments);
    }

    /**
     * Sends {@code message} and waits for its outcome: the result as {@code decoder} made it on the context thread
     * that received it, or the failure thrown.
     */
    @Nullable Object call(final ResponseDecoder decoder, final ServiceMethod call, final Session session,
        final Outbound message, final CallOptions options, final long spinNanos) throws Throwable
    {
        this.decoder = decoder;
        this.call = call;
        done = false;
        busy = true;
        final boolean interrupted;
        final Object result;
        final Throwable failed;
        try
        {
            final long requestId = session.request(message, options, this);
            interrupted = await(session, requestId, spinNanos);
            result = value;
            failed = failure;
        }
        finally
        {
            value = null;
            failure = null;
            this.decoder = null;
            this.call = null;
            busy = false;
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
            throw new CallerInterruptedException("interrupted while waiting for " + call.method().getName(),
                new InterruptedException(), true);
        }
        if (failed != null)
        {
            throw failed;
        }
        return result;
    }

    /**
     * Spins briefly (a response often comes sooner than a parked thread wakes), then parks until told. An
     * interrupt cancels the call, and the wait goes on until the engine says so: the waiter is reused.
     */
    private boolean await(final Session session, final long requestId, final long spinNanos)
    {
        if (!done && spinNanos > 0)
        {
            final long begun = System.nanoTime();
            while (!done && System.nanoTime() - begun < spinNanos)
            {
                Thread.onSpinWait();
            }
        }
        boolean interrupted = false;
        while (!done)
        {
            java.util.concurrent.locks.LockSupport.park(this);
            if (Thread.interrupted() && !interrupted)
            {
                interrupted = true;
                session.cancel(requestId, requestId); // the caller gave up: so does the server
            }
        }
        return interrupted;
    }

    @Override
    public void onResponse(final long requestId, final Message response)
    {
        try
        {
            value = decoder.decode(call, response);
        }
        catch (final Throwable ex)
        {
            failure = ex;
        }
        done = true;
        java.util.concurrent.locks.LockSupport.unpark(owner);
    }

    @Override
    public void onFailure(final long requestId, final Throwable cause)
    {
        failure = cause;
        done = true;
        java.util.concurrent.locks.LockSupport.unpark(owner);
    }
}
