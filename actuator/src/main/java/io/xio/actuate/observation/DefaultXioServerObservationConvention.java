package io.xio.actuate.observation;

import io.micrometer.common.KeyValues;
import io.xio.actuate.metrics.XioTimerInstrumentation;

/**
 * The default {@link XioServerObservationConvention}: observation (and timer) {@code xio.server.requests}, span
 * name {@code service/method}, and the key values {@link XioObservationDocumentation} lists. Thread-safe.
 */
public class DefaultXioServerObservationConvention implements XioServerObservationConvention
{
    /** The shared instance. */
    public static final DefaultXioServerObservationConvention INSTANCE = new DefaultXioServerObservationConvention();

    @Override
    public String getName()
    {
        return XioTimerInstrumentation.SERVER_REQUESTS;
    }

    @Override
    public String getContextualName(final XioServerObservationContext context)
    {
        return XioObservationDocumentation.contextualName(context.call());
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(final XioServerObservationContext context)
    {
        return XioObservationDocumentation.lowCardinalityKeyValues(context.call(), context.outcome());
    }
}
