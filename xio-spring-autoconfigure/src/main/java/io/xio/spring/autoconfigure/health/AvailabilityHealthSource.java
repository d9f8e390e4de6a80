package io.xio.spring.autoconfigure.health;

import io.xio.spring.health.XioHealth;
import io.xio.spring.health.XioHealthSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;

/**
 * Spring Boot's application availability as a health source: an application refusing traffic (before it is ready,
 * once it shuts down, or when it says so itself) or broken is not serving, nor are its services. Any thread.
 */
final class AvailabilityHealthSource implements XioHealthSource
{
    private final ObjectProvider<ApplicationAvailability> availabilities;

    /** Asks the application's availability bean, when it has one (Spring Boot's, as a rule), at each check. */
    AvailabilityHealthSource(final ObjectProvider<ApplicationAvailability> availabilities)
    {
        this.availabilities = availabilities;
    }

    @Override
    public XioHealth.HealthCheck check(final String service)
    {
        final ApplicationAvailability availability = availabilities.getIfAvailable();
        if (availability == null)
        {
            return XioHealth.HealthCheck.SERVING; // no availability to follow: the server's own state decides
        }
        final LivenessState liveness = availability.getLivenessState();
        if (liveness == LivenessState.BROKEN)
        {
            return XioHealth.HealthCheck.notServing("liveness " + liveness);
        }
        final ReadinessState readiness = availability.getReadinessState();
        if (readiness != ReadinessState.ACCEPTING_TRAFFIC)
        {
            return XioHealth.HealthCheck.notServing("readiness " + readiness);
        }
        return XioHealth.HealthCheck.SERVING;
    }
}
