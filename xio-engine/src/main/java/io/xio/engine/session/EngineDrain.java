package io.xio.engine.session;

import io.xio.engine.GoAway;
import io.xio.engine.XioException;
import io.xio.engine.context.EventLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * An engine's drain ({@link io.xio.engine.XioEngine#drain}): whether it began (portals then refuse set-ups), the
 * GOAWAY its server sessions were sent, and the future that completes once the last of them closed, or at the end
 * of the grace, after the rest were closed. Thread-safe: started once under its lock, read through volatiles.
 */
final class EngineDrain
{
    private static final Logger LOG = LoggerFactory.getLogger(EngineDrain.class);

    private final EngineCore engine;
    /** Set before {@link #goAway}, so that whoever sees that sees the future. */
    private volatile CompletableFuture<Void> done;
    private volatile GoAway goAway;

    EngineDrain(final EngineCore engine)
    {
        this.engine = engine;
    }

    /** Whether the drain began. Any thread. */
    boolean isDraining()
    {
        return goAway != null;
    }

    /** Begins the drain, or returns the future of the one that began before. Any thread. */
    synchronized CompletableFuture<Void> start(final GoAway sent, final Duration grace)
    {
        if (done != null)
        {
            return done;
        }
        done = new CompletableFuture<>();
        goAway = sent;
        for (final SessionImpl session : new ArrayList<>(engine.accepted.values()))
        {
            session.goAway(sent);
        }
        scheduleGraceEnd(grace);
        sessionGone();
        return done;
    }

    private void scheduleGraceEnd(final Duration grace)
    {
        final EventLoop loop = engine.loops[0];
        try
        {
            loop.execute(() -> loop.schedule(loop.nanoTime() + grace.toNanos(), () -> graceOver(grace)));
        }
        catch (final XioException stopped)
        {
            graceOver(grace); // the engine is closing: its sessions close with it
        }
    }

    /** A session accepted on a context whose check came before the drain began: it hears the GOAWAY now. */
    void acceptedWhileDraining(final SessionImpl session)
    {
        final GoAway sent = goAway;
        if (sent != null && session.goAwayBody() == null)
        {
            session.goAway(sent);
        }
    }

    /** An accepted session ended: the drain is over once none is left. Any thread. */
    void sessionGone()
    {
        final CompletableFuture<Void> future = done;
        if (future != null && goAway != null && engine.accepted.isEmpty())
        {
            future.complete(null);
        }
    }

    private void graceOver(final Duration grace)
    {
        final CompletableFuture<Void> future = done;
        if (future.isDone())
        {
            return;
        }
        final List<SessionImpl> left = new ArrayList<>(engine.accepted.values());
        LOG.info("drain of engine {}: the grace of {} is over, closing the {} session(s) still open", engine.name,
            grace, left.size());
        for (final SessionImpl session : left)
        {
            try
            {
                session.close();
            }
            catch (final RuntimeException ex)
            {
                LOG.warn("session {} could not be closed at the end of the drain", session, ex);
            }
        }
        future.complete(null);
    }
}
