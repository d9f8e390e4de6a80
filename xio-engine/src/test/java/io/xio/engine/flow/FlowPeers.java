package io.xio.engine.flow;

import io.xio.engine.CallOptions;
import io.xio.engine.InboundRequest;
import io.xio.engine.InboundStream;
import io.xio.engine.Limits;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.RequestHandler;
import io.xio.engine.Session;
import io.xio.engine.StreamCall;
import io.xio.engine.StreamLimits;
import io.xio.engine.StreamListener;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioStream;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Two real engines on the in-JVM transport and the peers that the Flow view's tests talk to: streams this side opens
 * (the opener's view under test) to handlers written on the plain stream API, and streams the other side opens to a
 * handler that hands over its {@link FlowStream} (the acceptor's view under test), fed or drained on the plain API.
 * After each test, {@link #afterTest()} cancels what is still open and closes the messages a test subscriber kept;
 * {@link #close()} closes the engines, which fails on a message nobody released.
 */
final class FlowPeers implements AutoCloseable
{
    /** A small window, so that the credit turns over within a test. */
    static final int WINDOW = 16;

    private final TestEngines engines = new TestEngines();
    private final XioEngine server;
    private final XioEngine client;
    private final Portal portal;
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private final BlockingQueue<FlowStream> accepted = new LinkedBlockingQueue<>();
    /** The views handed to tests, and the streams opened to the acceptor: what {@link #afterTest()} ends. */
    private final List<FlowStream> flows = new ArrayList<>();
    private final List<StreamCall> calls = new ArrayList<>();
    /**
     * Set once the test that subscribed is over: its subscribers hear nothing more. Only the {@link Keeper}s hold it,
     * so this class holds no reference to a test's subscriber (the TCK checks the publisher lets go of it).
     */
    private volatile AtomicBoolean testOver = new AtomicBoolean();
    private final ConcurrentLinkedQueue<Message> kept = new ConcurrentLinkedQueue<>();

    FlowPeers()
    {
        final Limits limits = TestEngines.LIMITS.withStreams(StreamLimits.builder().windowMessages(WINDOW)
            .windowBytes(64 << 10).build());
        server = engines.start(engines.builder("flow-server").limits(limits));
        client = engines.start(engines.builder("flow-client").limits(limits));
        server.register("count", new Counter());
        server.register("fail", new Failing());
        server.register("sink", new Sink());
        server.register("idle", new Idle());
        server.register("accept", new Acceptor());
        server.register("plain", TestEngines.ECHO);
        portal = server.bind("local://flow-" + UUID.randomUUID());
    }

    /** The client's session to {@code resource}, one for all the tests of a class. */
    Session session(final String resource)
    {
        return sessions.computeIfAbsent(resource, name -> client.connect(portal.uri().withResource(name).toString()));
    }

    static Outbound number(final long value)
    {
        return Outbound.of(ByteBuffer.allocate(Long.BYTES).putLong(0, value));
    }

    /** The number a message carries; the message stays open. */
    static long number(final Message message)
    {
        final ByteBuffer header = message.header();
        return header.getLong(header.position());
    }

    /** An opener's view of a stream to {@code resource} ({@code accept}: the acceptor's is {@link #accepted}). */
    FlowStream open(final String resource, final Outbound open, final CallOptions options)
    {
        return remember(FlowStream.open(session(resource), open, options));
    }

    /** The acceptor's view of the next stream opened to {@code accept}. */
    FlowStream accepted()
    {
        return take(null);
    }

    /** An opener's view of a stream whose acceptor sends {@code count} numbers (for ever: Long.MAX_VALUE). */
    FlowStream openerOfCount(final long count)
    {
        return remember(FlowStream.open(session("count"), number(count)));
    }

    /** An opener's view of a stream its acceptor fails at once. */
    FlowStream openerOfFailure()
    {
        return remember(FlowStream.open(session("fail"), Outbound.empty()));
    }

    /** An opener's view of a stream whose acceptor takes everything and completes at the half-close. */
    FlowStream openerIntoSink()
    {
        return remember(FlowStream.open(session("sink"), Outbound.empty()));
    }

    /** An acceptor's view of a stream whose opener sends {@code count} numbers (for ever: Long.MAX_VALUE). */
    FlowStream acceptorOfCount(final long count)
    {
        final StreamCall call = openToAcceptor(count, true);
        return take(call);
    }

    /** An acceptor's view of a stream its opener cancelled. */
    FlowStream acceptorOfCancel()
    {
        final StreamCall call = openToAcceptor(0, false);
        final FlowStream flow = take(call);
        call.cancel();
        return flow;
    }

    /** An acceptor's view of a stream whose opener takes all it is sent. */
    FlowStream acceptorIntoSink()
    {
        final StreamCall call = openToAcceptor(0, false);
        call.request(Long.MAX_VALUE);
        return take(call);
    }

    /**
     * A publisher that passes every signal between {@code publisher} and its subscriber through unchanged (the same
     * subscription, the same thread, null refused by the publisher under test) and keeps the messages, so that
     * {@link #afterTest()} closes those the test's subscriber holds; from then on it passes nothing more on.
     */
    Flow.Publisher<Message> keepingMessages(final Flow.Publisher<Message> publisher)
    {
        return subscriber -> publisher.subscribe(subscriber == null ? null : new Keeper(subscriber, kept, testOver));
    }

    /**
     * Cancels the streams still open and closes the messages the tests' subscribers kept. A stream whose peer ended it
     * is over for the engine, so its cancel does nothing, though messages may still wait in its window for a
     * subscriber that a test left without asking for them: those are asked for here, and closed as they come (by a
     * subscriber of this class when nobody subscribed, by the publisher when its subscriber cancelled, or kept and
     * closed below when a test's subscriber is still there).
     */
    void afterTest()
    {
        final List<FlowStream> flows;
        final List<StreamCall> calls;
        synchronized (this)
        {
            // A test's subscriber hears nothing of the cleaning up: an error it heard now, late, would land among the
            // next test's errors.
            testOver.set(true);
            testOver = new AtomicBoolean();
            flows = new ArrayList<>(this.flows);
            calls = new ArrayList<>(this.calls);
            this.flows.clear();
            this.calls.clear();
        }
        FlowStream left;
        while ((left = accepted.poll()) != null)
        {
            flows.add(left);
        }
        for (final FlowStream flow : flows)
        {
            flow.publisher().subscribe(new Closer()); // refused when a test subscribed
            flow.cancel();
            flow.stream().request(Long.MAX_VALUE);
        }
        calls.forEach(XioStream::cancel);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (unreleased() > kept.size() && System.nanoTime() < deadline)
        {
            pause();
        }
        Message message;
        while ((message = kept.poll()) != null)
        {
            message.close();
        }
    }

    private static void pause()
    {
        try
        {
            Thread.sleep(5);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    private int unreleased()
    {
        return client.unreleasedMessages().size() + server.unreleasedMessages().size();
    }

    @Override
    public void close()
    {
        afterTest();
        sessions.values().forEach(Session::close);
        engines.close();
    }

    private synchronized FlowStream remember(final FlowStream flow)
    {
        flows.add(flow);
        return flow;
    }

    private StreamCall openToAcceptor(final long count, final boolean feed)
    {
        final Pump[] pump = new Pump[1];
        final StreamListener listener = new StreamListener()
        {
            @Override
            public void onMessage(final Message message)
            {
                message.close();
            }

            @Override
            public void onReady()
            {
                if (pump[0] != null)
                {
                    pump[0].pump();
                }
            }

            @Override
            public void onError(final Throwable error)
            {
            }
        };
        final StreamCall call = session("accept").openStream(Outbound.empty(), listener);
        synchronized (this)
        {
            calls.add(call);
        }
        if (feed)
        {
            final Pump feeder = new Pump(call, count, call::halfClose);
            pump[0] = feeder;
            feeder.pump();
        }
        return call;
    }

    /** The acceptor's view of the stream {@code call} (null: of a stream the test opened) opened. */
    private FlowStream take(final StreamCall call)
    {
        try
        {
            final FlowStream flow = accepted.poll(30, TimeUnit.SECONDS);
            if (flow == null)
            {
                throw new AssertionError("the server took no stream within 30 s; the opener's stream is done: " +
                    (call == null ? "?" : call.isDone()));
            }
            return remember(flow);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    /** Offers the numbers 1..count as credit allows, resuming on the ready signal; then ends its direction. */
    static final class Pump
    {
        private final XioStream stream;
        private final long count;
        private final Runnable end;
        private long next = 1;

        Pump(final XioStream stream, final long count, final Runnable end)
        {
            this.stream = stream;
            this.count = count;
            this.end = end;
        }

        synchronized void pump()
        {
            while (next <= count)
            {
                if (stream.isDone() || !stream.offer(number(next)))
                {
                    return;
                }
                next++;
            }
            if (next == count + 1 && count != Long.MAX_VALUE)
            {
                next++;
                end.run();
            }
        }
    }

    /** The handler's streams as a handler sees any request: refused, streams only. */
    private abstract static class StreamsOnly implements RequestHandler
    {
        @Override
        public void onRequest(final InboundRequest request)
        {
            request.message().close();
            request.fail(new IllegalStateException("streams only"));
        }
    }

    /** Sends as many numbers as the open says, then completes. */
    private static final class Counter extends StreamsOnly
    {
        @Override
        public void onStream(final InboundStream stream)
        {
            final long count;
            try (Message open = stream.open())
            {
                count = number(open);
            }
            final Pump pump = new Pump(stream, count, stream::complete);
            stream.start(new StreamListener()
            {
                @Override
                public void onMessage(final Message message)
                {
                    message.close();
                }

                @Override
                public void onReady()
                {
                    pump.pump();
                }

                @Override
                public void onError(final Throwable error)
                {
                }
            });
            pump.pump();
        }
    }

    /** Fails every stream at once. */
    private static final class Failing extends StreamsOnly
    {
        @Override
        public void onStream(final InboundStream stream)
        {
            stream.open().close();
            stream.fail("com.acme.Refused", "this stream fails at once");
        }
    }

    /** Takes every message and completes the stream at the opener's half-close. */
    private static final class Sink extends StreamsOnly
    {
        @Override
        public void onStream(final InboundStream stream)
        {
            stream.open().close();
            stream.start(new StreamListener()
            {
                @Override
                public void onMessage(final Message message)
                {
                    message.close();
                }

                @Override
                public void onHalfClose()
                {
                    stream.complete();
                }

                @Override
                public void onError(final Throwable error)
                {
                }
            });
            stream.request(Long.MAX_VALUE);
        }
    }

    /** Starts every stream and does nothing more: it sends nothing, takes nothing and never ends it. */
    private static final class Idle extends StreamsOnly
    {
        @Override
        public void onStream(final InboundStream stream)
        {
            stream.open().close();
            stream.start(new StreamListener()
            {
                @Override
                public void onMessage(final Message message)
                {
                    message.close();
                }

                @Override
                public void onError(final Throwable error)
                {
                }
            });
        }
    }

    /** Hands each stream over as an acceptor's {@link FlowStream}. */
    private final class Acceptor extends StreamsOnly
    {
        @Override
        public void onStream(final InboundStream stream)
        {
            stream.open().close();
            accepted.add(FlowStream.accept(stream));
        }
    }

    /** Takes and closes every message. */
    private static final class Closer implements Flow.Subscriber<Message>
    {
        @Override
        public void onSubscribe(final Flow.Subscription subscription)
        {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(final Message message)
        {
            message.close();
        }

        @Override
        public void onError(final Throwable error)
        {
        }

        @Override
        public void onComplete()
        {
        }
    }

    /** Passes the signals on, keeping the messages, until its test is over; then it drops them (closing messages). */
    private static final class Keeper implements Flow.Subscriber<Message>
    {
        private final Flow.Subscriber<? super Message> target;
        private final ConcurrentLinkedQueue<Message> kept;
        private final AtomicBoolean detached;

        Keeper(final Flow.Subscriber<? super Message> target, final ConcurrentLinkedQueue<Message> kept,
            final AtomicBoolean detached)
        {
            this.target = target;
            this.kept = kept;
            this.detached = detached;
        }

        @Override
        public void onSubscribe(final Flow.Subscription subscription)
        {
            target.onSubscribe(subscription);
        }

        @Override
        public void onNext(final Message message)
        {
            if (detached.get())
            {
                message.close();
                return;
            }
            kept.add(message);
            target.onNext(message);
        }

        @Override
        public void onError(final Throwable error)
        {
            if (!detached.get())
            {
                target.onError(error);
            }
        }

        @Override
        public void onComplete()
        {
            if (!detached.get())
            {
                target.onComplete();
            }
        }
    }
}
