package io.xio.engine.transport.tcp;

import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportProvider;

/** Registers {@link TcpTransport} with every engine, under the scheme {@code tcp}. */
public final class TcpTransportProvider implements TransportProvider
{
    @Override
    public String scheme()
    {
        return "tcp";
    }

    @Override
    public Transport newTransport()
    {
        return new TcpTransport();
    }
}
