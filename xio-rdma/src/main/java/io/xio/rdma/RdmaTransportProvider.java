package io.xio.rdma;

import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportProvider;

/** Registers {@link RdmaTransport} with every engine, under the scheme {@code rdma}. */
public final class RdmaTransportProvider implements TransportProvider
{
    @Override
    public String scheme()
    {
        return "rdma";
    }

    @Override
    public Transport newTransport()
    {
        return new RdmaTransport();
    }
}
