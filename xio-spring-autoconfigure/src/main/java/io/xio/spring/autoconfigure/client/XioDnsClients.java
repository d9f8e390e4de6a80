package io.xio.spring.autoconfigure.client;

import io.xio.cluster.DnsEndpointResolver;
import io.xio.cluster.DnsTarget;
import io.xio.cluster.LoadBalancer;
import io.xio.spring.autoconfigure.XioProperties;
import io.xio.spring.client.XioClientSettings;

import java.util.List;

/**
 * The settings of a client whose address is a DNS name ({@code dns:///kv.prod.svc:7000/kv}): a service client over
 * every address of the name, through a {@link DnsEndpointResolver} of its own that {@code xio.client.dns.*}
 * configures and the client closes with itself. Called on the thread that creates the client bean.
 */
final class XioDnsClients
{
    private XioDnsClients()
    {
    }

    /** The service of the DNS target {@code uri}: its resource, the transport it names, a resolver of its own. */
    static XioClientSettings.Service service(final String uri, final LoadBalancer balancer,
        final XioProperties.Dns dns)
    {
        final DnsTarget target = DnsTarget.parse(uri);
        final DnsEndpointResolver resolver = DnsEndpointResolver.builder()
            .refreshInterval(dns.getRefreshInterval())
            .minRefreshInterval(dns.getMinRefreshInterval())
            .maxAddresses(dns.getMaxAddresses())
            .build();
        return new XioClientSettings.Service(target.service(), target.resource(), balancer,
            List.of(target.transport()), resolver);
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
