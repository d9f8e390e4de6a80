package io.xio.engine.session;

import io.xio.engine.GoAway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An engine's drain ({@link io.xio.engine.XioEngine#drain}): whether it began (portals then refuse set-ups), the
 * GOAWAY its server sessions were sent, and the future that completes once the last of them closed, or at the end
 * of the grace, after the rest were closed. Thread-safe: started (and, once over, ended: {@code XioEngine.endDrain})
 * under its lock, read through volatiles.
 * <p>
 * The grace is timed off the contexts (the JDK's delay scheduler, through {@link CompletableFuture#completeOnTimeout}):
 * a timer on a context would be lost with it when it fails or restarts, ending the drain early or never. The future
 * handed out completes on a thread the drain starts ({@code xio-<engine>-drain}), never on a context thread (its
 * dependents, such as {@code XioEngine::close}, may block), nor on the common pool: from Java 25 on,
 * {@link CompletableFuture}'s default async executor is the common pool even with one worker, and an application
 * blocking that worker (closing its Spring context from a pool task, say) would hold the drain, and the shutdown
 * waiting for it, until it let go.
 */
public final class EngineDrain
{
    private static final Logger LOG = LoggerFactory.getLogger(EngineDrain.class);

    private final EngineCore engine;
    /** Set before {@link #goAway}, so that whoever sees that sees the future. */
    private volatile CompletableFuture<Void> done;
    private volatile GoAway goAway;
    /** The resources whose sessions the drain leaves alone: set before {@link #goAway}, read after it. */
    private volatile Set<String> served = Set.of();
    /** The sessions the drain waits for: those it sent GOAWAY, each removed as it ends. */
    private final Set<SessionImpl> waited = java.util.concurrent.ConcurrentHashMap.newKeySet();

    EngineDrain(final EngineCore engine)
    {
        this.engine = engine;
    }

    /** Whether the drain began. Any thread. */
    public boolean isDraining()
    {
        return goAway != null;
    }

    /**
     * Whether a set-up for {@code resource} is refused: a drain began, and the resource is not one it serves still.
     * Any thread.
     */
    public boolean refuses(final String resource)
    {
        return goAway != null && !served.contains(resource);
    }

    /**
     * Begins the drain, or returns the future of the one that began before. Sessions of the {@code served}
     * resources are neither sent GOAWAY nor waited for, and such set-ups are still taken. Any thread.
     */
    synchronized CompletableFuture<Void> start(final GoAway sent, final Duration grace, final Set<String> served)
    {
        if (done != null)
        {
            return done;
        }
        done = new CompletableFuture<>();
        this.served = Set.copyOf(served);
        goAway = sent;
        for (final SessionImpl session : new ArrayList<>(engine.accepted.values()))
        {
            if (drains(session))
            {
                waited.add(session);
                session.goAway(sent);
            }
        }
        // One that ended between the snapshot and its addition was not removed by its end.
        waited.removeIf(session -> engine.accepted.get(session.id()) != session);
        scheduleGraceEnd(grace);
        completeWhenNoneLeft();
        return done;
    }

    /**
     * Ends a drain that is over, so that the portals take new sessions again; nothing when none began. Any thread.
     *
     * @throws IllegalStateException when the drain is still under way
     */
    synchronized void end()
    {
        if (done == null)
        {
            return;
        }
        if (!done.isDone())
        {
            throw new IllegalStateException("the drain of engine " + engine.name + " is still under way");
        }
        goAway = null;
        served = Set.of();
        waited.clear();
        done = null;
    }

    /** Whether the drain sends {@code session} GOAWAY and waits for it: not one of a resource it serves still. */
    private boolean drains(final SessionImpl session)
    {
        return !served.contains(session.resource());
    }

    private void scheduleGraceEnd(final Duration grace)
    {
        final long nanos = saturatedNanos(grace);
        if (nanos == Long.MAX_VALUE)
        {
            return; // some 292 years or more: no limit, and no timer held that long
        }
        final CompletableFuture<Void> timer = new CompletableFuture<>();
        timer.completeOnTimeout(null, nanos, TimeUnit.NANOSECONDS);
        // Completing the timer once the drain is over cancels its scheduled task (it holds this engine).
        final CompletableFuture<Void> future = done;
        future.whenComplete((ignored, failure) -> timer.cancel(false));
        // This drain's own future: by the time the timer fires, that drain may have ended and another begun.
        timer.thenRunAsync(() -> graceOver(future, grace), this::offContexts);
    }

    /** {@code grace} in nanoseconds, {@link Long#MAX_VALUE} when it is that long or longer. */
    static long saturatedNanos(final Duration grace)
    {
        try
        {
            return grace.toNanos();
        }
        catch (final ArithmeticException tooLong)
        {
            return Long.MAX_VALUE;
        }
    }

    /**
     * A session registered in {@link EngineCore#accepted} on a context whose check came before the drain began:
     * true when the drain began meanwhile, and the set-up is to be refused. Read after the registration, so that
     * either this sees the drain or the drain sees the session (it waits for it). Any thread.
     */
    public boolean drainingAfterRegistering(final String resource)
    {
        return refuses(resource);
    }

    /**
     * A session accepted (its SETUP_ACCEPT sent) while a drain began on another thread: the GOAWAY that drain sent
     * it may have found no connection to go on, so it goes now. The client takes a second copy as the same.
     */
    public void acceptedWhileDraining(final SessionImpl session)
    {
        final GoAway sent = goAway;
        if (sent != null && drains(session))
        {
            session.drain.goAwayAgain(sent);
        }
    }

    /** {@code session}, accepted, ended: the drain is over once none it waits for is left. Any thread. */
    void sessionGone(final SessionImpl session)
    {
        if (waited.remove(session))
        {
            completeWhenNoneLeft();
        }
    }

    private void completeWhenNoneLeft()
    {
        final CompletableFuture<Void> future = done;
        if (future != null && goAway != null && waited.isEmpty())
        {
            complete(future);
        }
    }

    /** On a thread the drain started: closes the sessions left and completes {@code future} there. */
    private void graceOver(final CompletableFuture<Void> future, final Duration grace)
    {
        if (future.isDone())
        {
            return;
        }
        final List<SessionImpl> left = List.copyOf(waited);
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

    /** Off the calling thread, often a context's: whatever depends on the drain may block (an engine's close). */
    private void complete(final CompletableFuture<Void> future)
    {
        if (!future.isDone())
        {
            offContexts(() -> future.complete(null));
        }
    }

    /**
     * Runs {@code task} on a daemon thread it starts, since the drain's dependents may block; on the calling thread
     * when no thread can be started, since a drain that never ends would hold the shutdown waiting for it.
     */
    private void offContexts(final Runnable task)
    {
        final Thread thread = new Thread(task, "xio-" + engine.name + "-drain");
        thread.setDaemon(true);
        try
        {
            thread.start();
        }
        catch (final OutOfMemoryError | RuntimeException ex)
        {
            LOG.error("drain of engine {}: no thread could be started, its end runs on {}", engine.name,
                Thread.currentThread().getName(), ex);
            task.run();
        }
    }
}
