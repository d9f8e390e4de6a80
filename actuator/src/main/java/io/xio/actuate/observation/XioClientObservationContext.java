package io.xio.actuate.observation;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import io.xio.engine.Metadata;
import io.xio.spring.observation.XioCall;
import io.xio.spring.observation.XioCallOutcome;
import org.jspecify.annotations.Nullable;

/**
 * The observation context of a call made through a client proxy: a {@link SenderContext} of kind
 * {@link Kind#CLIENT} whose carrier is the request's outgoing {@link Metadata}, so the configured propagator
 * (W3C {@code traceparent}, B3) injects the trace context there. Made and filled on the calling thread.
 */
public final class XioClientObservationContext extends SenderContext<Metadata> implements XioObservationContext
{
    private final XioCall call;
    private volatile @Nullable XioCallOutcome outcome;

    /**
     * @param call the kind of call
     * @param outgoing the metadata the request will carry
     */
    public XioClientObservationContext(final XioCall call, final Metadata outgoing)
    {
        super(MetadataCarrier::set, Kind.CLIENT);
        this.call = call;
        setCarrier(outgoing);
        setRemoteServiceName(call.service());
    }

    @Override
    public XioCall call()
    {
        return call;
    }

    @Override
    public @Nullable XioCallOutcome outcome()
    {
        return outcome;
    }

    @Override
    public void outcome(final XioCallOutcome value)
    {
        outcome = value;
    }
}
