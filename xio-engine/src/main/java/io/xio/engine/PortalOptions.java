package io.xio.engine;

import java.util.Objects;

/**
 * How a portal is bound ({@link XioEngine#bind(String, PortalOptions)}): who decides on its sessions' set-ups, which
 * context serves it, and the TLS options of a {@code tls://} portal. Immutable; start from {@link #DEFAULT}.
 *
 * @param acceptor decides on each session set-up (authenticate, redirect, refuse); {@link SessionAcceptor#DEFAULT}
 *                 accepts every session whose resource has a handler
 * @param context  the index of the context that serves the portal, one portal per core; {@link #NEXT_CONTEXT} for
 *                 each portal on the next context in turn
 * @param tls      a {@code tls://} portal's own TLS options (its certificate, client certificates asked for or
 *                 required) instead of the engine's {@link XioEngine.Builder#tls default}; null for the default
 */
public record PortalOptions(SessionAcceptor acceptor, int context, TlsOptions tls)
{
    /** Each portal bound without a context of its own is served by the next context in turn. */
    public static final int NEXT_CONTEXT = -1;

    /** The default acceptor, the next context in turn, the engine's TLS options. */
    public static final PortalOptions DEFAULT = new PortalOptions(SessionAcceptor.DEFAULT, NEXT_CONTEXT, null);

    public PortalOptions
    {
        Objects.requireNonNull(acceptor, "acceptor");
        if (context < NEXT_CONTEXT)
        {
            throw new IllegalArgumentException("context must be an index or NEXT_CONTEXT, was " + context);
        }
    }

    public PortalOptions withAcceptor(final SessionAcceptor value)
    {
        return new PortalOptions(value, context, tls);
    }

    public PortalOptions withContext(final int value)
    {
        return new PortalOptions(acceptor, value, tls);
    }

    public PortalOptions withTls(final TlsOptions value)
    {
        return new PortalOptions(acceptor, context, value);
    }
}
