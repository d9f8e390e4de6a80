package io.xio.engine.flow;

import io.xio.engine.Message;
import org.reactivestreams.tck.flow.FlowPublisherVerification;
import org.testng.annotations.AfterClass;
import org.testng.annotations.AfterMethod;
import org.testng.annotations.BeforeClass;

import java.util.concurrent.Flow;

/**
 * The Reactive Streams TCK's publisher rules for {@link StreamPublisher}, on real engines: each test gets a new
 * stream whose peer sends exactly the number of messages the TCK asks for (numbers 1..n, for ever for
 * {@link Long#MAX_VALUE}) and then ends its direction; the failed publisher is one whose stream failed. The messages
 * the TCK's subscribers keep are closed after each test ({@link FlowPeers#keepingMessages}), what is still open is
 * cancelled, and the engines, closed after the class, fail on any message the publisher leaked.
 */
public abstract class StreamPublisherVerification extends FlowPublisherVerification<Message>
{
    private FlowPeers peers;

    protected StreamPublisherVerification()
    {
        super(FlowTck.environment(), envPublisherReferenceGCTimeoutMillis());
    }

    /** A view, of the side under test, of a stream whose peer sends {@code count} messages. */
    abstract FlowStream ofCount(FlowPeers peers, long count);

    /** A view, of the side under test, of a stream that failed. */
    abstract FlowStream ofFailure(FlowPeers peers);

    @BeforeClass
    public void startEngines()
    {
        peers = new FlowPeers();
    }

    @AfterMethod(alwaysRun = true)
    public void cleanUp()
    {
        peers.afterTest();
    }

    @AfterClass(alwaysRun = true)
    public void closeEngines()
    {
        if (peers != null)
        {
            peers.close();
        }
    }

    @Override
    public Flow.Publisher<Message> createFlowPublisher(final long elements)
    {
        return peers.keepingMessages(ofCount(peers, elements).publisher());
    }

    @Override
    public Flow.Publisher<Message> createFailedFlowPublisher()
    {
        return peers.keepingMessages(ofFailure(peers).publisher());
    }
}
