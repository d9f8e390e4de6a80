package io.xio.engine;

import java.util.List;
import java.util.Map;

/** A {@link SessionAcceptor}'s answer. Immutable. */
public sealed interface SetupDecision
{
    static SetupDecision accept()
    {
        return new Accept(Map.of());
    }

    static SetupDecision accept(final Map<String, String> attributes)
    {
        return new Accept(Map.copyOf(attributes));
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

    /** @param attributes returned to the client with the acceptance */
    record Accept(Map<String, String> attributes) implements SetupDecision
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
