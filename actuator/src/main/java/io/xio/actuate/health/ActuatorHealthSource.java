package io.xio.actuate.health;

import io.xio.spring.health.XioHealth;
import io.xio.spring.health.XioHealthSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.boot.health.contributor.Status;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The actuator's health as a source of the {@code xio.health} resource. The whole server follows the
 * {@code readiness} health group when the application has one (Kubernetes probes), else the aggregated health; a
 * service follows the server and, if a health contributor bears the service's name (a {@code HealthIndicator} bean
 * {@code kvHealthIndicator} for the service {@code kv}), that contributor too. A status is not serving when the
 * group's {@link HttpCodeStatusMapper} maps it to 503, as the health endpoint would answer over HTTP (DOWN and
 * OUT_OF_SERVICE by default); UNKNOWN and custom statuses serve. Callers are told the status only, never the
 * contributors' details.
 * <p>
 * An answer is kept for a time to live ({@code management.endpoint.health.cache.time-to-live}, one second unless
 * set), and one check at a time computes it, so that a flood of checks does not run every indicator at each.
 * Any thread.
 */
public final class ActuatorHealthSource implements XioHealthSource
{
    /** The health group Kubernetes' readiness probe reads, when probes are enabled. */
    static final String READINESS = "readiness";
    /** How long an answer is kept unless {@code management.endpoint.health.cache.time-to-live} says otherwise. */
    public static final Duration DEFAULT_TIME_TO_LIVE = Duration.ofSeconds(1);
    private static final int UNAVAILABLE = 503;

    private record Kept(XioHealth.HealthCheck check, long at)
    {
    }

    private final ObjectProvider<HealthEndpoint> endpoints;
    private final ObjectProvider<HealthEndpointGroups> groups;
    private final long timeToLiveNanos;
    private final LongSupplier nanoTime;
    /** Keyed by the server and the exported services only: the health service asks about no other name. */
    private final Map<String, Kept> kept = new ConcurrentHashMap<>();

    /**
     * Asks the {@code HealthEndpoint} bean, when the application has one (the health endpoint is available), and maps
     * statuses with the {@code HealthEndpointGroups}' mappers; keeps an answer for {@code timeToLive} by
     * {@code nanoTime}.
     */
    public ActuatorHealthSource(final ObjectProvider<HealthEndpoint> endpoints,
        final ObjectProvider<HealthEndpointGroups> groups, final Duration timeToLive, final LongSupplier nanoTime)
    {
        this.endpoints = endpoints;
        this.groups = groups;
        this.timeToLiveNanos = Math.max(0, timeToLive.toNanos());
        this.nanoTime = nanoTime;
    }

    @Override
    public XioHealth.HealthCheck check(final String service)
    {
        final @Nullable Kept fresh = kept.get(service);
        if (fresh != null && nanoTime.getAsLong() - fresh.at() < timeToLiveNanos)
        {
            return fresh.check();
        }
        synchronized (this)
        {
            // Whoever waited here finds the answer the check before it computed.
            final long now = nanoTime.getAsLong();
            final @Nullable Kept again = kept.get(service);
            if (again != null && now - again.at() < timeToLiveNanos)
            {
                return again.check();
            }
            final XioHealth.HealthCheck check = compute(service);
            kept.put(service, new Kept(check, now));
            return check;
        }
    }

    private XioHealth.HealthCheck compute(final String service)
    {
        final @Nullable HealthEndpoint endpoint = endpoints.getIfAvailable();
        if (endpoint == null)
        {
            return XioHealth.HealthCheck.SERVING; // no health to follow: the server's own state decides
        }
        final @Nullable HealthEndpointGroups all = groups.getIfAvailable();
        final @Nullable HealthEndpointGroup readinessGroup = all == null ? null : all.get(READINESS);
        final @Nullable HealthDescriptor readiness = readinessGroup == null ? null : endpoint.healthForPath(READINESS);
        if (readiness != null)
        {
            if (unavailable(readinessGroup, readiness.getStatus()))
            {
                return XioHealth.HealthCheck.notServing("readiness " + readiness.getStatus().getCode());
            }
        }
        else
        {
            final HealthDescriptor health = endpoint.health();
            if (unavailable(all == null ? null : all.getPrimary(), health.getStatus()))
            {
                return XioHealth.HealthCheck.notServing("health " + health.getStatus().getCode());
            }
        }
        if (XioHealth.SERVER.equals(service) || READINESS.equals(service))
        {
            return XioHealth.HealthCheck.SERVING;
        }
        final @Nullable HealthDescriptor own = endpoint.healthForPath(service);
        if (own != null && unavailable(all == null ? null : all.getPrimary(), own.getStatus()))
        {
            return XioHealth.HealthCheck.notServing("health of '" + service + "' " + own.getStatus().getCode());
        }
        return XioHealth.HealthCheck.SERVING;
    }

    /** Whether {@code group}'s mapper (Boot's default without one) answers {@code status} with 503. */
    private static boolean unavailable(final @Nullable HealthEndpointGroup group, final Status status)
    {
        final HttpCodeStatusMapper mapper = group == null ? HttpCodeStatusMapper.DEFAULT
            : group.getHttpCodeStatusMapper();
        return mapper.getStatusCode(status) == UNAVAILABLE;
    }
}
