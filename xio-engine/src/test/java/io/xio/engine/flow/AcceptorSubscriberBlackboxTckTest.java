package io.xio.engine.flow;

/**
 * The TCK's black-box subscriber rules for the acceptor's view: the opener takes every message, and the acceptor's
 * completion ends the stream.
 */
public class AcceptorSubscriberBlackboxTckTest extends StreamSubscriberBlackboxVerification
{
    @Override
    FlowStream intoSink(final FlowPeers peers)
    {
        return peers.acceptorIntoSink();
    }
}
