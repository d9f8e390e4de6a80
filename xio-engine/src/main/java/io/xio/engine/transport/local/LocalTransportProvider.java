package io.xio.engine.transport.local;

import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportProvider;

/** Registers {@link LocalTransport} with every engine, under the scheme {@code local}. */
public final class LocalTransportProvider implements TransportProvider
{
    @Override
    public String scheme()
    {
        return "local";
    }

    @Override
    public Transport newTransport()
    {
        return new LocalTransport();
    }
}
