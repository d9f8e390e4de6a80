package io.xio.spring.autoconfigure;

import io.xio.engine.TlsOptions;
import io.xio.spring.autoconfigure.ssl.XioSslBundles;
import io.xio.spring.error.XioErrorDisclosure;
import io.xio.spring.service.XioServiceExporter;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundles;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@link XioServiceExporter.Server} the {@code xio.portals}, {@code xio.server.*} and {@code xio.shutdown.*}
 * properties describe: the portals with their SSL bundles' TLS options, made here so that a bundle that cannot
 * apply fails start-up naming its property, and the services' bounds under the property the exporter's failures
 * name. Called on the thread that creates the exporter bean.
 */
final class XioExporterSettings
{
    private XioExporterSettings()
    {
    }

    /**
     * The exporter's server settings from {@code properties}.
     *
     * @param sslBundles the context's SSL bundles, or null when it has none
     */
    static XioServiceExporter.Server server(final XioProperties properties, final SslBundles sslBundles)
    {
        final List<XioServiceExporter.PortalBinding> portals = new ArrayList<>();
        for (int i = 0; i < properties.getPortals().size(); i++)
        {
            final XioProperties.Portal portal = properties.getPortals().get(i);
            portals.add(new XioServiceExporter.PortalBinding(portal.getUri(), tls(portal, i, sslBundles),
                "xio.portals[" + i + "].uri"));
        }
        final Map<String, XioServiceExporter.ServiceBounds> services = new LinkedHashMap<>();
        properties.getServer().getServices().forEach((resource, bounds) -> services.put(resource,
            new XioServiceExporter.ServiceBounds(bounds.getMaxConcurrentCalls(), bounds.getMaxQueuedCalls())));
        final XioProperties.Error error = properties.getServer().getError();
        return new XioServiceExporter.Server(portals, switch (properties.getServer().getRedirect())
            {
                case NONE -> XioServiceExporter.Redirect.NONE;
                case ROUND_ROBIN -> XioServiceExporter.Redirect.ROUND_ROBIN;
                case HASH -> XioServiceExporter.Redirect.HASH;
            }, services, "xio.server.services",
            new XioErrorDisclosure(error.getIncludeMessage() == XioProperties.IncludeMessage.ALWAYS,
                error.isIncludeException()),
            properties.getShutdown().getGracePeriod());
    }

    /**
     * The TLS options of the portal's SSL bundle, or null when it names none. Fails naming the property it cannot
     * apply.
     */
    private static TlsOptions tls(final XioProperties.Portal portal, final int index, final SslBundles sslBundles)
    {
        if (portal.getSsl().getBundle() == null)
        {
            return null;
        }
        final TlsOptions tls = XioSslBundles.tlsOptions(sslBundles, "xio.portals[" + index + "].ssl.bundle",
            portal.getSsl().getBundle(), portal.getUri());
        checkClientAuthTrust(portal, index, sslBundles);
        return tls.withClientAuth(switch (portal.getSsl().getClientAuth())
        {
            case NONE -> TlsOptions.ClientAuth.NONE;
            case WANT -> TlsOptions.ClientAuth.WANT;
            case NEED -> TlsOptions.ClientAuth.REQUIRE;
        });
    }

    /**
     * Checks that a portal asking for client certificates has a truststore to check them with: without one the
     * JDK's default trust (the public CAs) would decide who a client is.
     */
    private static void checkClientAuthTrust(final XioProperties.Portal portal, final int index,
        final SslBundles sslBundles)
    {
        if (portal.getSsl().getClientAuth() != XioProperties.ClientAuth.NONE &&
            sslBundles.getBundle(portal.getSsl().getBundle()).getStores().getTrustStore() == null)
        {
            throw new InvalidConfigurationPropertyValueException("xio.portals[" + index + "].ssl.client-auth",
                portal.getSsl().getClientAuth().name().toLowerCase(Locale.ROOT), "the SSL bundle '" +
                portal.getSsl().getBundle() + "' has no truststore to check client certificates with (set " +
                "spring.ssl.bundle.*." + portal.getSsl().getBundle() + ".truststore.*)");
        }
    }
}
