package io.xio.engine.flow;

import io.xio.engine.Outbound;
import org.reactivestreams.tck.SubscriberWhiteboxVerification.SubscriberPuppet;
import org.reactivestreams.tck.SubscriberWhiteboxVerification.WhiteboxSubscriberProbe;
import org.reactivestreams.tck.flow.FlowSubscriberWhiteboxVerification;
import org.testng.annotations.AfterClass;
import org.testng.annotations.AfterMethod;
import org.testng.annotations.BeforeClass;

import java.util.concurrent.Flow;

/**
 * The Reactive Streams TCK's white-box subscriber rules for {@link StreamSubscriber}, on real engines: each test gets a
 * new stream whose peer takes all it is sent. The probe hears each signal once the subscriber under test took it.
 * The puppet knows the subscriber: it asks its upstream for messages by itself as the stream has credit, so a
 * triggered request needs nothing more (a fresh stream's credit covers what the TCK sends); and it cancels its
 * upstream when the stream ends, so a triggered cancel cancels the stream.
 */
public abstract class StreamSubscriberWhiteboxVerification extends FlowSubscriberWhiteboxVerification<Outbound>
{
    private FlowPeers peers;

    protected StreamSubscriberWhiteboxVerification()
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
    protected Flow.Subscriber<Outbound> createFlowSubscriber(final WhiteboxSubscriberProbe<Outbound> probe)
    {
        final FlowStream flow = intoSink(peers);
        final Flow.Subscriber<Outbound> subscriber = flow.subscriber();
        return new Flow.Subscriber<>()
        {
            @Override
            public void onSubscribe(final Flow.Subscription subscription)
            {
                subscriber.onSubscribe(subscription);
                probe.registerOnSubscribe(new SubscriberPuppet()
                {
                    @Override
                    public void triggerRequest(final long elements)
                    {
                        // The subscriber requests by itself as the stream has credit.
                    }

                    @Override
                    public void signalCancel()
                    {
                        flow.cancel();
                    }
                });
            }

            @Override
            public void onNext(final Outbound item)
            {
                subscriber.onNext(item);
                probe.registerOnNext(item);
            }

            @Override
            public void onError(final Throwable error)
            {
                subscriber.onError(error);
                probe.registerOnError(error);
            }

            @Override
            public void onComplete()
            {
                subscriber.onComplete();
                probe.registerOnComplete();
            }
        };
    }
}
