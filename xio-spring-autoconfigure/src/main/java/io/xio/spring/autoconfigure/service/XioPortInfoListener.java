package io.xio.spring.autoconfigure.service;

import io.xio.spring.service.XioPortalsExportedEvent;
import io.xio.engine.Portal;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Puts the ports the portals are bound at into the {@link org.springframework.core.env.Environment}, as Boot does
 * with {@code local.server.port}, so that a portal configured with port 0 (a random free one) can be found:
 * {@code local.xio.port} is the port of the first portal that has one (tcp, tls, rdma), {@code local.xio.ports[i]}
 * the port of the portal {@code xio.portals[i]} (only for portals that have one). Resolvable once the context is
 * started: in a test's {@code @Value("${local.xio.port}")}, in a client built afterwards, in another context; not in
 * the client beans of the same context, which are made before the portals are bound. Called on the thread that
 * starts the application context.
 */
public final class XioPortInfoListener implements ApplicationListener<XioPortalsExportedEvent>
{
    /** The name of the property source that holds the ports. */
    public static final String PROPERTY_SOURCE_NAME = "xio.ports";

    private final ApplicationContext context;
    private final ConfigurableEnvironment environment;

    /** The source this listener created, the only one it changes. */
    private volatile MapPropertySource own;

    /** Publishes the ports of {@code context}'s own portals into {@code environment}, its environment. */
    public XioPortInfoListener(final ApplicationContext context, final ConfigurableEnvironment environment)
    {
        this.context = context;
        this.environment = environment;
    }

    @Override
    public void onApplicationEvent(final XioPortalsExportedEvent event)
    {
        if (event.getApplicationContext() != context)
        {
            return; // a child context's portals: its own listener publishes them into its own environment
        }
        final Map<String, Object> ports = ports(event.getPortals());
        final MapPropertySource own = this.own;
        if (own != null && environment.getPropertySources().get(PROPERTY_SOURCE_NAME) == own)
        {
            // A restart binds again, maybe at other ports: none of the last start's may stay.
            own.getSource().clear();
            own.getSource().putAll(ports);
            return;
        }
        // A source of that name that is not ours is a parent context's, shared by reference since the environments
        // were merged: ours goes in front of it, and the parent's stays as it is.
        final MapPropertySource created = new MapPropertySource(PROPERTY_SOURCE_NAME, ports);
        final MutablePropertySources sources = environment.getPropertySources();
        sources.remove(PROPERTY_SOURCE_NAME);
        sources.addFirst(created);
        this.own = created;
    }

    private static Map<String, Object> ports(final List<Portal> portals)
    {
        final Map<String, Object> ports = new HashMap<>();
        for (int i = 0; i < portals.size(); i++)
        {
            final int port = portals.get(i).uri().port();
            if (port > 0)
            {
                ports.putIfAbsent("local.xio.port", port);
                ports.put("local.xio.ports[" + i + "]", port);
            }
        }
        return ports;
    }
}
