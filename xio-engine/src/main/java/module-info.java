/**
 * The xio engine. Applications use {@code io.xio.engine} (and the helpers built on it in
 * {@code io.xio.engine.support}, and the {@link java.util.concurrent.Flow} view of streams in
 * {@code io.xio.engine.flow}); transports plug in through the SPI in
 * {@code io.xio.engine.transport} (with the stream-link base and the buffer pools it hands out). Contexts,
 * sessions, the wire protocol and the built-in transports' classes are not exported: on the class path, where
 * the module system does not enforce this, the architecture tests do.
 */
module io.xio.engine
{
    requires org.agrona.core;
    requires jdk.unsupported; // sun.misc.Unsafe: a recycled XioFuture made incomplete again (FutureRecycler)
    requires org.slf4j;
    requires jdk.net; // SO_PEERCRED: the user of an shm portal's peer, without native code

    exports io.xio.engine;
    exports io.xio.engine.flow;
    exports io.xio.engine.memory;
    exports io.xio.engine.support;
    exports io.xio.engine.transport;
    exports io.xio.engine.transport.stream;

    uses io.xio.engine.transport.TransportProvider;

    provides io.xio.engine.transport.TransportProvider with
        io.xio.engine.transport.tcp.TcpTransportProvider,
        io.xio.engine.transport.local.LocalTransportProvider,
        io.xio.engine.transport.shm.ShmTransportProvider,
        io.xio.engine.transport.tls.TlsTransportProvider;
}
