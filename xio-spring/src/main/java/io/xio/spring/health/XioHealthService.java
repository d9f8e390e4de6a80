package io.xio.spring.health;

import io.xio.annotation.XioService;
import io.xio.spring.codec.XioCodec;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server's {@link XioHealth}: exported by the service exporter like any {@code @XioService} bean (so the
 * interceptors and observations apply to its calls; whether the portals' authentication does is the application's
 * choice, {@code xio.server.health.allow-unauthenticated}). A name the server does not export is
 * {@link XioHealth.ServingStatus#SERVICE_UNKNOWN}; then the server's own state decides (not serving before its
 * portals are bound, while it drains and once it stopped), then the {@link XioHealthSource}s in their order.
 * Thread-safe.
 */
@XioService(XioHealth.RESOURCE)
public final class XioHealthService implements XioHealth
{
    private static final Logger LOG = LoggerFactory.getLogger(XioHealthService.class);
    private static final long WARN_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);
    /**
     * The health service's calls running at once unless {@code xio.server.services.xio.health.max-concurrent-calls}
     * says otherwise: a flood of checks (they may run every health indicator) must not take the workers.
     */
    public static final int DEFAULT_MAX_CONCURRENT_CALLS = 4;

    private final Server server;
    private final List<XioHealthSource> sources;
    private final @Nullable XioCodec json;
    private final AtomicLong lastWarning = new AtomicLong(System.nanoTime() - WARN_INTERVAL_NANOS);

    /**
     * The state of the server the health service reports on: asked at each call, from the call's thread.
     */
    public interface Server
    {
        /** Whether the server takes calls: its portals bound, not draining nor stopping. */
        boolean isServing();

        /** Whether the server exports an application's service as {@code service}. */
        boolean exports(String service);
    }

    /**
     * Reports on {@code server}, asking {@code sources} in their order once the server itself serves; takes calls
     * in JSON with {@code json} (null for none) even when reflection, which gives the other services theirs, is off.
     */
    public XioHealthService(final Server server, final List<XioHealthSource> sources,
        final @Nullable XioCodec json)
    {
        this.server = server;
        this.sources = List.copyOf(sources);
        this.json = json;
    }

    /** The codec of calls whose caller asked for JSON, or null. */
    public @Nullable XioCodec json()
    {
        return json;
    }

    @Override
    public HealthCheck check(final @Nullable String serviceOrNull)
    {
        // A caller that sends no name (JSON null, an absent argument) asks about the whole server.
        final String service = serviceOrNull == null ? SERVER : serviceOrNull;
        if (!SERVER.equals(service) && !server.exports(service))
        {
            return new HealthCheck(ServingStatus.SERVICE_UNKNOWN, null);
        }
        if (!server.isServing())
        {
            return HealthCheck.notServing("the server is draining or stopped");
        }
        for (final XioHealthSource source : sources)
        {
            final HealthCheck check;
            try
            {
                check = source.check(service);
            }
            catch (final RuntimeException ex)
            {
                // A source that cannot tell is no proof of health; its failure goes to the log, not to the caller.
                warnOnce(ex);
                return HealthCheck.notServing("the health could not be determined");
            }
            if (check != null && check.status() != ServingStatus.SERVING)
            {
                return check.status() == ServingStatus.NOT_SERVING ? check
                    : HealthCheck.notServing(check.detail() != null ? check.detail()
                        : "a health source does not know " + (SERVER.equals(service) ? "the server" : service));
            }
        }
        return HealthCheck.SERVING;
    }

    private void warnOnce(final RuntimeException ex)
    {
        final long now = System.nanoTime();
        final long before = lastWarning.get();
        if (now - before >= WARN_INTERVAL_NANOS && lastWarning.compareAndSet(before, now))
        {
            LOG.warn("a health source failed, the server reported not serving: {}", ex.toString(), ex);
        }
    }
}
