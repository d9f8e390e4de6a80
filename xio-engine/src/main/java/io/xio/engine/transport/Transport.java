package io.xio.engine.transport;

import io.xio.engine.XioUri;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * A way to move frames between two ends: one implementation per URI scheme ({@code tcp}, {@code shm},
 * {@code local}, {@code rdma} from {@code xio-rdma}), made for an engine by its {@link TransportProvider}.
 * Thread-safe; everything it creates belongs to the context it is given.
 */
public interface Transport
{
    String scheme();

    /**
     * Starts listening at the address on the context's thread (the caller is that thread).
     *
     * @param onAccept receives each accepted link on the context thread
     * @return the listener; its {@link TransportListener#address()} has the real port when 0 was asked for
     */
    TransportListener listen(XioUri address, TransportContext context, Consumer<TransportLink> onAccept)
        throws IOException;

    /**
     * Starts connecting on the context's thread (the caller is that thread); the outcome goes to the callback.
     *
     * @return aborts the attempt (after a timeout); the callback is then not called
     */
    Runnable connect(XioUri address, TransportContext context, ConnectCallback callback);

    /**
     * As {@link #listen(XioUri, TransportContext, Consumer)}, for a portal with TLS options (null for none): a
     * transport that has no use for them ignores them.
     */
    default TransportListener listen(final XioUri address, final TransportContext context,
        final io.xio.engine.TlsOptions tls, final Consumer<TransportLink> onAccept) throws IOException
    {
        return listen(address, context, onAccept);
    }

    /**
     * As {@link #connect(XioUri, TransportContext, ConnectCallback)}, for a session with TLS options (null for
     * none): a transport that has no use for them ignores them.
     */
    default Runnable connect(final XioUri address, final TransportContext context,
        final io.xio.engine.TlsOptions tls, final ConnectCallback callback)
    {
        return connect(address, context, callback);
    }

    /** Outcome of {@link #connect}; called once, on the context thread. */
    interface ConnectCallback
    {
        void onConnected(TransportLink link);

        void onFailed(Throwable cause);
    }

    /** Where {@code XioEngine.allocateShared} puts its files for this transport; null for a transport without any. */
    default java.nio.file.Path sharedMemoryDirectory()
    {
        return null;
    }
}
