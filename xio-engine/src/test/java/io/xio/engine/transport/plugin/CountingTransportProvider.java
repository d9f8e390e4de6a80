package io.xio.engine.transport.plugin;

import io.xio.engine.XioUri;
import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.TransportLink;
import io.xio.engine.transport.TransportListener;
import io.xio.engine.transport.TransportProvider;
import io.xio.engine.transport.local.LocalTransport;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A transport plugged in the way a third-party jar would: listed in this module's test
 * {@code META-INF/services}, scheme {@code counted}, moving frames like {@code local} and counting what it does.
 */
public final class CountingTransportProvider implements TransportProvider
{
    static final AtomicInteger TRANSPORTS = new AtomicInteger();
    static final AtomicInteger LISTENS = new AtomicInteger();
    static final AtomicInteger CONNECTS = new AtomicInteger();

    @Override
    public String scheme()
    {
        return "counted";
    }

    @Override
    public Transport newTransport()
    {
        TRANSPORTS.incrementAndGet();
        final Transport frames = new LocalTransport();
        return new Transport()
        {
            @Override
            public String scheme()
            {
                return "counted";
            }

            @Override
            public TransportListener listen(final XioUri address, final TransportContext context,
                final Consumer<TransportLink> onAccept) throws IOException
            {
                LISTENS.incrementAndGet();
                return frames.listen(address, context, onAccept);
            }

            @Override
            public Runnable connect(final XioUri address, final TransportContext context,
                final ConnectCallback callback)
            {
                CONNECTS.incrementAndGet();
                return frames.connect(address, context, callback);
            }
        };
    }
}
