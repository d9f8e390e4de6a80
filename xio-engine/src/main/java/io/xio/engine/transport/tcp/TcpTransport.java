package io.xio.engine.transport.tcp;

import io.xio.engine.ConnectionException;
import io.xio.engine.XioUri;
import io.xio.engine.transport.Channels;
import io.xio.engine.transport.SelectionHandler;
import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.TransportLink;
import io.xio.engine.transport.TransportListener;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;


/**
 * The {@code tcp} transport: non-blocking NIO on the context's selector. Its listening and dialling take a
 * {@link Links} that makes the link of each connected socket, so a transport over tcp (TLS) reuses them. Stateless
 * and thread-safe.
 */
public final class TcpTransport implements Transport
{
    /** Makes the link of a socket once it is connected (accepted, or dialled). On the context thread. */
    @FunctionalInterface
    public interface Links
    {
        TcpLink newLink(TransportContext context, SocketChannel channel) throws IOException;
    }

    private static final Links PLAIN = TcpLink::new;

    @Override
    public String scheme()
    {
        return "tcp";
    }

    @Override
    public TransportListener listen(final XioUri address, final TransportContext context,
        final Consumer<TransportLink> onAccept) throws IOException
    {
        return listen(address, context, PLAIN, onAccept);
    }

    @Override
    public Runnable connect(final XioUri address, final TransportContext context, final ConnectCallback callback)
    {
        return connect(address, context, PLAIN, callback);
    }

    /** Listens at {@code address}'s host and port; each accepted socket becomes a link of {@code links}. */
    public static TransportListener listen(final XioUri address, final TransportContext context, final Links links,
        final Consumer<TransportLink> onAccept) throws IOException
    {
        final ServerSocketChannel server = ServerSocketChannel.open();
        try
        {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, Boolean.TRUE);
            server.bind(new InetSocketAddress(address.host(), Math.max(0, address.port())), 1024);
            server.configureBlocking(false);
        }
        catch (final IOException ex)
        {
            server.close();
            throw new IOException("cannot bind " + address + ": " + ex.getMessage(), ex);
        }
        final int port = ((InetSocketAddress)server.getLocalAddress()).getPort();
        final XioUri bound = address.endpoint().withPort(port);
        final SelectionHandler acceptor = key ->
        {
            for (int i = 0; i < 64; i++)
            {
                final SocketChannel channel;
                try
                {
                    channel = server.accept();
                }
                catch (final IOException ex)
                {
                    Channels.pauseAccepting(key, context, bound, ex);
                    return;
                }
                if (channel == null)
                {
                    return;
                }
                try
                {
                    onAccept.accept(links.newLink(context, channel));
                }
                catch (final IOException ex)
                {
                    Channels.closeQuietly(channel);
                }
            }
        };
        final SelectionKey key = server.register(context.selector(), SelectionKey.OP_ACCEPT, acceptor);
        return TransportListener.of(bound, () ->
        {
            key.cancel();
            Channels.closeQuietly(server);
        });
    }

    /** Dials {@code address}'s host and port; the connected socket becomes a link of {@code links}. */
    public static Runnable connect(final XioUri address, final TransportContext context, final Links links,
        final ConnectCallback callback)
    {
        if (address.port() < 0)
        {
            callback.onFailed(new ConnectionException(address.scheme() + " address " + address + " needs a port"));
            return NO_ABORT;
        }
        SocketChannel channel = null;
        final TcpLink connected;
        try
        {
            channel = SocketChannel.open();
            channel.configureBlocking(false);
            connected = channel.connect(new InetSocketAddress(address.host(), address.port()))
                ? links.newLink(context, channel) : null;
        }
        catch (final IOException | RuntimeException ex)
        {
            if (channel != null)
            {
                Channels.closeQuietly(channel);
            }
            callback.onFailed(refused(address, ex));
            return NO_ABORT;
        }
        if (connected != null)
        {
            callback.onConnected(connected);
            return NO_ABORT;
        }
        final SocketChannel dialing = channel;
        try
        {
            dialing.register(context.selector(), SelectionKey.OP_CONNECT, (SelectionHandler)key ->
            {
                final TcpLink link;
                try
                {
                    if (!dialing.finishConnect())
                    {
                        return;
                    }
                    key.interestOps(0);
                    link = links.newLink(context, dialing);
                }
                catch (final IOException | RuntimeException ex)
                {
                    key.cancel();
                    Channels.closeQuietly(dialing);
                    callback.onFailed(refused(address, ex));
                    return;
                }
                callback.onConnected(link);
            });
        }
        catch (final IOException ex)
        {
            Channels.closeQuietly(dialing);
            callback.onFailed(refused(address, ex));
            return NO_ABORT;
        }
        return () -> Channels.closeQuietly(dialing);
    }

    private static final Runnable NO_ABORT = () -> { };

    private static ConnectionException refused(final XioUri address, final Exception ex)
    {
        return new ConnectionException("cannot connect to " + address.endpoint() + ": " + ex.getMessage(), ex);
    }

}
