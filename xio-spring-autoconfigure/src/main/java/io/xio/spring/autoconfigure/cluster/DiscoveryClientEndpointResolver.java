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
 * Eureka and ZooKeeper discovery all serve xio clients unchanged. An instance counts when its metadata carries
 * {@value #PORTALS} (its portals' URIs, comma-separated) and {@value #HOST} (its {@code HostIdentity}), as
 * {@link XioServiceRegistration} writes them; other instances of the service (its web endpoints, say) are skipped.
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

    private static final Logger LOG = LoggerFactory.getLogger(DiscoveryClientEndpointResolver.class);

    private final DiscoveryClient discovery;
    private final ScheduledExecutorService thread;
    private final List<Watched> watches = new CopyOnWriteArrayList<>();
    /** Instances whose portals did not parse, warned about once each. */
    private final Set<String> malformed = ConcurrentHashMap.newKeySet();

    public DiscoveryClientEndpointResolver(final DiscoveryClient discovery, final Duration refreshInterval)
    {
        this.discovery = discovery;
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

    /** The instances that expose xio portals, as endpoints, in the order of their ids (so a set compares equal). */
    List<Endpoint> endpoints(final List<ServiceInstance> instances)
    {
        final List<Endpoint> endpoints = new ArrayList<>(instances.size());
        for (final ServiceInstance instance : instances)
        {
            final Map<String, String> metadata = instance.getMetadata() == null ? Map.of() : instance.getMetadata();
            final String portals = metadata.get(PORTALS);
            if (portals == null || portals.isBlank())
            {
                continue;
            }
            final String id = instance.getInstanceId() != null ? instance.getInstanceId()
                : instance.getServiceId() + "@" + instance.getHost() + ":" + instance.getPort();
            try
            {
                final List<XioUri> uris = new ArrayList<>();
                for (final String portal : portals.split(","))
                {
                    if (!portal.isBlank())
                    {
                        uris.add(XioUri.parse(portal.trim()));
                    }
                }
                final Map<String, String> rest = new HashMap<>(metadata);
                rest.remove(PORTALS);
                rest.remove(HOST);
                endpoints.add(new Endpoint(id, metadata.get(HOST), uris, rest));
            }
            catch (final IllegalArgumentException ex)
            {
                if (malformed.add(id))
                {
                    LOG.warn("instance {} of {} is skipped: its {} '{}' do not parse: {}", id,
                        instance.getServiceId(), PORTALS, portals, ex.getMessage());
                }
            }
        }
        endpoints.sort(Comparator.comparing(Endpoint::id));
        return List.copyOf(endpoints);
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
