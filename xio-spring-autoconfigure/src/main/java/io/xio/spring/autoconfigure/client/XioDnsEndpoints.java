package io.xio.spring.autoconfigure.client;

import io.xio.cluster.DnsEndpointResolver;
import io.xio.spring.autoconfigure.XioProperties;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.PropertyMapper;

/**
 * The application context's one {@link DnsEndpointResolver}, shared by every client whose address is a DNS name
 * ({@code dns:///kv.prod.svc:7000/kv}): one thread and one rate limit for the whole application however many clients
 * it has, and one lookup per name however many clients call it. Built from {@code xio.client.dns.*} when the first
 * such client is made (an application without one starts no thread), and closed with the context, never by a
 * client. It is no {@code EndpointResolver} bean on purpose: that type is the application's discovery resolver.
 * Thread-safe.
 */
public final class XioDnsEndpoints implements AutoCloseable
{
    private final XioProperties.Dns settings;
    private @Nullable DnsEndpointResolver resolver;
    private boolean closed;

    public XioDnsEndpoints(final XioProperties.Dns settings)
    {
        this.settings = settings;
    }

    /**
     * The shared resolver, built on the first call.
     *
     * @throws IllegalStateException once closed
     */
    public synchronized DnsEndpointResolver resolver()
    {
        if (closed)
        {
            throw new IllegalStateException("the application's DNS resolver is closed");
        }
        if (resolver == null)
        {
            final DnsEndpointResolver.Builder builder = DnsEndpointResolver.builder();
            final PropertyMapper map = PropertyMapper.get();
            map.from(settings::getRefreshInterval).to(builder::refreshInterval);
            map.from(settings::getMinRefreshInterval).to(builder::minRefreshInterval);
            map.from(settings::getMaxAddresses).to(builder::maxAddresses);
            map.from(settings::getAddressFamily).to(builder::addressFamily);
            resolver = builder.build();
        }
        return resolver;
    }

    /** Stops the shared resolver's lookups and thread, if it was built. */
    @Override
    public synchronized void close()
    {
        closed = true;
        if (resolver != null)
        {
            resolver.close();
        }
    }
}
