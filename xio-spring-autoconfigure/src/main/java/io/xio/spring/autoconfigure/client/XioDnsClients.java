package io.xio.spring.autoconfigure.client;

import io.xio.cluster.DnsEndpointResolver;
import io.xio.cluster.DnsTarget;
import io.xio.cluster.LoadBalancer;
import io.xio.spring.client.XioClientSettings;
import org.springframework.beans.factory.BeanFactory;

import java.util.List;

/**
 * The settings of a client whose address is a DNS name ({@code dns:///kv.prod.svc:7000/kv}): a service client over
 * every address of the name, through the application's shared {@link DnsEndpointResolver} ({@link XioDnsEndpoints},
 * which the context closes, not the client). Called on the thread that creates the client bean.
 */
final class XioDnsClients
{
    private XioDnsClients()
    {
    }

    /**
     * The service of the DNS target {@code uri}: its resource, the transport it names, the shared resolver.
     *
     * @throws IllegalArgumentException when {@code uri} is no DNS target or names no resource
     */
    static XioClientSettings.Service service(final String uri, final LoadBalancer balancer,
        final BeanFactory beans)
    {
        final DnsTarget target = checked(uri);
        final XioDnsEndpoints shared = beans.getBeanProvider(XioDnsEndpoints.class).getIfAvailable();
        if (shared == null)
        {
            throw new IllegalStateException("a client of the DNS name " + uri + " needs the XioDnsEndpoints bean " +
                "of the xio auto-configuration; there is none");
        }
        return new XioClientSettings.Service(target.service(), target.resource(), balancer,
            List.of(target.transport()), shared.resolver());
    }

    /**
     * The DNS target {@code uri}, which must name a resource, as {@code xio.clients.<name>.uri} checks it.
     *
     * @throws IllegalArgumentException saying what is missing
     */
    static DnsTarget checked(final String uri)
    {
        final DnsTarget target = DnsTarget.parse(uri);
        if (target.resource().isEmpty())
        {
            throw new IllegalArgumentException("'" + uri + "' names no resource, e.g. " +
                "dns:///kv.default.svc.cluster.local:7000/kv");
        }
        return target;
    }

    /**
     * The address TLS settings are checked against: a DNS target's transport, name and port ({@code tls://kv:7443}
     * for {@code dns+tls:///kv:7443/kv}, so that {@code xio.client.ssl} applies to it), else {@code uri} itself.
     */
    static String tlsAddress(final String uri)
    {
        return DnsTarget.isDns(uri) ? DnsTarget.parse(uri).named().toString() : uri;
    }
}
