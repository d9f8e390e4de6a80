package io.xio.actuate.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names the observations of calls made through client proxies: their name, span name and key values. Define
 * a bean of this type to replace {@link DefaultXioClientObservationConvention} (extend it to add to its key
 * values); a {@link io.micrometer.observation.GlobalObservationConvention} registered with the observation
 * registry applies when there is no such bean. Called on the threads that start and stop calls.
 */
public interface XioClientObservationConvention extends ObservationConvention<XioClientObservationContext>
{
    @Override
    default boolean supportsContext(final Observation.Context context)
    {
        return context instanceof XioClientObservationContext;
    }
}
