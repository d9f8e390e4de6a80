package io.xio.engine.transport;

import io.xio.engine.XioUri;

/** A listening endpoint of a transport, owned by the context it was opened on. */
public interface TransportListener
{
    /** The address peers connect to (with the real port when port 0 was asked for). */
    XioUri address();

    /** Stops accepting; links already accepted are not affected. Context thread only. */
    void close();
}
