package io.xio.engine;

import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportProvider;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceLoader;

/** Finds the transports an engine is built with. Called by the builder's thread. */
final class Transports
{
    private Transports()
    {
    }

    /**
     * The transports of the {@link TransportProvider}s on the class path, by scheme, then {@code added}, which
     * replace a provided one of the same scheme.
     *
     * @throws XioException when two providers claim one scheme
     */
    static Map<String, Transport> discovered(final Map<String, Transport> added)
    {
        final Map<String, Transport> all = new LinkedHashMap<>();
        for (final TransportProvider provider : ServiceLoader.load(TransportProvider.class,
            XioEngine.class.getClassLoader()))
        {
            if (all.containsKey(provider.scheme()))
            {
                throw new XioException("two transport providers for scheme '" + provider.scheme() + "': " +
                    all.get(provider.scheme()).getClass().getName() + " and " + provider.getClass().getName());
            }
            all.put(provider.scheme(), provider.newTransport());
        }
        all.putAll(added);
        return all;
    }
}
