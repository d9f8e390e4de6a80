package io.xio.engine.transport;

import io.xio.engine.XioUri;

/** A listening endpoint of a transport, owned by the context it was opened on. */
public interface TransportListener
{
    /** The address peers connect to (with the real port when port 0 was asked for). */
    XioUri address();

    /**
     * Stops accepting; links already accepted are not affected. Context thread only. A second close does nothing:
     * a portal closed by the application is closed again when its engine closes.
     */
    void close();

    /** A listener at {@code address} that {@code onClose} stops, once however often it is closed. */
    static TransportListener of(final XioUri address, final Runnable onClose)
    {
        return new TransportListener()
        {
            private boolean closed;

            @Override
            public XioUri address()
            {
                return address;
            }

            @Override
            public void close()
            {
                if (!closed)
                {
                    closed = true;
                    onClose.run();
                }
            }
        };
    }
}
