package io.xio.engine.transport.tls;

import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportProvider;

/** Registers {@link TlsTransport} with every engine, under the scheme {@code tls} (tcp with TLS). */
public final class TlsTransportProvider implements TransportProvider
{
    @Override
    public String scheme()
    {
        return "tls";
    }

    @Override
    public Transport newTransport()
    {
        return new TlsTransport();
    }
}
