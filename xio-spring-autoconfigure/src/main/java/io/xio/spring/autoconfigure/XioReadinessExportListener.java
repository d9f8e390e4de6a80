package io.xio.spring.autoconfigure;

import io.xio.engine.Portal;
import io.xio.spring.service.XioExportListener;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationContext;

import java.util.List;

/**
 * Boot's readiness follows the service exporter: refusing traffic as soon as the exporter stops (so the readiness
 * probe fails and load balancers stop sending while the sessions drain), accepting it again when a restart in the
 * same context exports the services anew, since Boot marks an application accepting traffic only once. Called on
 * the thread that starts or stops the exporter.
 */
final class XioReadinessExportListener implements XioExportListener
{
    private final ApplicationContext context;
    /** Whether a stop marked the application refusing traffic, which a restart takes back. */
    private volatile boolean refusedTraffic;

    XioReadinessExportListener(final ApplicationContext context)
    {
        this.context = context;
    }

    @Override
    public void stopping()
    {
        refusedTraffic = true;
        AvailabilityChangeEvent.publish(context, ReadinessState.REFUSING_TRAFFIC);
    }

    @Override
    public void exported(final List<Portal> portals)
    {
        if (refusedTraffic)
        {
            refusedTraffic = false;
            AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
        }
    }
}
