package io.xio.actuate.health;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of the {@code xio} health indicator. */
@ConfigurationProperties("management.health.xio")
public class XioHealthProperties
{
    /**
     * Whether a client whose session is not established (its server down or unreachable) makes the health
     * DOWN. Off by default: such clients are shown in the details and the application stays UP.
     */
    private boolean requireClients;

    public boolean isRequireClients()
    {
        return requireClients;
    }

    public void setRequireClients(final boolean requireClients)
    {
        this.requireClients = requireClients;
    }
}
