package io.xio.spring.http;

import io.xio.engine.CallOptions;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.PeerIdentity;
import io.xio.engine.Session;
import io.xio.engine.SessionStatistics;
import io.xio.engine.XioFuture;
import io.xio.engine.XioUri;
import org.jspecify.annotations.Nullable;

import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The server side of one HTTP call, as a service's interceptors see it ({@code XioServerCall.session()}): its
 * transport {@value #SCHEME}, the service it names, who the web server's security authenticated (the principal
 * Spring Security put on the request, which method security then sees) and the client's address. It carries this
 * one call and sends nothing back the other way: the methods that would send requests refuse. Immutable.
 */
final class XioHttpSession implements Session
{
    /** The transport an HTTP call is observed under. */
    static final String SCHEME = "http";

    private final XioUri uri;
    private final @Nullable Principal principal;
    private final String peer;

    /**
     * @param host the web server's host as the request named it
     * @param port the web server's port
     * @param service the service called (the resource an xio client would open)
     * @param principal who the web server authenticated, or null when nobody
     * @param peer the client's address
     */
    XioHttpSession(final String host, final int port, final String service, final @Nullable Principal principal,
        final String peer)
    {
        this.uri = new XioUri(SCHEME, host.isEmpty() ? "localhost" : host, Math.max(port, 0), service);
        this.principal = principal;
        this.peer = peer;
    }

    @Override
    public long id()
    {
        return 0;
    }

    @Override
    public XioUri uri()
    {
        return uri;
    }

    @Override
    public String resource()
    {
        return uri.resource();
    }

    @Override
    public Map<String, String> attributes()
    {
        return Map.of();
    }

    @Override
    public boolean isOpen()
    {
        return true;
    }

    @Override
    public @Nullable Principal principal()
    {
        return principal;
    }

    @Override
    public PeerIdentity peer()
    {
        return PeerIdentity.of(peer);
    }

    @Override
    public boolean isServerSide()
    {
        return true;
    }

    @Override
    public List<String> peerAddresses()
    {
        return List.of(peer);
    }

    @Override
    public int connectionCount()
    {
        return 1;
    }

    @Override
    public SessionStatistics statistics()
    {
        return new SessionStatistics(0, 1, 0, 1, 0, 0, 0);
    }

    @Override
    public XioFuture<Message> request(final Outbound message, final CallOptions options)
    {
        throw new UnsupportedOperationException("an HTTP caller takes no requests");
    }

    @Override
    public XioFuture<Void> send(final Outbound message, final CallOptions options)
    {
        throw new UnsupportedOperationException("an HTTP caller takes no messages");
    }

    @Override
    public CompletableFuture<Integer> cancel(final long firstId, final long lastId)
    {
        return CompletableFuture.completedFuture(0);
    }

    @Override
    public CompletableFuture<Integer> cancelAll()
    {
        return CompletableFuture.completedFuture(0);
    }

    @Override
    public void abortConnections()
    {
        // the web server owns the connection
    }

    @Override
    public void close()
    {
        // the web server owns the connection
    }

    @Override
    public String toString()
    {
        return "XioHttpSession{" + uri + ", peer=" + peer + "}";
    }
}
