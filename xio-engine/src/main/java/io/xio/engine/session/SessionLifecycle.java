package io.xio.engine.session;

/**
 * Where a session is in its life; {@link #canMoveTo} holds every transition there is. Moved by whichever thread
 * opens, refuses, expires or closes the session (atomically, so one wins), read from any thread.
 *
 * <pre>
 *   OPENING ──accepted, its connections up──▶ OPEN ──closed, failed, closed by the peer, expired──▶ CLOSED
 *      └──────────refused, closed or failed while opening──────────────────────────────────────────▶ CLOSED
 * </pre>
 *
 * A server session is OPEN from its acceptance; while it lingers for its client to come back it stays OPEN.
 */
enum SessionLifecycle
{
    /** Client: the set-up, and the attaches of its further connections, are under way. */
    OPENING,
    /** Established: calls go both ways. */
    OPEN,
    /** Gone for good, with the reason it keeps ({@code SessionImpl#closedBy}). */
    CLOSED;

    boolean canMoveTo(final SessionLifecycle next)
    {
        return switch (this)
        {
            case OPENING -> next == OPEN || next == CLOSED;
            case OPEN -> next == CLOSED;
            case CLOSED -> false;
        };
    }
}
