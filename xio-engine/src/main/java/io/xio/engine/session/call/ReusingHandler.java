package io.xio.engine.session.call;

import io.xio.engine.InboundRequest;
import io.xio.engine.RequestHandler;

/**
 * Marks a service registered with {@link io.xio.engine.RequestReuse#AFTER_ANSWER}: its sessions take their
 * calls from the lanes' pools. Unwrapped when a session is accepted. Immutable.
 */
public record ReusingHandler(RequestHandler handler) implements RequestHandler
{
    @Override
    public void onRequest(final InboundRequest request) throws Exception
    {
        handler.onRequest(request);
    }

    @Override
    public void onStream(final io.xio.engine.InboundStream stream) throws Exception
    {
        handler.onStream(stream);
    }
}
