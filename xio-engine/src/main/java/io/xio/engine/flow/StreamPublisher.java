package io.xio.engine.flow;

import io.xio.engine.Message;
import io.xio.engine.XioStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The messages of one stream that the peer sends, as a {@link Flow.Publisher} ({@link FlowStream#publisher()}): the
 * subscription's {@link Flow.Subscription#request request(n)} is {@link XioStream#request(long)}, its
 * {@link Flow.Subscription#cancel() cancel} is {@link XioStream#cancel()} (the whole stream), and the stream's end is
 * {@code onComplete} or {@code onError} (see {@link FlowStream}). The subscriber owns each message it is given and
 * must {@linkplain Message#close() close} it. One subscriber only: a second gets {@code onSubscribe} and then
 * {@code onError} with an {@link IllegalStateException}.
 *
 * <p>Reactive Streams rules kept here: signals one at a time, each after the one before (1.3), {@code onSubscribe}
 * first (1.9), nothing after a terminal signal or a cancel (1.7, 3.6), {@code request} of zero or less fails the
 * subscriber with an {@link IllegalArgumentException} (3.9, and cancels the stream), demand adds up to
 * {@link Long#MAX_VALUE}, which means all (3.17), a {@code request} made within {@code onNext} delivers after it
 * returns, not within it (3.3), and the subscriber is let go at a cancel or the end (3.13). Messages that arrive after
 * a cancel are closed here.
 *
 * <p>Threads: {@link #subscribe} and the subscription's methods may be called from any thread. The subscriber's
 * methods run one at a time: {@code onSubscribe} on the thread that subscribes; the others usually on the stream's
 * context thread, which they must not block (hand slow work on and request more when done); a signal that becomes due
 * while another is under way runs after it on the thread of that one, so {@code onNext} and {@code onComplete} may
 * also run on the subscribing thread, and an {@code onError} on the thread that ended the stream
 * ({@link FlowStream}).
 */
public final class StreamPublisher implements Flow.Publisher<Message>
{
    private static final Logger LOG = LoggerFactory.getLogger(StreamPublisher.class);
    /** The completion in the queue of signals (a failure is a {@link Failure}). */
    private static final Object COMPLETE = new Object();

    private final FlowStream flow;
    private final Link link = new Link();
    private final AtomicBoolean claimed = new AtomicBoolean();
    /** Messages and the one terminal signal, in the order they go out. */
    private final ConcurrentLinkedQueue<Object> signals = new ConcurrentLinkedQueue<>();
    /** Signals due while one thread sends them: the one that raised it from 0 sends until it is 0 again. */
    private final AtomicInteger wip = new AtomicInteger();
    private final AtomicBoolean terminalQueued = new AtomicBoolean();
    /** Set at subscribe, cleared at the end or a cancel (rule 3.13). */
    private volatile Flow.Subscriber<? super Message> subscriber;
    private volatile boolean cancelled;

    // The sending thread's (whoever holds wip), each handing over to the next through wip.
    private boolean subscribed;
    private boolean done;

    StreamPublisher(final FlowStream flow)
    {
        this.flow = flow;
    }

    /**
     * Subscribes {@code subscriber}: it gets {@code onSubscribe} now, on this thread, and messages as it requests them.
     * Once; a second subscriber is refused with {@code onError}. Any thread.
     *
     * @throws NullPointerException when {@code subscriber} is null (rule 1.9)
     */
    @Override
    public void subscribe(final Flow.Subscriber<? super Message> subscriber)
    {
        Objects.requireNonNull(subscriber, "subscriber");
        if (!claimed.compareAndSet(false, true))
        {
            subscriber.onSubscribe(Refused.INSTANCE);
            subscriber.onError(new IllegalStateException("the messages of stream " + streamId() +
                " go to one subscriber, which it has already"));
            return;
        }
        this.subscriber = subscriber;
        drain();
    }

    /** The listener: a message the subscriber asked for. */
    void message(final Message message)
    {
        signals.add(message);
        drain();
    }

    /** The peer ended its direction, after its last message. */
    void complete()
    {
        terminal(COMPLETE);
    }

    /** The stream failed, or this side ended it early; the first terminal signal wins. */
    void error(final Throwable error)
    {
        terminal(new Failure(error));
    }

    private void terminal(final Object signal)
    {
        if (terminalQueued.compareAndSet(false, true))
        {
            signals.add(signal);
            drain();
        }
    }

    private String streamId()
    {
        final XioStream stream = flow.streamOrNull();
        return stream == null ? "?" : Long.toString(stream.streamId());
    }

    /** Sends what is due, unless another thread is at it (then that one sends it, after what it sends now). */
    private void drain()
    {
        if (wip.getAndIncrement() != 0)
        {
            return;
        }
        int missed = 1;
        do
        {
            send();
            missed = wip.addAndGet(-missed);
        }
        while (missed != 0);
    }

    private void send()
    {
        if (done)
        {
            releaseQueued();
            return;
        }
        final Flow.Subscriber<? super Message> target = subscriber;
        if (target == null)
        {
            return; // not subscribed yet: a terminal signal waits for the subscriber (messages come on demand only)
        }
        if (!subscribed)
        {
            subscribed = true;
            try
            {
                target.onSubscribe(link);
            }
            catch (final RuntimeException ex)
            {
                broken(target, "onSubscribe", ex);
                return;
            }
        }
        while (true)
        {
            if (cancelled)
            {
                finish();
                return;
            }
            final Object signal = signals.poll();
            if (signal == null)
            {
                return;
            }
            if (signal instanceof Message)
            {
                try
                {
                    target.onNext((Message)signal);
                }
                catch (final RuntimeException ex)
                {
                    broken(target, "onNext", ex);
                    return;
                }
                continue;
            }
            finish();
            try
            {
                if (signal == COMPLETE)
                {
                    target.onComplete();
                }
                else
                {
                    target.onError(((Failure)signal).error);
                }
            }
            catch (final RuntimeException ex)
            {
                LOG.warn("the subscriber of stream {} failed on its last signal", streamId(), ex);
            }
            return;
        }
    }

    /** Nothing more goes out: the subscriber is let go and what waits is released. */
    private void finish()
    {
        done = true;
        subscriber = null;
        releaseQueued();
    }

    /** A subscriber that threw (rule 2.13 says it must not): the stream is cancelled, as its subscription would be. */
    private void broken(final Flow.Subscriber<? super Message> target, final String signal, final RuntimeException ex)
    {
        LOG.warn("the subscriber {} of stream {} failed in {}; the stream is cancelled", target, streamId(), signal,
            ex);
        cancelled = true;
        finish();
        abandon();
    }

    /**
     * Nobody takes the stream's messages any more: it is cancelled, and what it still holds is asked for, to be closed
     * here as it comes. The engine's cancel does nothing once the stream is over, as an opener's is from the moment
     * the acceptor's end arrived, even while messages before that end wait in its window for the application; those
     * would stay there, unreleased, if nobody asked for them.
     */
    private void abandon()
    {
        final XioStream stream = flow.streamOrNull();
        if (stream != null)
        {
            stream.cancel();
            stream.request(Long.MAX_VALUE);
        }
    }

    private void releaseQueued()
    {
        Object signal;
        while ((signal = signals.poll()) != null)
        {
            if (signal instanceof Message)
            {
                ((Message)signal).close();
            }
        }
    }

    /** A failure in the queue of signals. */
    private static final class Failure
    {
        final Throwable error;

        Failure(final Throwable error)
        {
            this.error = error;
        }
    }

    /** The subscription; any thread. */
    private final class Link implements Flow.Subscription
    {
        @Override
        public void request(final long count)
        {
            if (cancelled || terminalQueued.get())
            {
                return; // rule 3.6; and after the end there is nothing more to ask for
            }
            if (count <= 0)
            {
                error(new IllegalArgumentException("a subscriber of stream " + streamId() + " asked for " + count +
                    " messages: a non-positive subscription request (Reactive Streams rule 3.9)"));
                abandon(); // nobody reads it any more
                return;
            }
            flow.stream().request(count);
        }

        @Override
        public void cancel()
        {
            if (cancelled)
            {
                return;
            }
            cancelled = true;
            abandon();
            drain(); // lets the subscriber go now, unless a signal is under way (then right after it)
        }

        @Override
        public String toString()
        {
            return "subscription to stream " + streamId();
        }
    }

    /** The subscription a refused subscriber gets before its error: it does nothing. */
    private enum Refused implements Flow.Subscription
    {
        INSTANCE;

        @Override
        public void request(final long count)
        {
        }

        @Override
        public void cancel()
        {
        }
    }

    @Override
    public String toString()
    {
        return "publisher of stream " + streamId();
    }
}
