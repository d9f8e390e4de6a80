package io.xio.actuate.observation;

import io.micrometer.observation.Observation;
import io.xio.spring.autoconfigure.observation.XioCall;

/** The context of one observed xio call: which method of which service, from which side, over which transport. */
public final class XioObservationContext extends Observation.Context
{
    private final XioCall call;

    public XioObservationContext(final XioCall call)
    {
        this.call = call;
    }

    public XioCall call()
    {
        return call;
    }
}
