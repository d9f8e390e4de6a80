package io.xio.engine.flow;

import io.xio.engine.Outbound;
import org.reactivestreams.tck.flow.FlowSubscriberBlackboxVerification;
import org.testng.annotations.AfterClass;
import org.testng.annotations.AfterMethod;
import org.testng.annotations.BeforeClass;

import java.util.concurrent.Flow;

/**
 * The Reactive Streams TCK's black-box subscriber rules for {@link StreamSubscriber}, on real engines: each test gets a
 * new stream whose peer takes all it is sent, and the subscriber under test as {@link FlowStream#subscriber()} hands
 * it out.
 */
public abstract class StreamSubscriberBlackboxVerification extends FlowSubscriberBlackboxVerification<Outbound>
{
    private FlowPeers peers;

    protected StreamSubscriberBlackboxVerification()
    {
        super(FlowTck.environment());
    }

    /** A view, of the side under test, of a stream whose peer takes all it is sent. */
    abstract FlowStream intoSink(FlowPeers peers);

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
    public Outbound createElement(final int element)
    {
        return FlowPeers.number(element);
    }

    @Override
    public Flow.Subscriber<Outbound> createFlowSubscriber()
    {
        return intoSink(peers).subscriber();
    }
}
