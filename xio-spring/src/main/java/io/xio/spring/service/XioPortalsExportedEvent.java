package io.xio.spring.service;

import io.xio.engine.Portal;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationEvent;

import java.util.List;

/**
 * Published by the {@link XioServiceExporter} once it exported the services and bound the portals (at every start):
 * each portal with the URI it is bound at, its real port where {@code port 0} was asked for, in the order of
 * {@code xio.portals}. Listeners run on the thread that starts the application context. The xio counterpart of
 * Boot's {@code WebServerInitializedEvent}.
 */
public class XioPortalsExportedEvent extends ApplicationEvent
{
    private final transient ApplicationContext applicationContext;
    private final transient List<Portal> portals;

    public XioPortalsExportedEvent(final XioServiceExporter exporter, final ApplicationContext applicationContext,
        final List<Portal> portals)
    {
        super(exporter);
        this.applicationContext = applicationContext;
        this.portals = List.copyOf(portals);
    }

    /** The context of the exporter: the event reaches the listeners of its parent contexts too. */
    public ApplicationContext getApplicationContext()
    {
        return applicationContext;
    }

    /** The exporter that bound the portals. */
    public XioServiceExporter getExporter()
    {
        return (XioServiceExporter)getSource();
    }

    /** The bound portals, in the order of {@code xio.portals}. */
    public List<Portal> getPortals()
    {
        return portals;
    }
}
