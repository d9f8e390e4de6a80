package io.xio.engine;

/**
 * A session, connection or context lifecycle event.
 *
 * @param type what happened
 * @param session the session it happened to (null for a connection-level error, e.g. a protocol violation, and
 *                for a context's failure)
 * @param detail a description naming the peer
 * @param cause the failure behind it, or null
 */
public record SessionEvent(Type type, Session session, String detail, Throwable cause)
{
    public enum Type
    {
        /** The session was accepted (client side) or accepted a client (server side). */
        ESTABLISHED,
        /** The session was refused: rejected, or no connection could be made. */
        REFUSED,
        /** A connection of the session failed; the session is re-establishing it. */
        RECONNECTING,
        /** A failed connection of the session is back (or another took over its requests). */
        RECONNECTED,
        /** A connection or session failed with an error. */
        ERROR,
        /**
         * Client side: the server asked the session to go away ({@link Session#goAwayReceived()}); calls in flight
         * finish, new ones fail with {@link SessionDrainingException}, and the session closes after the last.
         */
        GOAWAY,
        /** The session is closed. */
        CLOSED,
        /**
         * A context failed (its {@link Context#state()} is {@link ContextState#FAILED}; the cause is what stopped
         * it): its sessions fail, and the engine restarts the context or closes, as the detail says (see
         * {@link ContextFailurePolicy}). Engine-wide, so only the engine's listener hears it; no session.
         */
        CONTEXT_FAILED
    }
}
