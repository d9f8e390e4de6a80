package io.xio.cluster;

import io.xio.engine.XioUri;

import java.net.InetAddress;
import java.util.Locale;

/**
 * A DNS name that a {@link DnsEndpointResolver} resolves into endpoints, written as a URI:
 * {@code dns:///host:port[/resource]} for tcp portals at every address of {@code host}, or
 * {@code dns+<transport>:///host:port[/resource]} for another network transport ({@code dns+tls:///...}). As in
 * gRPC's {@code dns:///} targets the authority is empty: the lookup asks the system's resolver, never a server the
 * URI names. Immutable.
 *
 * @param transport the scheme of every address's portal: tcp, tls or rdma (never a same-host one)
 * @param host the name looked up
 * @param port the port of every address's portal
 * @param resource the resource named after the port, empty when none
 */
public record DnsTarget(String transport, String host, int port, String resource)
{
    /** The scheme of a target whose portals are tcp. */
    public static final String SCHEME = "dns";

    private static final String PREFIX = SCHEME + "+";

    /**
     * Checks that the transport reaches other hosts; an absent resource is empty.
     *
     * @throws IllegalArgumentException for a same-host transport (shm), which no DNS address can reach
     */
    public DnsTarget
    {
        if (TransportPreference.SAME_HOST.contains(transport))
        {
            throw new IllegalArgumentException("a DNS name gives network addresses; " + transport +
                " reaches only this host");
        }
        resource = resource == null ? "" : resource;
    }

    /** Whether {@code uri} is a DNS target ({@code dns:} or {@code dns+<transport>:}), which {@link #parse} reads. */
    public static boolean isDns(final String uri)
    {
        final String lower = uri == null ? "" : uri.toLowerCase(Locale.ROOT);
        return lower.startsWith(SCHEME + ":") || lower.startsWith(PREFIX);
    }

    /**
     * Parses {@code dns:///host:port[/resource]} or {@code dns+<transport>:///host:port[/resource]}; the error says
     * what is wrong and shows the expected form.
     */
    public static DnsTarget parse(final String uri)
    {
        if (!isDns(uri))
        {
            throw new IllegalArgumentException("'" + uri + "' is no DNS target, e.g. dns:///kv.default.svc:7000/kv");
        }
        final int colon = uri.indexOf(':');
        final String scheme = uri.substring(0, colon).toLowerCase(Locale.ROOT);
        final String transport = scheme.equals(SCHEME) ? "tcp" : scheme.substring(PREFIX.length());
        final String rest = uri.substring(colon + 1);
        if (!rest.startsWith("///"))
        {
            throw new IllegalArgumentException("DNS target '" + uri + "' must read " + scheme + ":///host:port" +
                "[/resource]: an empty authority (the system's resolver answers), then the name and its port");
        }
        if (transport.isEmpty())
        {
            throw new IllegalArgumentException("DNS target '" + uri + "' names no transport after '+'");
        }
        final XioUri address = XioUri.parse(transport + "://" + rest.substring(3));
        if (address.port() <= 0)
        {
            throw new IllegalArgumentException("DNS target '" + uri + "' needs a port, e.g. " + scheme +
                ":///kv.default.svc:7000");
        }
        return new DnsTarget(transport, address.host(), address.port(), address.resource());
    }

    /** The URI of this name without its resource: what a {@link DnsEndpointResolver} watches. */
    public String service()
    {
        return withResource("");
    }

    /** This target as a URI, with {@code name} as its resource (none when empty). */
    public String withResource(final String name)
    {
        final String scheme = "tcp".equals(transport) ? SCHEME : PREFIX + transport;
        final String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        return scheme + ":///" + h + ":" + port + (name.isEmpty() ? "" : "/" + name);
    }

    /** The portal of {@code address}: this target's transport and port at that address. */
    public XioUri portal(final InetAddress address)
    {
        return new XioUri(transport, address.getHostAddress(), port, "");
    }

    /** The portal the name itself gives (its host, not an address): for TLS settings checked against a name. */
    public XioUri named()
    {
        return new XioUri(transport, host, port, resource);
    }

    @Override
    public String toString()
    {
        return withResource(resource);
    }
}
