package io.xio.engine.session;

import io.xio.engine.Session;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where a session is in its {@link SessionLifecycle}, why it closed, and the future its opener waits on. Every move
 * is atomic, so of two threads moving the session one wins. Any thread.
 */
final class SessionLife
{
    private final AtomicReference<SessionLifecycle> state = new AtomicReference<>(SessionLifecycle.OPENING);
    /** Why the session closed; null while it is open. */
    private final AtomicReference<Throwable> closedBy = new AtomicReference<>();
    private final CompletableFuture<Session> opened = new CompletableFuture<>();

    boolean isOpen()
    {
        return state.get() == SessionLifecycle.OPEN;
    }

    boolean isClosed()
    {
        return state.get() == SessionLifecycle.CLOSED;
    }

    /** Why the session closed, or null. */
    Throwable closedBy()
    {
        return closedBy.get();
    }

    /** Completes once the session is open; fails if it closes first. */
    CompletableFuture<Session> opened()
    {
        return opened;
    }

    /** Moves from {@code expected} to {@code next}, if the session is still there; one mover wins. */
    boolean move(final SessionLifecycle expected, final SessionLifecycle next)
    {
        assert expected.canMoveTo(next) : expected + " -> " + next;
        return state.compareAndSet(expected, next);
    }

    /** Opening succeeded: open; false when something closed it first. The opener is told by {@link #tellOpener}. */
    boolean open()
    {
        return move(SessionLifecycle.OPENING, SessionLifecycle.OPEN);
    }

    /** Tells the opener that the session is open; after the listeners, who hear ESTABLISHED first. */
    void tellOpener(final Session session)
    {
        opened.complete(session);
    }

    /**
     * The peer refused the set-up: closed for {@code cause}, unless it was no longer opening. The opener is told by
     * {@link #tellOpener(Throwable)}, after the listeners hear REFUSED (a session closed while opening tells its
     * opener first, then its listeners CLOSED).
     */
    boolean refuse(final Throwable cause)
    {
        if (state.get() == SessionLifecycle.OPENING)
        {
            closedBy.compareAndSet(null, cause);
        }
        return move(SessionLifecycle.OPENING, SessionLifecycle.CLOSED);
    }

    /**
     * Closed for {@code cause}, kept as the reason unless there was one already; the state before, or CLOSED when
     * it was closed already (then nothing changed).
     */
    SessionLifecycle close(final Throwable cause)
    {
        closedBy.compareAndSet(null, cause); // before the state: whoever sees it closed sees the first reason
        final SessionLifecycle previous = state.getAndSet(SessionLifecycle.CLOSED);
        assert previous == SessionLifecycle.CLOSED || previous.canMoveTo(SessionLifecycle.CLOSED) : previous;
        return previous;
    }

    /** Tells the opener that the session closed before it opened. */
    void tellOpener(final Throwable cause)
    {
        opened.completeExceptionally(cause);
    }
}
