package io.xio.cluster;

import io.xio.engine.SessionOptions;
import io.xio.engine.XioUri;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The order in which a service client tries an endpoint's portals, each with why it may be used there or not: its
 * transport preference, the transports the engine has, and locality (same-host schemes only for endpoints on this
 * client's host). Immutable; any thread.
 */
final class ConnectionPlan
{
    /** One portal to try, and why it is where it is in the order; when not {@code usable}, why it is passed over. */
    record Step(XioUri portal, boolean usable, String why)
    {
    }

    private final List<String> transports;
    private final Predicate<String> hasTransport;
    private final String localHost;
    private final SessionOptions sessionOptions;

    /**
     * @param transports     the schemes to try, most preferred first
     * @param hasTransport   whether the engine has a transport of a scheme
     * @param localHost      this client's host identity
     * @param sessionOptions what the sessions are opened with (whether they carry credentials, and where to)
     */
    ConnectionPlan(final List<String> transports, final Predicate<String> hasTransport, final String localHost,
        final SessionOptions sessionOptions)
    {
        this.transports = transports;
        this.hasTransport = hasTransport;
        this.localHost = localHost;
        this.sessionOptions = sessionOptions;
    }

    /** The schemes tried, most preferred first. */
    List<String> transports()
    {
        return transports;
    }

    /** {@code portals} of an endpoint on {@code host}, in this client's order of transports. */
    List<Step> of(final List<XioUri> portals, final String host)
    {
        final List<Step> plan = new ArrayList<>();
        for (final String scheme : transports)
        {
            for (final XioUri portal : portals)
            {
                if (portal.scheme().equals(scheme))
                {
                    plan.add(step(portal, host));
                }
            }
        }
        return plan;
    }

    /**
     * Where a GOAWAY sends an endpoint on {@code host} whose session is at {@code from} (null before one opened): its
     * portals in this client's order, those that would take the credentials somewhere weaker than the session they
     * leave (another host, tls to plaintext, local to the network) passed over, as a redirect's are, unless
     * {@code listed} (the resolver lists that portal) or the session may take its credentials there
     * ({@link SessionOptions#credentialsOnRedirect()}, or it has none). The server names them, and whoever answers in
     * its place could name its own host.
     */
    List<Step> migration(final XioUri from, final String host, final List<XioUri> portals,
        final Predicate<XioUri> listed)
    {
        final List<Step> plan = new ArrayList<>();
        for (final Step candidate : of(portals, host))
        {
            final String weakened = from == null ? null : from.weakeningTo(candidate.portal());
            if (weakened != null && sessionOptions.hasCredentials() && !sessionOptions.credentialsOnRedirect() &&
                !listed.test(candidate.portal()))
            {
                plan.add(new Step(candidate.portal(), false, candidate.portal().scheme() + ": a GOAWAY named " +
                    candidate.portal() + ", " + weakened + ": the credentials are not sent there (SessionOptions" +
                    ".withCredentialsOnRedirect(true) allows it)"));
            }
            else
            {
                plan.add(candidate);
            }
        }
        return plan;
    }

    private Step step(final XioUri portal, final String host)
    {
        final String scheme = portal.scheme();
        if (!hasTransport.test(scheme))
        {
            return new Step(portal, false, scheme + ": no " + scheme + " transport here");
        }
        if (TransportPreference.SAME_HOST.contains(scheme))
        {
            return host.isEmpty() ? new Step(portal, false, scheme + ": its host is unknown") :
                !host.equals(localHost) ? new Step(portal, false, scheme + ": another host") :
                new Step(portal, true, "same host");
        }
        return new Step(portal, true, switch (scheme)
        {
            case "rdma" -> "an rdma device here reaches it";
            case "tls" -> "network, tls";
            case "tcp" -> "network";
            default -> scheme + " portal";
        });
    }
}
