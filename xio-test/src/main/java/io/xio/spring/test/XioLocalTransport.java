package io.xio.spring.test;

import io.xio.engine.XioEngine;
import io.xio.engine.XioException;
import io.xio.engine.XioUri;
import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportProvider;
import io.xio.spring.autoconfigure.XioEngineCustomizer;
import org.springframework.core.Ordered;

import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Replaces the engine's {@code tcp}, {@code tls}, {@code shm} and {@code local} transports with ones that bind and
 * connect over the in-JVM {@code local} transport, under local portal names of their own:
 * {@code <namespace>-<scheme>-<port>} for an address with a port (whatever its host), {@code <namespace>-shm-<name>}
 * and {@code <namespace>-local-<name>} for the others. The scheme is part of the name, so that a {@code tls://} client
 * of a {@code tcp://} portal (or the reverse) fails with "no local portal" as its handshake would in production. The
 * namespace ({@code xio-test-n}) is new for every engine, so that each test context has its own portals. A portal
 * asked for at port 0 gets a stand-in port (counting up from 49152) that is unique in the JVM, so that a client given
 * another context's port does not reach a portal of its own; the portal's URI keeps the port
 * ({@code local://xio-test-1-tcp-7000:7000}), so that {@code local.xio.port} names it and a {@code tcp://} client
 * given that port reaches it. Runs last among the {@link XioEngineCustomizer}s, so that its transports are the ones
 * used. Thread-safe.
 */
public final class XioLocalTransport implements XioEngineCustomizer, Ordered
{
    /** The schemes served locally. */
    public static final List<String> SCHEMES = List.of("tcp", "tls", "shm", "local");

    private static final AtomicInteger ENGINES = new AtomicInteger();
    private static final int FIRST_STAND_IN_PORT = 49152;

    /** JVM-wide: a stand-in port another context also had would let a client given its port reach its own. */
    private static final AtomicInteger NEXT_STAND_IN_PORT = new AtomicInteger(FIRST_STAND_IN_PORT);

    private final String namespace = "xio-test-" + ENGINES.incrementAndGet();

    /** The prefix of the local portal names of this engine; a session's peer address starts with it. */
    public String namespace()
    {
        return namespace;
    }

    @Override
    public void customize(final XioEngine.Builder builder)
    {
        final Transport local = localTransport();
        SCHEMES.forEach(scheme -> builder.transport(new RoutedTransport(scheme, local, this)));
    }

    @Override
    public int getOrder()
    {
        return Ordered.LOWEST_PRECEDENCE;
    }

    /** The local portal name that stands in for {@code address} ({@code port}: the one it is bound or reached at). */
    String localName(final XioUri address, final int port)
    {
        return namespace + "-" + address.scheme() + "-" + (port >= 0 ? String.valueOf(port) : address.host());
    }

    /** A port no other portal in this JVM was given in place of port 0. */
    static int standInPort()
    {
        // wraps within the dynamic range; a JVM would need 16k port-0 binds at once to see a port twice
        return FIRST_STAND_IN_PORT + Math.floorMod(NEXT_STAND_IN_PORT.getAndIncrement() - FIRST_STAND_IN_PORT,
            65536 - FIRST_STAND_IN_PORT);
    }

    /** A transport of the {@code local} provider, through the transport SPI as any engine finds it. */
    private static Transport localTransport()
    {
        for (final TransportProvider provider : ServiceLoader.load(TransportProvider.class,
            XioEngine.class.getClassLoader()))
        {
            if ("local".equals(provider.scheme()))
            {
                return provider.newTransport();
            }
        }
        throw new XioException("no transport provider for the local scheme on the class path (xio-engine has one)");
    }
}
