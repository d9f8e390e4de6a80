package io.xio.engine.session.connection;

import io.xio.engine.Context;
import io.xio.engine.Portal;
import io.xio.engine.SessionAcceptor;
import io.xio.engine.XioException;
import io.xio.engine.XioUri;
import io.xio.engine.session.EngineCore;
import io.xio.engine.transport.TransportListener;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/** A bound portal: a transport listener on one context plus the acceptor that answers set-ups there. */
public final class PortalImpl implements Portal
{
    private final EngineCore engine;
    /** The context's registry; another one's after {@link #rebind}. */
    private volatile Peers peers;
    private final SessionAcceptor acceptor;
    /** The portal's TLS options, or the engine's; null when neither has any. */
    private final io.xio.engine.TlsOptions tls;
    private volatile TransportListener listener;
    private volatile XioUri uri;
    private volatile boolean open = true;
    /** Connections accepted here and open (atomic: a failed context's close while its replacement accepts). */
    private final AtomicInteger connections = new AtomicInteger();

    private PortalImpl(final EngineCore engine, final Peers peers, final SessionAcceptor acceptor,
        final io.xio.engine.TlsOptions tls)
    {
        this.engine = engine;
        this.peers = peers;
        this.acceptor = acceptor;
        this.tls = tls != null ? tls : engine.tls;
    }

    /** The TLS options this portal accepts with; null when it is no tls portal and the engine has none. */
    public io.xio.engine.TlsOptions tls()
    {
        return tls;
    }

    /**
     * Binds {@code address} on context {@code index}, with the portal's own TLS options (null for the engine's);
     * completes once listening. Any thread.
     */
    public static CompletableFuture<Portal> bind(final EngineCore engine, final XioUri address, final int index,
        final SessionAcceptor acceptor, final io.xio.engine.TlsOptions tls)
    {
        final PortalImpl portal = new PortalImpl(engine, engine.peers(index), acceptor, tls);
        final CompletableFuture<Portal> bound = new CompletableFuture<>();
        portal.peers.loop.execute(() ->
        {
            try
            {
                portal.listener = engine.transport(address.scheme()).listen(address, portal.peers.loop, portal.tls,
                    link -> portal.accepted(link));
                portal.uri = portal.listener.address();
                engine.portals.add(portal);
                bound.complete(portal);
            }
            catch (final Exception ex)
            {
                bound.completeExceptionally(ex instanceof XioException ? ex :
                    new XioException("cannot bind portal " + address + ": " + ex.getMessage(), ex));
            }
        });
        return bound;
    }

    private void accepted(final io.xio.engine.transport.TransportLink link)
    {
        if (!open)
        {
            // Closed, but its listener stops only on this context's next turn: a select that woke for the close
            // can still hand over a connection that queued before it.
            link.close(null);
            return;
        }
        final Connection connection = new Connection(engine, peers, link, null, null, this);
        if (connection.admit())
        {
            connection.start();
        }
        else
        {
            link.close(null); // refused before it could cost anything: nothing read, nothing answered
        }
    }

    boolean tryAddConnection(final int max)
    {
        if (connections.incrementAndGet() > max)
        {
            connections.decrementAndGet();
            return false;
        }
        return true;
    }

    void removeConnection()
    {
        connections.decrementAndGet();
    }

    /**
     * The portal's context failed: stops listening, on that context's thread (which owns the listener), so that
     * its address is free for {@link #rebind}. The portal stays open.
     */
    public void contextFailed()
    {
        final TransportListener current = listener;
        listener = null;
        if (current != null)
        {
            current.close();
        }
    }

    /**
     * Listens again at the portal's address, on {@code fresh} (the replacement of its failed context); completes
     * once listening. A portal that cannot bind again is closed. Any thread.
     */
    public CompletableFuture<Portal> rebind(final Peers fresh)
    {
        peers = fresh;
        final CompletableFuture<Portal> bound = new CompletableFuture<>();
        fresh.loop.execute(() ->
        {
            if (!open)
            {
                bound.completeExceptionally(new XioException("portal " + uri + " was closed"));
                return;
            }
            try
            {
                listener = engine.transport(uri.scheme()).listen(uri, fresh.loop, tls, this::accepted);
                if (!open)
                {
                    // Closed while this listened again: that close found no listener to stop, so this one does.
                    contextFailed();
                    bound.completeExceptionally(new XioException("portal " + uri + " was closed"));
                    return;
                }
                bound.complete(this);
            }
            catch (final Exception ex)
            {
                open = false;
                bound.completeExceptionally(new XioException("cannot bind portal " + uri + " again: " +
                    ex.getMessage(), ex));
            }
        });
        return bound;
    }

    public SessionAcceptor acceptor()
    {
        return acceptor;
    }

    @Override
    public XioUri uri()
    {
        return uri;
    }

    @Override
    public Context context()
    {
        return peers.loop;
    }

    @Override
    public boolean isOpen()
    {
        return open;
    }

    @Override
    public void close()
    {
        open = false;
        engine.portals.remove(this);
        final TransportListener current = listener;
        if (current != null && !peers.loop.isClosed())
        {
            peers.loop.execute(current::close);
        }
    }

    @Override
    public String toString()
    {
        return "Portal[" + uri + " on " + peers.loop.name() + "]";
    }
}
