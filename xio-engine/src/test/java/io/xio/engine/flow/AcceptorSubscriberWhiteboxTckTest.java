package io.xio.engine.flow;

/**
 * The TCK's white-box subscriber rules for the acceptor's view: the opener takes every message, and the acceptor's
 * completion ends the stream.
 */
public class AcceptorSubscriberWhiteboxTckTest extends StreamSubscriberWhiteboxVerification
{
    @Override
    FlowStream intoSink(final FlowPeers peers)
    {
        return peers.acceptorIntoSink();
    }
}
