package io.xio.spring.service;

import io.xio.engine.XioException;
import io.xio.engine.transport.AddressInUseException;

/**
 * A configured portal could not be bound when the application started, carrying the property that configured it
 * and its URI so that start-up failure analysis can name both. Thrown by {@link XioServiceExporter#start()} on the
 * thread that starts the application context.
 */
public class XioPortalBindException extends XioException
{
    private static final long serialVersionUID = 1L;

    private final String property;

    private final String uri;

    public XioPortalBindException(final String property, final String uri, final Throwable cause)
    {
        super("cannot bind the portal " + property + "=" + uri + ": " + cause.getMessage(), cause);
        this.property = property;
        this.uri = uri;
    }

    /** The property that configured the portal, such as {@code xio.portals[0].uri}. */
    public String property()
    {
        return property;
    }

    /** The portal's URI as configured. */
    public String uri()
    {
        return uri;
    }

    /**
     * Whether the address was taken: another process (or portal) listens there already, at a socket port (tcp, tls)
     * or under a name (shm, local) or port (rdma) of the engine's own transports.
     */
    public boolean isAddressInUse()
    {
        for (Throwable cause = getCause(); cause != null; cause = cause.getCause())
        {
            if (cause instanceof java.net.BindException || cause instanceof AddressInUseException)
            {
                return true;
            }
        }
        return false;
    }
}
