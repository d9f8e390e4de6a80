package io.xio.spring.test;

import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.autoconfigure.XioProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;

import java.util.ArrayList;
import java.util.List;

/**
 * Imported by {@link AutoConfigureXioLocalTransport}: the engine of the test's context gets the
 * {@link XioLocalTransport} in place of its network transports. Off with {@code xio.enabled=false}, as the rest of
 * xio is.
 */
@AutoConfiguration(before = XioAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "xio.enabled", matchIfMissing = true)
public final class XioLocalTransportAutoConfiguration
{
    private static final Logger LOG = LoggerFactory.getLogger(XioLocalTransportAutoConfiguration.class);

    @Bean
    XioLocalTransport xioLocalTransport()
    {
        return new XioLocalTransport();
    }

    /**
     * Warns once per context of the configured {@code tls://} portals and clients: under the switch no handshake
     * runs and no certificate is checked, so a test cannot find a mistake in their TLS settings other than a
     * misnamed bundle.
     */
    @Bean
    SmartInitializingSingleton xioLocalTransportTlsWarning(final ObjectProvider<XioProperties> properties)
    {
        return () -> properties.ifAvailable(xio ->
        {
            final List<String> tls = new ArrayList<>();
            for (int i = 0; i < xio.getPortals().size(); i++)
            {
                final XioProperties.Portal portal = xio.getPortals().get(i);
                if (isTls(portal.getUri()))
                {
                    tls.add("xio.portals[" + i + "].uri=" + portal.getUri() + (portal.getSsl().getClientAuth() ==
                        XioProperties.ClientAuth.NONE ? "" : " (client-auth " + portal.getSsl().getClientAuth() +
                        " is not enforced)"));
                }
            }
            xio.getClients().forEach((name, client) ->
            {
                if (isTls(client.getUri()))
                {
                    tls.add("xio.clients." + name + ".uri=" + client.getUri());
                }
            });
            if (!tls.isEmpty())
            {
                LOG.warn("Under the local-transport switch these run without TLS (no handshake, no certificate " +
                    "checked): {}", String.join(", ", tls));
            }
        });
    }

    private static boolean isTls(final String uri)
    {
        return uri != null && uri.regionMatches(true, 0, "tls://", 0, 6);
    }
}
