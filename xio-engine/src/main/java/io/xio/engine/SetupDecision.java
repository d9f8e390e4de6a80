package io.xio.engine;

import java.util.List;
import java.util.Map;

/** A {@link SessionAcceptor}'s answer. Immutable. */
public sealed interface SetupDecision
{
    /** An acceptance; an {@link Accept}, so that {@link Accept#withConnectionPortals} may follow. */
    static Accept accept()
    {
        return new Accept(Map.of());
    }

    static Accept accept(final Map<String, String> attributes)
    {
        return new Accept(Map.copyOf(attributes));
    }

    /** Accepts the session as {@code principal}'s: {@link Session#principal()} on the server side. */
    static Accept accept(final java.security.Principal principal)
    {
        return new Accept(Map.of(), principal);
    }

    /**
     * Refuses a client whose credentials (or certificate) did not prove who it is. The client hears only that
     * authentication failed; {@code detail} goes to the server's log. Counted as {@link PeerRefusal#AUTHENTICATION}.
     */
    static SetupDecision unauthenticated(final String detail)
    {
        return new Unauthenticated(detail);
    }

    static SetupDecision reject(final String reason)
    {
        return new Reject(reason);
    }

    /** Redirect to these portals, in order of preference: the client tries them in turn. */
    static SetupDecision redirect(final List<XioUri> portals)
    {
        if (portals.isEmpty())
        {
            throw new IllegalArgumentException("a redirect needs at least one portal");
        }
        return new Redirect(List.copyOf(portals));
    }

    /**
     * @param attributes returned to the client with the acceptance
     * @param principal who the session belongs to; null for an anonymous one
     * @param connectionPortals where the client opens the session's further connections (see
     *                          {@link #withConnectionPortals}); empty: at the portal that accepted
     */
    record Accept(Map<String, String> attributes, java.security.Principal principal, List<XioUri> connectionPortals)
        implements SetupDecision
    {
        public Accept
        {
            attributes = Map.copyOf(attributes);
            connectionPortals = List.copyOf(connectionPortals);
        }

        public Accept(final Map<String, String> attributes, final java.security.Principal principal)
        {
            this(attributes, principal, List.of());
        }

        public Accept(final Map<String, String> attributes)
        {
            this(attributes, null);
        }

        /**
         * Spreads the session's further connections over {@code portals} (portals of this engine, each served by its
         * own context), so one busy session uses several server cores: the client sends its ATTACHes to them in turn
         * instead of to the portal that accepted. A portal that cannot be reached is skipped for the next.
         */
        public Accept withConnectionPortals(final List<XioUri> portals)
        {
            return new Accept(attributes, principal, portals);
        }
    }

    /** @param detail why, for the server's log only */
    record Unauthenticated(String detail) implements SetupDecision
    {
    }

    /** @param reason shown to the client in its {@link SessionRejectedException} */
    record Reject(String reason) implements SetupDecision
    {
    }

    /** @param portals where the client should open the session instead */
    record Redirect(List<XioUri> portals) implements SetupDecision
    {
    }
}
