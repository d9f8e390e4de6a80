package io.xio.engine;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * A parsed xio address: {@code transport://host[:port][/resource]}, e.g. {@code tcp://10.0.0.1:7000/kv}
 * or {@code local://demo/kv}. Immutable and thread-safe.
 *
 * @param scheme the transport's name
 * @param host host name or address; for {@code local} and {@code shm}, the portal's name
 * @param port the port, or -1 when none was given
 * @param resource the resource name, empty when none was given
 */
public record XioUri(String scheme, String host, int port, String resource)
{
    private static final int MAX_SHOWN = 200;

    public XioUri
    {
        if (scheme == null || scheme.isEmpty())
        {
            throw new IllegalArgumentException("xio URI needs a transport scheme such as tcp://");
        }
        if (host == null || host.isEmpty())
        {
            throw new IllegalArgumentException("xio URI " + scheme + "://... needs a host");
        }
        resource = resource == null ? "" : resource;
    }

    /**
     * Parses {@code text}; the error names the text and what is wrong with it. The text may come from a peer
     * (redirects, GOAWAY), so the error shows it with control characters escaped and at most
     * {@value #MAX_SHOWN} characters: a message that is logged cannot forge log lines.
     */
    public static XioUri parse(final String text)
    {
        final URI uri;
        try
        {
            uri = new URI(text);
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalArgumentException("malformed xio URI " + shown(text) + ": " + ex.getReason() +
                (ex.getIndex() >= 0 ? " at index " + ex.getIndex() : ""), ex);
        }
        if (uri.getScheme() == null)
        {
            throw new IllegalArgumentException("xio URI " + shown(text) + " has no transport scheme (e.g. tcp://)");
        }
        final String host = uri.getHost() != null ? uri.getHost() : uri.getAuthority();
        if (host == null || host.isEmpty())
        {
            throw new IllegalArgumentException("xio URI " + shown(text) + " has no host");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        if (path.startsWith("/"))
        {
            path = path.substring(1);
        }
        if (path.contains("/"))
        {
            throw new IllegalArgumentException("xio URI " + shown(text) + " has a nested resource path; use one name");
        }
        final boolean bracketed = host.startsWith("[") && host.endsWith("]");
        final String plainHost = bracketed ? host.substring(1, host.length() - 1) : host;
        return new XioUri(uri.getScheme().toLowerCase(java.util.Locale.ROOT), plainHost, uri.getPort(), path);
    }

    /** {@code text} quoted for an error message: control characters as Unicode escapes, long texts cut. */
    private static String shown(final String text)
    {
        final StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_SHOWN) + 8).append('\'');
        for (int i = 0; i < text.length() && i < MAX_SHOWN; i++)
        {
            final char c = text.charAt(i);
            if (Character.isISOControl(c))
            {
                out.append(String.format("\\u%04x", (int)c));
            }
            else
            {
                out.append(c);
            }
        }
        return out.append(text.length() > MAX_SHOWN ? "'..." : "'").toString();
    }

    /** This address without the resource: the transport endpoint. */
    public XioUri endpoint()
    {
        return resource.isEmpty() ? this : new XioUri(scheme, host, port, "");
    }

    public XioUri withResource(final String name)
    {
        return new XioUri(scheme, host, port, name);
    }

    public XioUri withPort(final int newPort)
    {
        return new XioUri(scheme, host, newPort, resource);
    }

    /**
     * Where to reach this portal from a client that reached {@code contacted}: a portal bound to every interface
     * (0.0.0.0 or ::) names no host a client can use, so the host the client already reached stands in.
     */
    public XioUri reachedVia(final XioUri contacted)
    {
        final boolean wildcard = "0.0.0.0".equals(host) || "::".equals(host) || "0:0:0:0:0:0:0:0".equals(host);
        return wildcard && scheme.equals(contacted.scheme) ? new XioUri(scheme, contacted.host, port, resource) : this;
    }

    /**
     * What a secret sent at {@code target} instead of this address loses, or null when nothing: from tls to another
     * scheme, from a local scheme (shm, local) to the network, or to another host than this one's (from a network
     * scheme; another port of the same host is fine). Clients ask before credentials or a session secret follow an
     * address a server named (a redirect, a GOAWAY, connection portals).
     */
    public String weakeningTo(final XioUri target)
    {
        if ("tls".equals(scheme) && !"tls".equals(target.scheme))
        {
            return "from tls to " + target.scheme;
        }
        final boolean local = isLocal(scheme);
        if (local && !isLocal(target.scheme))
        {
            return "from the local " + scheme + " transport to the network";
        }
        if (!local && !host.equalsIgnoreCase(target.host))
        {
            return "another host than " + host;
        }
        return null;
    }

    private static boolean isLocal(final String scheme)
    {
        return "shm".equals(scheme) || "local".equals(scheme);
    }

    @Override
    public String toString()
    {
        final String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        return scheme + "://" + h + (port >= 0 ? ":" + port : "") + (resource.isEmpty() ? "" : "/" + resource);
    }
}
