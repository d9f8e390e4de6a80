package io.xio.spring.autoconfigure.cluster;

import io.xio.cluster.Endpoint;
import io.xio.cluster.EndpointResolver;
import io.xio.engine.XioUri;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.cloud.client.discovery.event.HeartbeatEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.util.StringUtils;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Endpoints of a service as Spring Cloud's {@link DiscoveryClient} lists its instances, so that Kubernetes, Consul,
 * Eureka and ZooKeeper discovery all serve xio clients unchanged. An instance announces its portals in its metadata,
 * {@value #PORTALS} (their URIs, comma-separated) and {@value #HOST} (its {@code HostIdentity}), as
 * {@link XioServiceRegistration} writes them; once one instance of a service does, the others (its web endpoints,
 * say) are skipped. When none does (Kubernetes discovery, which cannot carry per-pod metadata; instances registered
 * by other means), every instance is an endpoint at its host on the port named {@value #PORT_NAME} (tcp) and
 * {@value #TLS_PORT_NAME} (tls) that its metadata lists as Spring Cloud Kubernetes does ({@code port.xio=7000}); an
 * instance without either is skipped, or, when the application opts in ({@code instancePortFallback}), reached at its
 * own port, tls when it is secure, else tcp (off by default: an instance's own port is usually its web port). Its
 * host identity is then unknown, so such endpoints are reached over the network only, and a warning says once per
 * service that its instances are reached so.
 * The instances are read again on every {@link HeartbeatEvent} (discovery clients with watches publish one on a
 * change) and every {@code refreshInterval}; watchers hear a set only when it changed. A discovery client that
 * fails is reported to the watchers' {@code onError} and the last set stands.
 *
 * <p>Thread-safe: discovery is read and watchers are told on one thread of the resolver's own, so a slow discovery
 * client never holds up the thread that publishes the event.
 */
public final class DiscoveryClientEndpointResolver implements EndpointResolver, ApplicationListener<HeartbeatEvent>
{
    /** The metadata key of an instance's portals: their URIs, comma-separated. */
    public static final String PORTALS = "xio.portals";

    /** The metadata key of an instance's host identity. */
    public static final String HOST = "xio.host";

    /** The name of an instance's port for tcp when it announces no portals (a Kubernetes service's named port). */
    public static final String PORT_NAME = "xio";

    /** The name of an instance's port for tls when it announces no portals. */
    public static final String TLS_PORT_NAME = "xio-tls";

    /** How Spring Cloud Kubernetes names a named port's entry in an instance's metadata (its default prefix). */
    public static final String PORT_METADATA_PREFIX = "port.";

    private static final Logger LOG = LoggerFactory.getLogger(DiscoveryClientEndpointResolver.class);

    private final DiscoveryClient discovery;
    private final ScheduledExecutorService thread;
    private final List<Watched> watches = new CopyOnWriteArrayList<>();
    private final boolean instancePortFallback;
    /** Instances skipped as malformed, warned about once each. */
    private final Set<String> malformed = ConcurrentHashMap.newKeySet();
    /** Services reached without announced portals, warned about once each. */
    private final Set<String> unannounced = ConcurrentHashMap.newKeySet();

    /** A resolver that reaches an instance announcing no portals only at its ports named xio or xio-tls. */
    public DiscoveryClientEndpointResolver(final DiscoveryClient discovery, final Duration refreshInterval)
    {
        this(discovery, refreshInterval, false);
    }

    /**
     * A resolver reading {@code discovery} every {@code refreshInterval}.
     *
     * @param instancePortFallback whether an instance that announces no portals and has no port named xio or
     *                             xio-tls is reached at its own port, which is usually its web port
     */
    public DiscoveryClientEndpointResolver(final DiscoveryClient discovery, final Duration refreshInterval,
        final boolean instancePortFallback)
    {
        this.discovery = discovery;
        this.instancePortFallback = instancePortFallback;
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable ->
        {
            final Thread worker = new Thread(runnable, "xio-discovery");
            worker.setDaemon(true);
            return worker;
        });
        final long period = refreshInterval.toNanos();
        thread.scheduleWithFixedDelay(this::refreshAll, period, period, TimeUnit.NANOSECONDS);
    }

    @Override
    public Watch watch(final String service, final Listener listener)
    {
        final Watched watched = new Watched(service, listener);
        watches.add(watched);
        thread.execute(() -> refresh(watched));
        return () -> watches.remove(watched);
    }

    /** Reads every watched service again, soon, on the resolver's thread. */
    public void refresh()
    {
        if (!thread.isShutdown())
        {
            thread.execute(this::refreshAll);
        }
    }

    @Override
    public void onApplicationEvent(final HeartbeatEvent event)
    {
        refresh();
    }

    @Override
    public void close()
    {
        thread.shutdownNow();
        watches.clear();
    }

    private void refreshAll()
    {
        for (final Watched watched : watches)
        {
            try
            {
                refresh(watched);
            }
            catch (final RuntimeException ex)
            {
                // A listener that throws must not end the periodic refresh (an executor drops a task that threw).
                LOG.warn("a watcher of {} failed: {}", watched.service, ex.toString());
            }
        }
    }

    private void refresh(final Watched watched)
    {
        if (!watches.contains(watched))
        {
            return; // closed meanwhile
        }
        final List<Endpoint> now;
        try
        {
            now = endpoints(discovery.getInstances(watched.service));
        }
        catch (final RuntimeException ex)
        {
            watched.listener.onError(ex);
            return;
        }
        if (!now.equals(watched.last))
        {
            watched.last = now;
            watched.listener.onEndpoints(now);
        }
    }

    /**
     * The instances as endpoints, in the order of their ids (so a set compares equal): those that announce xio
     * portals; when none of the service's instances does, every instance through its host and port (see
     * {@link #fallbackPortals}).
     */
    List<Endpoint> endpoints(final List<ServiceInstance> instances)
    {
        final boolean announced = instances.stream().anyMatch(i -> StringUtils.hasText(metadata(i).get(PORTALS)));
        final List<Endpoint> endpoints = new ArrayList<>(instances.size());
        for (final ServiceInstance instance : instances)
        {
            final Map<String, String> metadata = metadata(instance);
            final String portals = metadata.get(PORTALS);
            if (announced && !StringUtils.hasText(portals))
            {
                continue; // another kind of instance of a service whose xio servers announce themselves
            }
            final String id = instance.getInstanceId() != null ? instance.getInstanceId()
                : instance.getServiceId() + "@" + instance.getHost() + ":" + instance.getPort();
            try
            {
                if (announced)
                {
                    final Map<String, String> rest = new HashMap<>(metadata);
                    rest.remove(PORTALS);
                    rest.remove(HOST);
                    endpoints.add(new Endpoint(id, metadata.get(HOST), announcedPortals(portals), rest));
                }
                else
                {
                    endpoints.add(new Endpoint(id, "", fallbackPortals(instance), metadata));
                    if (unannounced.add(String.valueOf(instance.getServiceId())))
                    {
                        LOG.warn("no instance of {} announces {}: its instances are reached at their ports named " +
                            "{} / {}{}, not knowing whether they share a host", instance.getServiceId(), PORTALS,
                            PORT_NAME, TLS_PORT_NAME, instancePortFallback ? ", else at their own port" : "");
                    }
                }
            }
            catch (final IllegalArgumentException ex)
            {
                if (malformed.add(id))
                {
                    LOG.warn("instance {} of {} is skipped: {}", id, instance.getServiceId(), ex.getMessage());
                }
            }
        }
        endpoints.sort(Comparator.comparing(Endpoint::id));
        return List.copyOf(endpoints);
    }

    private static List<XioUri> announcedPortals(final String portals)
    {
        final List<XioUri> uris = new ArrayList<>();
        for (final String portal : portals.split(","))
        {
            if (!portal.isBlank())
            {
                try
                {
                    uris.add(XioUri.parse(portal.trim()));
                }
                catch (final IllegalArgumentException ex)
                {
                    throw new IllegalArgumentException("its " + PORTALS + " '" + portals + "' do not parse: " +
                        ex.getMessage(), ex);
                }
            }
        }
        return uris;
    }

    /**
     * The portals of an instance that announces none, at its host: a tcp portal at the port named {@value #PORT_NAME}
     * and a tls one at the port named {@value #TLS_PORT_NAME} (Spring Cloud Kubernetes lists a service's named ports
     * in each instance's metadata as {@code port.<name>}); without either, the instance's own port when
     * {@code instancePortFallback} is on (tls when the instance is secure, else tcp), else none (it is skipped).
     */
    private List<XioUri> fallbackPortals(final ServiceInstance instance)
    {
        final String host = instance.getHost();
        if (!StringUtils.hasText(host))
        {
            throw new IllegalArgumentException("it has no host");
        }
        final Map<String, String> metadata = metadata(instance);
        final List<XioUri> portals = new ArrayList<>(2);
        final String tls = metadata.get(PORT_METADATA_PREFIX + TLS_PORT_NAME);
        final String tcp = metadata.get(PORT_METADATA_PREFIX + PORT_NAME);
        if (tls != null)
        {
            portals.add(new XioUri("tls", host, port(tls, TLS_PORT_NAME), ""));
        }
        if (tcp != null)
        {
            portals.add(new XioUri("tcp", host, port(tcp, PORT_NAME), ""));
        }
        if (portals.isEmpty())
        {
            if (!instancePortFallback)
            {
                throw new IllegalArgumentException("it announces no " + PORTALS + " and has no port named " +
                    PORT_NAME + " or " + TLS_PORT_NAME + " (metadata " + PORT_METADATA_PREFIX + PORT_NAME + "); its " +
                    "own port is taken only with xio.client.discovery.instance-port-fallback=true");
            }
            if (instance.getPort() <= 0)
            {
                throw new IllegalArgumentException("it has no port");
            }
            portals.add(new XioUri(instance.isSecure() ? "tls" : "tcp", host, instance.getPort(), ""));
        }
        return portals;
    }

    private static int port(final String value, final String name)
    {
        try
        {
            final int port = Integer.parseInt(value.trim());
            if (port > 0 && port <= 65535)
            {
                return port;
            }
        }
        catch (final NumberFormatException ex)
        {
            // reported below
        }
        throw new IllegalArgumentException("its port named " + name + " is '" + value + "', no port number");
    }

    private static Map<String, String> metadata(final ServiceInstance instance)
    {
        return instance.getMetadata() == null ? Map.of() : instance.getMetadata();
    }

    /** One watch: the last set its listener heard, touched on the resolver's thread only. */
    private static final class Watched
    {
        final String service;
        final Listener listener;
        List<Endpoint> last;

        Watched(final String service, final Listener listener)
        {
            this.service = service;
            this.listener = listener;
        }
    }
}
