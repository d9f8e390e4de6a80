package io.xio.actuate.observation;

import io.micrometer.common.KeyValues;
import io.xio.actuate.metrics.XioTimerInstrumentation;

/**
 * The default {@link XioClientObservationConvention}: observation (and timer) {@code xio.client.requests}, span
 * name {@code service/method}, and the key values {@link XioObservationDocumentation} lists. Thread-safe.
 */
public class DefaultXioClientObservationConvention implements XioClientObservationConvention
{
    /** The shared instance. */
    public static final DefaultXioClientObservationConvention INSTANCE = new DefaultXioClientObservationConvention();

    @Override
    public String getName()
    {
        return XioTimerInstrumentation.CLIENT_REQUESTS;
    }

    @Override
    public String getContextualName(final XioClientObservationContext context)
    {
        return XioObservationDocumentation.contextualName(context.call());
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(final XioClientObservationContext context)
    {
        return XioObservationDocumentation.lowCardinalityKeyValues(context.call(), context.outcome());
    }
}
