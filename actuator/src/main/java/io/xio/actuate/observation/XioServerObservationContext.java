package io.xio.actuate.observation;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import io.xio.engine.Metadata;
import io.xio.spring.observation.XioCall;
import io.xio.spring.observation.XioCallOutcome;
import org.jspecify.annotations.Nullable;

/**
 * The observation context of a call served by an exported bean: a {@link ReceiverContext} of kind
 * {@link Kind#SERVER} whose carrier is the metadata that arrived with the request, so the configured propagator
 * continues the caller's trace. Made on the thread that runs the call.
 */
public final class XioServerObservationContext extends ReceiverContext<Metadata> implements XioObservationContext
{
    private final XioCall call;
    private volatile @Nullable XioCallOutcome outcome;

    /**
     * @param call the kind of call
     * @param received the request's metadata (read-only)
     */
    public XioServerObservationContext(final XioCall call, final Metadata received)
    {
        super(MetadataCarrier::get, Kind.SERVER);
        this.call = call;
        setCarrier(received);
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
