package io.xio.engine.flow;

/** The TCK's publisher rules for the opener's view: the acceptor sends the messages, then completes the stream. */
public class OpenerPublisherTckTest extends StreamPublisherVerification
{
    @Override
    FlowStream ofCount(final FlowPeers peers, final long count)
    {
        return peers.openerOfCount(count);
    }

    @Override
    FlowStream ofFailure(final FlowPeers peers)
    {
        return peers.openerOfFailure();
    }
}
