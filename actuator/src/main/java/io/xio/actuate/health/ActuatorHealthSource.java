package io.xio.actuate.health;

import io.xio.spring.health.XioHealth;
import io.xio.spring.health.XioHealthSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.contributor.Status;

/**
 * The actuator's health as a source of the {@code xio.health} resource: the whole server is serving when the
 * aggregated health is UP and so is the {@code readiness} health group, if the application has one (Kubernetes
 * probes); a service when the server is and, if a health contributor bears the service's name (a
 * {@code HealthIndicator} bean {@code kvHealthIndicator} for the service {@code kv}), that contributor is UP too.
 * Any other status (DOWN, OUT_OF_SERVICE, UNKNOWN) is not serving; callers are told the status only, never the
 * contributors' details.
 * Asks the application's {@code HealthEndpoint} at each check (its indicators may block, as health checks do).
 * Any thread.
 */
public final class ActuatorHealthSource implements XioHealthSource
{
    /** The health group Kubernetes' readiness probe reads, when probes are enabled. */
    static final String READINESS = "readiness";

    private final ObjectProvider<HealthEndpoint> endpoints;

    /** Asks the {@code HealthEndpoint} bean, when the application has one (the health endpoint is available). */
    public ActuatorHealthSource(final ObjectProvider<HealthEndpoint> endpoints)
    {
        this.endpoints = endpoints;
    }

    @Override
    public XioHealth.HealthCheck check(final String service)
    {
        final HealthEndpoint endpoint = endpoints.getIfAvailable();
        if (endpoint == null)
        {
            return XioHealth.HealthCheck.SERVING; // no health to follow: the server's own state decides
        }
        final HealthDescriptor health = endpoint.health();
        if (!Status.UP.equals(health.getStatus()))
        {
            return XioHealth.HealthCheck.notServing("health " + health.getStatus().getCode());
        }
        final HealthDescriptor readiness = endpoint.healthForPath(READINESS);
        if (readiness != null && !Status.UP.equals(readiness.getStatus()))
        {
            return XioHealth.HealthCheck.notServing("readiness " + readiness.getStatus().getCode());
        }
        if (XioHealth.SERVER.equals(service) || READINESS.equals(service))
        {
            return XioHealth.HealthCheck.SERVING;
        }
        final HealthDescriptor own = endpoint.healthForPath(service);
        if (own != null && !Status.UP.equals(own.getStatus()))
        {
            return XioHealth.HealthCheck.notServing("health of '" + service + "' " + own.getStatus().getCode());
        }
        return XioHealth.HealthCheck.SERVING;
    }
}
