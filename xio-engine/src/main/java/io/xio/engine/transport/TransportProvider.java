package io.xio.engine.transport;

/**
 * Plugs a transport into every engine built in the JVM: found with {@link java.util.ServiceLoader} (listed in
 * {@code META-INF/services/io.xio.engine.transport.TransportProvider}, or {@code provides} in a module), one
 * new {@link Transport} per engine. The engine ships {@code tcp}, {@code tls}, {@code shm} and {@code local};
 * {@code rdma} comes with the {@code xio-rdma} jar. {@code XioEngine.Builder.transport} replaces one for a single
 * engine. Implementations need a public no-argument constructor and must be thread-safe.
 */
public interface TransportProvider
{
    /** The URI scheme the transport serves, such as {@code tcp}; unique among the providers on the class path. */
    String scheme();

    /** A transport for one engine; called once per engine built. */
    Transport newTransport();
}
