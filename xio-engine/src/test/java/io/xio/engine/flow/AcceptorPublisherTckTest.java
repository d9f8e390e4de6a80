package io.xio.engine.flow;

/**
 * The TCK's publisher rules for the acceptor's view: the opener sends the messages, then half-closes; the failed
 * publisher is that of a stream the opener cancelled.
 */
public class AcceptorPublisherTckTest extends StreamPublisherVerification
{
    @Override
    FlowStream ofCount(final FlowPeers peers, final long count)
    {
        return peers.acceptorOfCount(count);
    }

    @Override
    FlowStream ofFailure(final FlowPeers peers)
    {
        return peers.acceptorOfCancel();
    }
}
