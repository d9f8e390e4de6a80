package io.xio.engine;

import io.xio.engine.context.EventLoop;
import io.xio.engine.session.EngineCore;
import io.xio.engine.session.connection.PortalImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The portals an engine bound: which context serves the next one, which ones a failed context served, and
 * closing them with the engine. Any thread.
 */
final class EnginePortals
{
    private static final Logger LOG = LoggerFactory.getLogger(EnginePortals.class);

    private final List<Portal> portals = new ArrayList<>();
    private final AtomicInteger next = new AtomicInteger();
    private final BooleanSupplier engineClosed;

    /** @param engineClosed whether the engine closed: a portal bound meanwhile is closed as it arrives */
    EnginePortals(final BooleanSupplier engineClosed)
    {
        this.engineClosed = engineClosed;
    }

    /** The context index that serves the next portal bound without one: each in turn. */
    int nextContext(final int contexts)
    {
        return Math.floorMod(next.getAndIncrement(), contexts);
    }

    /** Keeps {@code portal}, just bound; closes it at once when the engine closed meanwhile (its close may miss it). */
    Portal bound(final Portal portal)
    {
        synchronized (portals)
        {
            portals.add(portal);
        }
        if (engineClosed.getAsBoolean())
        {
            portal.close();
        }
        return portal;
    }

    /** The portals still open; a snapshot. */
    List<Portal> open()
    {
        synchronized (portals)
        {
            portals.removeIf(portal -> !portal.isOpen());
            return List.copyOf(portals);
        }
    }

    /** Closes every portal; when the engine closes. */
    void closeAll()
    {
        final List<Portal> all;
        synchronized (portals)
        {
            all = new ArrayList<>(portals);
        }
        all.forEach(Portal::close);
    }

    /** The portals served by {@code loop}, open or not. */
    List<Portal> servedBy(final EventLoop loop)
    {
        synchronized (portals)
        {
            return portals.stream().filter(portal -> portal.context() == loop).toList();
        }
    }

    /**
     * Listens again with every portal the failed {@code loop} served, on the fresh context {@code core} now has in
     * its place; on the failed loop's thread.
     */
    void rebind(final EventLoop loop, final EngineCore core)
    {
        for (final Portal portal : servedBy(loop))
        {
            ((PortalImpl)portal).rebind(core.peers(loop.index())).whenComplete((bound, ex) ->
            {
                if (ex != null)
                {
                    LOG.error("portal {} is closed: it could not listen again after its context failed", portal, ex);
                }
            });
        }
    }
}
