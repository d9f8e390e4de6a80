package io.xio.spring.autoconfigure.cluster;

import io.xio.cluster.HostIdentity;
import io.xio.engine.Portal;
import io.xio.engine.XioUri;
import io.xio.spring.service.XioExportListener;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.client.discovery.event.InstancePreRegisteredEvent;
import org.springframework.cloud.client.serviceregistry.Registration;
import org.springframework.cloud.client.serviceregistry.ServiceRegistry;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.context.event.GenericApplicationListener;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Puts this server's portals ({@value DiscoveryClientEndpointResolver#PORTALS}) and host identity
 * ({@value DiscoveryClientEndpointResolver#HOST}) into the metadata of Spring Cloud's {@link Registration}, where
 * {@link DiscoveryClientEndpointResolver} finds them: once the portals are bound if the registration's metadata can
 * take them then, and just before Spring Cloud's auto-registration registers the instance
 * ({@link InstancePreRegisteredEvent}, on the web server's start). A registration that builds its instance lazily
 * (Spring Cloud ZooKeeper's: its metadata is a fixed empty map until then) is not built at export, before the web
 * server's port is known, which would leave it without one; it gets the web server's port ({@code local.server.port})
 * on pre-registration, which builds it, and its metadata then. A portal
 * bound to a wildcard address (0.0.0.0, ::) is announced with the registration's host; shm and local portals as they
 * are. An application without a web server is never auto-registered, so once the context is refreshed this
 * registers it itself; either way a drain deregisters it first, so clients stop choosing it. An application that
 * binds no portal (a client only) is left alone.
 *
 * <p>Called on the threads that start and stop the context or ask for a drain; the registry is thread-safe.
 */
public final class XioServiceRegistration implements XioExportListener, GenericApplicationListener
{
    private static final Logger LOG = LoggerFactory.getLogger(XioServiceRegistration.class);

    private final ServiceRegistry<Registration> registry;
    private final Registration registration;
    private final Environment environment;
    private volatile @Nullable List<Portal> portals;
    private volatile boolean preRegistered;
    private volatile boolean registeredHere;

    @SuppressWarnings("unchecked")
    public XioServiceRegistration(final ServiceRegistry<? extends Registration> registry,
        final Registration registration, final Environment environment)
    {
        this.registry = (ServiceRegistry<Registration>)registry;
        this.registration = registration;
        this.environment = environment;
    }

    @Override
    public void exported(final List<Portal> bound)
    {
        if (bound.isEmpty())
        {
            return; // a client-only application is no instance of a service
        }
        portals = List.copyOf(bound);
        registeredHere = false;
        if (!preRegistered)
        {
            tryWriteMetadata(); // a lazily built registration waits for its pre-registration
        }
        else
        {
            writeMetadata();
        }
    }

    @Override
    public boolean supportsEventType(final ResolvableType eventType)
    {
        final Class<?> type = eventType.toClass();
        return InstancePreRegisteredEvent.class.isAssignableFrom(type) ||
            ContextRefreshedEvent.class.isAssignableFrom(type);
    }

    @Override
    public void onApplicationEvent(final ApplicationEvent event)
    {
        if (event instanceof InstancePreRegisteredEvent registering && registering.getRegistration() == registration)
        {
            preRegistered = true;
            if (portals != null)
            {
                givePort(environment.getProperty("local.server.port", Integer.class, 0));
                writeMetadata();
            }
        }
        else if (event instanceof ContextRefreshedEvent && !preRegistered && portals != null && !registeredHere)
        {
            // No web server started, so Spring Cloud's auto-registration did not run: the portals are the service.
            givePort(0);
            writeMetadata();
            registry.register(registration);
            registeredHere = true;
        }
    }

    @Override
    public void draining()
    {
        if (preRegistered || registeredHere)
        {
            registry.deregister(registration);
            registeredHere = false;
        }
    }

    /** The metadata as announced: portal URIs with wildcard hosts replaced by the registration's host. */
    Map<String, String> metadata()
    {
        final String host = registration.getHost();
        final String uris = portals.stream().map(portal -> announced(portal.uri(), host)).collect(
            Collectors.joining(","));
        return Map.of(DiscoveryClientEndpointResolver.PORTALS, uris,
            DiscoveryClientEndpointResolver.HOST, HostIdentity.local());
    }

    /** {@code uri} as clients should dial it: a wildcard host (0.0.0.0, ::) replaced by {@code host}. */
    static String announced(final XioUri uri, final @Nullable String host)
    {
        final XioUri endpoint = uri.endpoint();
        final boolean wildcard = "0.0.0.0".equals(endpoint.host()) || "::".equals(endpoint.host()) ||
            "0:0:0:0:0:0:0:0".equals(endpoint.host());
        if (!wildcard || host == null || host.isEmpty())
        {
            return endpoint.toString();
        }
        return new XioUri(endpoint.scheme(), host, endpoint.port(), "").toString();
    }

    /** Writes the metadata if the registration's map takes it now; false when it is fixed (not built yet). */
    private boolean tryWriteMetadata()
    {
        try
        {
            registration.getMetadata().putAll(metadata());
            return true;
        }
        catch (final UnsupportedOperationException ex)
        {
            return false;
        }
    }

    /** Writes the metadata, building a lazily built registration first (it has its port by now). */
    private void writeMetadata()
    {
        if (portals == null || tryWriteMetadata())
        {
            return;
        }
        // Spring Cloud ZooKeeper builds its instance (and its metadata map) lazily: an empty, fixed map until then.
        materialise();
        if (!tryWriteMetadata())
        {
            LOG.warn("the registration {} has fixed metadata: xio clients will not find its portals",
                registration.getClass().getName());
        }
    }

    /**
     * Gives a registration without a port {@code webPort} if positive (the web server's, which a lazily built
     * registration must have before it is built), else the port of the first network portal (no web server gave
     * one): discovery clients expect one (ZooKeeper's fails to read an instance without), and the portal is what the
     * instance serves. Through a public setPort(int), which the registrations that take their port from the web
     * server have.
     */
    private void givePort(final int webPort)
    {
        int current;
        try
        {
            current = registration.getPort();
        }
        catch (final NullPointerException ex)
        {
            current = 0; // ZooKeeper's registration unboxes a port it has not got
        }
        if (current > 0)
        {
            return;
        }
        final int port = webPort > 0 ? webPort : portals.stream().map(Portal::uri).filter(uri -> uri.port() > 0)
            .mapToInt(XioUri::port).findFirst().orElse(0);
        if (port == 0)
        {
            return;
        }
        try
        {
            registration.getClass().getMethod("setPort", int.class).invoke(registration, port);
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            LOG.debug("no setPort(int) on {}", registration.getClass().getName(), ex);
        }
    }

    /** Builds a registration that builds its instance lazily, through its public getServiceInstance(). */
    private void materialise()
    {
        try
        {
            registration.getClass().getMethod("getServiceInstance").invoke(registration);
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            LOG.debug("no getServiceInstance() on {}", registration.getClass().getName(), ex);
        }
    }
}
