package io.xio.spring.test;

import io.xio.engine.XioUri;
import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.TransportLink;
import io.xio.engine.transport.TransportListener;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * A transport of one scheme ({@code tcp}, {@code tls}, {@code shm}, {@code local}) that binds and connects over the
 * {@code local} transport under the names {@link XioLocalTransport} gives. Thread-safe, as the local transport is.
 */
final class RoutedTransport implements Transport
{
    private final String scheme;
    private final Transport local;
    private final XioLocalTransport names;

    RoutedTransport(final String scheme, final Transport local, final XioLocalTransport names)
    {
        this.scheme = scheme;
        this.local = local;
        this.names = names;
    }

    @Override
    public String scheme()
    {
        return scheme;
    }

    @Override
    public TransportListener listen(final XioUri address, final TransportContext context,
        final Consumer<TransportLink> onAccept) throws IOException
    {
        final int port = address.port() == 0 ? XioLocalTransport.standInPort() : address.port();
        final String name = names.localName(address, port);
        final TransportListener listener = local.listen(new XioUri("local", name, -1, ""), context, onAccept);
        return TransportListener.of(new XioUri("local", name, port, ""), listener::close);
    }

    @Override
    public Runnable connect(final XioUri address, final TransportContext context, final ConnectCallback callback)
    {
        return local.connect(new XioUri("local", names.localName(address, address.port()), -1, ""), context,
            callback);
    }
}
