package io.xio.actuate.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names the observations of calls served by exported beans: their name, span name and key values. Define
 * a bean of this type to replace {@link DefaultXioServerObservationConvention} (extend it to add to its key
 * values); a {@link io.micrometer.observation.GlobalObservationConvention} registered with the observation
 * registry applies when there is no such bean. Called on the threads that start and stop calls.
 */
public interface XioServerObservationConvention extends ObservationConvention<XioServerObservationContext>
{
    @Override
    default boolean supportsContext(final Observation.Context context)
    {
        return context instanceof XioServerObservationContext;
    }
}
