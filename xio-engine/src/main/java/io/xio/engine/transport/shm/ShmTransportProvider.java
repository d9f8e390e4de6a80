package io.xio.engine.transport.shm;

import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportProvider;

/** Registers {@link ShmTransport} with every engine, under the scheme {@code shm}. */
public final class ShmTransportProvider implements TransportProvider
{
    @Override
    public String scheme()
    {
        return "shm";
    }

    @Override
    public Transport newTransport()
    {
        return new ShmTransport();
    }
}
