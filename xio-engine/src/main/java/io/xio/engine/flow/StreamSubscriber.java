package io.xio.engine.flow;

import io.xio.engine.InboundStream;
import io.xio.engine.Outbound;
import io.xio.engine.StreamCall;
import io.xio.engine.XioStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Sends into one stream what its upstream publishes, as a {@link Flow.Subscriber} ({@link FlowStream#subscriber()}):
 * each message is {@linkplain XioStream#offer offered} as the stream has credit, never beyond it, and the upstream is
 * asked for more only while the stream {@linkplain XioStream#isReady() is ready}, at most {@code maxRequested}
 * messages ahead of what was sent (those that find no credit wait here for the listener's
 * {@link io.xio.engine.StreamListener#onReady() onReady}). The upstream's {@code onComplete} ends this side's direction
 * after what it sent ({@link StreamCall#halfClose()}, or {@link InboundStream#complete()} for the acceptor); its
 * {@code onError} cancels the stream (opener) or fails it with that error ({@link InboundStream#fail(Throwable)},
 * acceptor; an acceptor's {@link FlowStream.AcceptorEnd} may end it otherwise), after the messages before it that the
 * stream's credit takes at once (the rest are released). When the stream ends otherwise, the
 * upstream's subscription is cancelled and the messages waiting here are {@linkplain Outbound#released() released},
 * as the engine releases those it drops. A message the stream refuses
 * (larger than the peer takes) fails the stream as an upstream error would.
 *
 * <p>Reactive Streams rules kept here: one subscription (a second is cancelled, 2.5), no call on the subscription
 * from {@code onComplete} or {@code onError} nor after them (2.3, 2.4), calls on the subscription one at a time
 * (2.7), signals after a cancel taken and dropped (2.8), null arguments refused with a
 * {@link NullPointerException} (2.13).
 *
 * <p>Threads: the upstream calls the {@code on*} methods, one at a time, each after the one before (rule 1.3), from
 * any thread. This subscriber offers, ends the stream's direction and calls the subscription on the thread of an
 * upstream signal or on the stream's context thread (the credit came back, or the stream ended), one thread at a time
 * with each seeing what the one before did, as {@link XioStream#offer} asks. So a synchronous upstream may publish on
 * the context thread, within its {@code request}: it must not block there.
 */
public final class StreamSubscriber implements Flow.Subscriber<Outbound>
{
    private static final Logger LOG = LoggerFactory.getLogger(StreamSubscriber.class);

    private final FlowStream flow;
    private final int maxRequested;
    /** What the upstream published and the stream has not taken yet, in order. */
    private final ConcurrentLinkedQueue<Outbound> waiting = new ConcurrentLinkedQueue<>();
    /** Work due while one thread does it: the one that raised it from 0 works until it is 0 again. */
    private final AtomicInteger wip = new AtomicInteger();
    private final AtomicBoolean subscribed = new AtomicBoolean();
    /** The upstream's subscription until this subscriber is done with it. */
    private final AtomicReference<Flow.Subscription> upstream = new AtomicReference<>();
    /** Messages the upstream published; written by its signals only, which come one at a time. */
    private volatile long arrived;
    private volatile boolean upstreamDone;
    private volatile Throwable upstreamError;
    private volatile boolean streamEnded;

    // The working thread's (whoever holds wip), each handing over to the next through wip.
    /** Messages asked of the upstream in all. */
    private long requested;
    /** This subscriber is done with the stream: what comes now is released. */
    private boolean finished;

    StreamSubscriber(final FlowStream flow, final int maxRequested)
    {
        this.flow = flow;
        this.maxRequested = maxRequested;
    }

    /** The most messages asked of the upstream and not sent yet. */
    public int maxRequested()
    {
        return maxRequested;
    }

    /**
     * The upstream's subscription; a second one is cancelled. Asks for messages once the stream has credit (an
     * opener's stream has none until the acceptor took it).
     */
    @Override
    public void onSubscribe(final Flow.Subscription subscription)
    {
        Objects.requireNonNull(subscription, "subscription");
        if (!subscribed.compareAndSet(false, true))
        {
            subscription.cancel();
            return;
        }
        upstream.set(subscription);
        drain();
    }

    /** One message to send; the stream takes it now if it has credit, else it waits here for credit. */
    @Override
    public void onNext(final Outbound message)
    {
        Objects.requireNonNull(message, "message");
        arrived = arrived + 1; // one signal at a time: no lost update
        waiting.add(message);
        drain();
    }

    /** Fails the stream with {@code error} (acceptor), or cancels it (opener). */
    @Override
    public void onError(final Throwable error)
    {
        Objects.requireNonNull(error, "error");
        upstreamError = error;
        upstreamDone = true;
        drain();
    }

    /** Ends this side's direction once what waits was sent. */
    @Override
    public void onComplete()
    {
        upstreamDone = true;
        drain();
    }

    /** The listener: credit came back after an offer or a readiness check found none. */
    void ready()
    {
        drain();
    }

    /** The listener: the stream is over. */
    void streamEnded()
    {
        streamEnded = true;
        drain();
    }

    /** The opener's stream became known (after signals that could not use it yet). */
    void attached()
    {
        drain();
    }

    private void drain()
    {
        if (wip.getAndIncrement() != 0)
        {
            return;
        }
        int missed = 1;
        do
        {
            work();
            missed = wip.addAndGet(-missed);
        }
        while (missed != 0);
    }

    private void work()
    {
        if (finished)
        {
            stop(); // what came since: a subscription to let go (the stream ended before it), messages to release
            return;
        }
        final XioStream stream = flow.streamOrNull();
        if (streamEnded)
        {
            stop();
            return;
        }
        if (stream == null)
        {
            return; // an opener's stream, before openStream returned: attached() comes
        }
        final Throwable error = upstreamError;
        if (error != null)
        {
            // What came before the failure goes as far as the credit there is now; the failure waits for no more.
            Outbound message;
            while ((message = waiting.peek()) != null && offeredBeforeFailing(stream, message))
            {
                waiting.poll();
            }
            releaseWaiting();
            end(stream, error);
            return;
        }
        Outbound message;
        while ((message = waiting.peek()) != null)
        {
            final boolean taken;
            try
            {
                taken = stream.offer(message);
            }
            catch (final RuntimeException ex)
            {
                waiting.poll();
                release(message);
                refused(stream, ex);
                return;
            }
            if (!taken)
            {
                if (stream.isDone())
                {
                    stop();
                }
                return; // the failed offer armed onReady
            }
            waiting.poll();
        }
        if (upstreamDone)
        {
            end(stream, upstreamError); // written before upstreamDone: an error that came meanwhile is seen
            return;
        }
        final Flow.Subscription subscription = upstream.get();
        if (subscription == null)
        {
            return;
        }
        final long outstanding = requested - arrived;
        if (outstanding > maxRequested / 2)
        {
            return; // enough on its way: more is asked for as it arrives
        }
        if (stream.isReady())
        {
            final long more = maxRequested - outstanding;
            requested += more;
            subscription.request(more);
        }
        else if (stream.isDone())
        {
            stop();
        }
        // else: not ready armed onReady, which brings this back
    }

    /** Whether the stream took {@code message} before the upstream's failure (a refusal is not its own failure). */
    private static boolean offeredBeforeFailing(final XioStream stream, final Outbound message)
    {
        try
        {
            return stream.offer(message);
        }
        catch (final RuntimeException ex)
        {
            return false; // released with the rest that waits: the upstream's failure is what the stream ends with
        }
    }

    /** The upstream finished: this side's direction ends (or the stream fails) after what was sent. */
    private void end(final XioStream stream, final Throwable error)
    {
        finished = true;
        upstream.set(null);
        flow.endingHere(error);
        try
        {
            if (error == null)
            {
                if (stream instanceof StreamCall)
                {
                    ((StreamCall)stream).halfClose();
                }
                else
                {
                    flow.end().complete((InboundStream)stream);
                }
            }
            else if (stream instanceof InboundStream)
            {
                flow.end().fail((InboundStream)stream, error);
            }
            else
            {
                stream.cancel();
            }
        }
        catch (final IllegalStateException ex)
        {
            // The application ended this side's direction itself, besides this subscriber: nothing more to end.
            LOG.warn("stream {} was already ended by this side", stream.streamId(), ex);
        }
    }

    /** The stream refused a message (too large for the peer, or this side had ended): the stream fails. */
    private void refused(final XioStream stream, final RuntimeException ex)
    {
        final Flow.Subscription subscription = upstream.getAndSet(null);
        if (subscription != null && !upstreamDone)
        {
            subscription.cancel();
        }
        end(stream, ex);
        releaseWaiting();
    }

    /** The stream is over: the upstream is cancelled (unless it finished) and what waits is released. */
    private void stop()
    {
        finished = true;
        final Flow.Subscription subscription = upstream.getAndSet(null);
        if (subscription != null && !upstreamDone)
        {
            subscription.cancel();
        }
        releaseWaiting();
    }

    private void releaseWaiting()
    {
        Outbound message;
        while ((message = waiting.poll()) != null)
        {
            release(message);
        }
    }

    private static void release(final Outbound message)
    {
        try
        {
            message.released();
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("releasing a message that was not sent failed", ex);
        }
    }

    @Override
    public String toString()
    {
        final XioStream stream = flow.streamOrNull();
        return "subscriber sending into stream " + (stream == null ? "?" : Long.toString(stream.streamId()));
    }
}
