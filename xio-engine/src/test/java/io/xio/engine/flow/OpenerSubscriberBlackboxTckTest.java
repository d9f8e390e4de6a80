package io.xio.engine.flow;

/**
 * The TCK's black-box subscriber rules for the opener's view: the acceptor takes every message and completes the
 * stream at the half-close.
 */
public class OpenerSubscriberBlackboxTckTest extends StreamSubscriberBlackboxVerification
{
    @Override
    FlowStream intoSink(final FlowPeers peers)
    {
        return peers.openerIntoSink();
    }
}
