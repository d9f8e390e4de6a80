package io.xio.engine;

import io.xio.engine.context.EventLoop;
import io.xio.engine.session.connection.PortalImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What an engine does when one of its contexts fails, as its {@link ContextFailurePolicy} says: frees the heap it
 * kept back, logs, tells the engine's listener, fails the context's sessions and closes its connections and
 * portal listeners, then restarts the context or closes the engine. Runs on the failed context's thread, which
 * still owns what it cleans up. Every step stands on its own, so that one throwing (out of memory once more)
 * leaves the rest to run, and nothing escapes to the loop.
 */
final class ContextSupervisor implements EventLoop.FailureHandler
{
    private static final Logger LOG = LoggerFactory.getLogger(ContextSupervisor.class);
    /**
     * Heap kept back for the failure path: whatever exhausted the heap may still be held by the connections the
     * cleanup is about to close, and the cleanup itself needs some (exceptions, events, log lines) first.
     */
    private static final int RESERVE_BYTES = 256 << 10;
    private static final int FAILURES_KEPT = 16;

    private final XioEngine engine;
    private final ContextFailurePolicy policy;
    private final List<Context> failures = new CopyOnWriteArrayList<>();
    private volatile byte[] reserve = new byte[RESERVE_BYTES];

    ContextSupervisor(final XioEngine engine, final ContextFailurePolicy policy)
    {
        this.engine = engine;
        this.policy = policy;
    }

    /** The contexts that failed, oldest first (at most the last 16); restarted ones are no longer in the engine. */
    List<Context> failures()
    {
        return List.copyOf(failures);
    }

    @Override
    public void onFailure(final EventLoop loop, final Throwable cause)
    {
        reserve = null;
        final boolean restart = policy == ContextFailurePolicy.RESTART_CONTEXT && engine.isOpen();
        try
        {
            LOG.error("context {} failed; {}", loop.name(), restart ? "restarting it" :
                "closing engine " + engine.name(), cause);
        }
        catch (final Throwable ex)
        {
            // even logging failed: the state, the event and the health still say it
        }
        try
        {
            failures.add(loop);
            if (failures.size() > FAILURES_KEPT)
            {
                failures.remove(0);
            }
        }
        catch (final Throwable ex)
        {
            quietly("remembering the failure of context {} failed", loop, ex);
        }
        try
        {
            engine.core().fire(new SessionEvent(SessionEvent.Type.CONTEXT_FAILED, null, "context " + loop.name() +
                " failed: " + cause + "; " + (restart ? "restarting it" : "closing the engine"), cause));
        }
        catch (final Throwable ex)
        {
            quietly("telling the listener of the failure of context {} failed", loop, ex);
        }
        cleanUp(loop, cause);
        if (restart)
        {
            try
            {
                if (engine.restart(loop))
                {
                    keepReserve();
                    return;
                }
            }
            catch (final Throwable ex)
            {
                quietly("restarting context {} failed; closing the engine", loop, ex);
            }
        }
        try
        {
            engine.close();
        }
        catch (final Throwable ex)
        {
            quietly("closing the engine after the failure of context {} failed", loop, ex);
        }
    }

    /** Keeps heap back for the next failure, if there is any to keep. */
    private void keepReserve()
    {
        try
        {
            reserve = new byte[RESERVE_BYTES];
        }
        catch (final OutOfMemoryError ex)
        {
            // the next failure goes without
        }
    }

    /** Fails the context's sessions, stops its portals listening, closes its connections and the loop. */
    private void cleanUp(final EventLoop loop, final Throwable cause)
    {
        Throwable failed = cause;
        try
        {
            failed = new ContextFailedException("context " + loop.name() + " failed: " + cause, cause);
        }
        catch (final Throwable ex)
        {
            // the sessions get the Error itself then
        }
        try
        {
            engine.core().contextFailed(loop.index(), failed);
        }
        catch (final Throwable ex)
        {
            quietly("failing the sessions and connections of context {} failed", loop, ex);
        }
        for (final Portal portal : engine.portalsOn(loop))
        {
            try
            {
                ((PortalImpl)portal).contextFailed();
            }
            catch (final Throwable ex)
            {
                quietly("closing a portal listener of failed context {} failed", loop, ex);
            }
        }
        try
        {
            loop.close(); // from now on, other threads' tasks fail at once instead of waiting in its queue
        }
        catch (final Throwable ex)
        {
            quietly("closing failed context {} failed", loop, ex);
        }
    }

    private static void quietly(final String message, final EventLoop loop, final Throwable ex)
    {
        try
        {
            LOG.error(message, loop.name(), ex);
        }
        catch (final Throwable ignored)
        {
            // nowhere left to report it
        }
    }
}
