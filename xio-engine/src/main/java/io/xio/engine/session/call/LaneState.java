package io.xio.engine.session.call;

/**
 * Where a {@link Lane} is in its life; {@link #canMoveTo} holds every transition there is. Written by the
 * lane's context thread only, read from any thread (the lane keeps it volatile).
 *
 * <pre>
 *   CONNECTING ──attach──▶ UP ──connection lost (client)──▶ RECONNECTING ──attach──▶ UP
 *        │                  │ ──connection lost (server, another up)──▶ CLOSED
 *        │                  │ ──connection lost (server, none up)──▶ PARKED ──handed over, or session ended──▶ CLOSED
 *        │                  └─close with outputs offered──▶ CLOSING ──fenced or connection lost──▶ CLOSED
 *        └────────close, or set-up refused (any state but CLOSING)──────────────────────────────▶ CLOSED
 * </pre>
 */
public enum LaneState
{
    /** Client: the set-up or first attach is under way; requests wait for it. */
    CONNECTING,
    /** A connection carries the lane. */
    UP,
    /** Client: the connection was lost; reconnecting with backoff while requests wait. */
    RECONNECTING,
    /**
     * Server: the connection was lost while no other of the session was up. This side's requests (new ones too)
     * wait here while the session lingers; the client's next attach takes them over, the session's end fails them.
     */
    PARKED,
    /** Closed, yet still registered on its connection until the peer can no longer write into our outputs. */
    CLOSING,
    /** Gone for good: nothing is sent or received here any more. */
    CLOSED;

    boolean canMoveTo(final LaneState next)
    {
        return switch (this)
        {
            case CONNECTING, RECONNECTING -> next == UP || next == CLOSED;
            case UP -> next == RECONNECTING || next == PARKED || next == CLOSING || next == CLOSED;
            case PARKED -> next == CLOSED;
            case CLOSING -> next == CLOSED;
            case CLOSED -> false;
        };
    }

    /** Whether the lane was closed (and may still be waiting for its fences). */
    boolean isClosed()
    {
        return this == CLOSING || this == CLOSED;
    }
}
