package io.xio.engine.hostile;

import io.xio.engine.ConnectionException;
import io.xio.engine.Context;
import io.xio.engine.InboundStream;
import io.xio.engine.Limits;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.PeerRefusal;
import io.xio.engine.Portal;
import io.xio.engine.PortalOptions;
import io.xio.engine.RequestCancelledException;
import io.xio.engine.RequestHandler;
import io.xio.engine.Session;
import io.xio.engine.SessionEvent;
import io.xio.engine.SetupDecision;
import io.xio.engine.StreamCall;
import io.xio.engine.StreamLimits;
import io.xio.engine.StreamListener;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioException;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.protocol.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

import static io.xio.engine.TestEngines.ECHO;
import static io.xio.engine.TestEngines.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Streams attacked from the outside with hand-made frames ({@link RawPeer}, written from the wire as the stream
 * spec describes it): data beyond either credit, out of order or after the end, credit that is absurd or malformed,
 * frames for streams never opened or long over, stream frames on a session that did not announce streams, a flood
 * of opens, and peers that starve or never read a stream sent to them. Each breach of the protocol closes that one
 * connection with a violation naming it; what the protocol allows (a duplicate, a frame for an ended stream) is
 * dropped and the stream or session goes on; what costs the server is bounded by its limits and windows; and a
 * client on another connection keeps being served, streams included. Attackers connect from 127.0.0.2.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StreamPeerTest
{
    private static final String ATTACKER = "127.0.0.2";
    private static final byte[] NOTHING = new byte[0];

    private final TestEngines engines = new TestEngines();
    private final List<SessionEvent> serverEvents = new CopyOnWriteArrayList<>();
    private final List<RawPeer> peers = new ArrayList<>();
    /** The streams the service took, as it holds them; by default it holds each open and takes nothing of it. */
    private final List<Holder> held = new CopyOnWriteArrayList<>();
    private volatile Consumer<InboundStream> onStream = this::hold;
    /** What the server's session listener does besides keeping the event, on the thread that tells it. */
    private volatile Consumer<SessionEvent> onEvent = event -> { };
    /** The session of the latest request the service answered. */
    private volatile Session lastCaller;
    private XioEngine server;
    private Portal portal;

    @AfterEach
    void close() throws IOException
    {
        for (final RawPeer peer : peers)
        {
            peer.close();
        }
        engines.close();
    }

    /**
     * A server with {@code limits}: service {@code svc} echoes requests and does {@link #onStream} with streams;
     * service {@code sink} counts a stream's messages and completes it at the half-close (for bystanders).
     */
    private void start(final Limits limits)
    {
        start(limits, builder -> builder);
    }

    /** {@link #start(Limits)} on an engine {@code tune} changes (its timeouts, say). */
    private void start(final Limits limits, final UnaryOperator<XioEngine.Builder> tune)
    {
        server = engines.start(tune.apply(engines.builder("server")).limits(limits).sessionListener(event ->
        {
            serverEvents.add(event);
            onEvent.accept(event);
        }));
        server.register("svc", new RequestHandler()
        {
            @Override
            public void onRequest(final io.xio.engine.InboundRequest request) throws Exception
            {
                lastCaller = request.session();
                if (TestEngines.text(request.message().header()).equals("hold"))
                {
                    unanswered.add(request); // answered by the test, later
                    return;
                }
                ECHO.onRequest(request);
            }

            @Override
            public void onStream(final InboundStream stream)
            {
                onStream.accept(stream);
            }
        });
        server.register("sink", SINK);
        portal = server.bind("tcp://127.0.0.1:0");
    }

    /** Requests the service holds unanswered (their header said "hold"). */
    private final java.util.concurrent.BlockingQueue<io.xio.engine.InboundRequest> unanswered =
        new java.util.concurrent.LinkedBlockingQueue<>();

    /**
     * A stream open with the id of a call still running is answered at once, and the context goes on: it must not
     * wait for that call (whose answer, deadline or cancel all need the same thread).
     */
    @Test
    void aStreamOpenWithTheIdOfACallStillRunningIsAnsweredAndStopsNothing() throws Exception
    {
        start(StreamLimits.DEFAULT);
        try (Session bystander = bystander())
        {
            final RawPeer peer = attacker();
            final long session = session(peer);
            peer.send(RawPeer.request(session, 1, utf8("hold")));
            final io.xio.engine.InboundRequest running = unanswered.poll(5, TimeUnit.SECONDS);
            assertThat(running).isNotNull();
            peer.send(RawPeer.streamOpen(session, 1, null, NOTHING));
            final RawPeer.Received answer = next(peer, frame -> frame.type() == FrameType.RESPONSE &&
                frame.requestId() == 1);
            assertThat(answer).as("the open is answered while the call runs").isNotNull();
            assertThat(answer.status()).isEqualTo(Status.RESPONSE_LOST);
            served(peer, session, 2);
            stillServed(bystander);
            running.message().close();
            running.respond(Outbound.empty());
        }
    }

    private void start(final StreamLimits streams)
    {
        start(TestEngines.LIMITS.withStreams(streams));
    }

    private RawPeer attacker() throws IOException
    {
        final RawPeer peer = new RawPeer(ATTACKER, portal.uri().port(), 0);
        peers.add(peer);
        return peer;
    }

    /** A session on {@code svc} of a new attacker's connection, announcing streams (and GOAWAY), as clients do. */
    private static long session(final RawPeer peer) throws IOException
    {
        return peer.setUp("svc", SetupCodec.FEATURES);
    }

    /** A well-behaved client of the server on another connection (and host): {@link #stillServed} checks it. */
    private Session bystander()
    {
        return engines.start("client").connect(portal.uri().withResource("sink").toString());
    }

    private void hold(final InboundStream stream)
    {
        stream.open().close();
        final Holder holder = new Holder(stream);
        held.add(holder);
        stream.start(holder);
    }

    /** The service's listener: takes nothing unless asked to, keeps what it is given, and how the stream ended. */
    private static class Holder implements StreamListener
    {
        final InboundStream stream;
        final List<String> messages = new CopyOnWriteArrayList<>();
        final CompletableFuture<Throwable> error = new CompletableFuture<>();

        Holder(final InboundStream stream)
        {
            this.stream = stream;
        }

        @Override
        public void onMessage(final Message message)
        {
            try (message)
            {
                messages.add(text(message.header()));
            }
        }

        @Override
        public void onError(final Throwable failure)
        {
            error.complete(failure);
        }
    }

    /** Counts what the opener sends and completes with the count (trailer {@code received}) at its half-close. */
    private static final RequestHandler SINK = new RequestHandler()
    {
        @Override
        public void onRequest(final io.xio.engine.InboundRequest request) throws Exception
        {
            ECHO.onRequest(request);
        }

        @Override
        public void onStream(final InboundStream stream)
        {
            stream.open().close();
            final AtomicLong received = new AtomicLong();
            stream.start(new StreamListener()
            {
                @Override
                public void onMessage(final Message message)
                {
                    message.close();
                    received.incrementAndGet();
                }

                @Override
                public void onHalfClose()
                {
                    stream.complete(new Metadata().put("received", Long.toString(received.get())));
                }

                @Override
                public void onError(final Throwable error)
                {
                }
            });
            stream.request(Long.MAX_VALUE);
        }
    };

    /** The bystander's calls and streams are still served: a request, and a stream of three messages. */
    private static void stillServed(final Session session) throws Exception
    {
        try (Message reply = session.request(Outbound.of(TestEngines.utf8("still"))).get(10, TimeUnit.SECONDS))
        {
            assertThat(text(reply.header())).isEqualTo("still");
        }
        final CompletableFuture<Metadata> done = new CompletableFuture<>();
        final StreamCall call = session.openStream(Outbound.empty(), new StreamListener()
        {
            @Override
            public void onMessage(final Message message)
            {
                message.close();
            }

            @Override
            public void onComplete(final Metadata trailers)
            {
                done.complete(trailers);
            }

            @Override
            public void onError(final Throwable error)
            {
                done.completeExceptionally(error);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> call.isReady() || done.isDone());
        assertThat(done).as("the bystander's stream is open").isNotDone();
        for (int i = 1; i <= 3; i++)
        {
            assertThat(call.offer(Outbound.of(TestEngines.utf8("message " + i)))).isTrue();
        }
        call.halfClose();
        assertThat(done.get(10, TimeUnit.SECONDS).get("received")).isEqualTo("3");
    }

    private void assertViolation(final String problem)
    {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(serverEvents)
            .anySatisfy(event -> assertThat(event.detail()).contains("protocol violation").contains(problem)));
    }

    private void assertNoViolation()
    {
        assertThat(serverEvents).noneSatisfy(event -> assertThat(event.detail()).contains("protocol violation"));
    }

    private static byte[] utf8(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The next frame {@code wanted} takes, skipping the others (keepalives, credits) and sending keepalives
     * meanwhile, as a live client does; null once the server closed the connection.
     */
    private static RawPeer.Received next(final RawPeer peer, final Predicate<RawPeer.Received> wanted)
        throws IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline)
        {
            peer.send(RawPeer.keepalive());
            final RawPeer.Received frame;
            try
            {
                frame = peer.read(Duration.ofMillis(500));
            }
            catch (final SocketTimeoutException quiet)
            {
                continue;
            }
            if (frame == null || wanted.test(frame))
            {
                return frame;
            }
        }
        throw new AssertionError("no such frame within 15 s");
    }

    /** Frames other than keepalives the server sends in {@code quiet}, the peer sending keepalives meanwhile. */
    private static List<RawPeer.Received> framesWithin(final RawPeer peer, final Duration quiet) throws IOException
    {
        final List<RawPeer.Received> frames = new ArrayList<>();
        final long deadline = System.nanoTime() + quiet.toNanos();
        while (System.nanoTime() < deadline)
        {
            peer.send(RawPeer.keepalive());
            try
            {
                final RawPeer.Received frame = peer.read(Duration.ofMillis(200));
                if (frame == null)
                {
                    throw new AssertionError("the connection closed");
                }
                if (frame.type() != FrameType.KEEPALIVE)
                {
                    frames.add(frame);
                }
            }
            catch (final SocketTimeoutException quietNow)
            {
                // nothing within 200 ms: look again until the time is up
            }
        }
        return frames;
    }

    /** Opens stream {@code id} (no deadline) and returns the server's acceptance, its first CREDIT. */
    private static RawPeer.Received open(final RawPeer peer, final long session, final long id) throws IOException
    {
        peer.send(RawPeer.streamOpen(session, id, null, utf8("open " + id)));
        return accepted(peer, id);
    }

    private static RawPeer.Received accepted(final RawPeer peer, final long id) throws IOException
    {
        final RawPeer.Received credit = peer.answer();
        assertThat(credit).as("an answer to the open of stream %d", id).isNotNull();
        assertThat(credit.type()).as("stream %d accepted (a CREDIT, not a refusal)", id).isEqualTo(FrameType.CREDIT);
        assertThat(credit.requestId()).isEqualTo(id);
        assertThat(credit.flags() & FrameFlags.FROM_ACCEPTOR).as("the opener's id space").isZero();
        assertThat(credit.body()).hasSize(24);
        return credit;
    }

    /** A request on the attacker's own session is still answered. */
    private static void served(final RawPeer peer, final long session, final long id) throws IOException
    {
        peer.send(RawPeer.request(session, id, utf8("still " + id)));
        final RawPeer.Received answer = next(peer, frame -> frame.type() == FrameType.RESPONSE &&
            frame.requestId() == id);
        assertThat(answer).as("the connection is still up").isNotNull();
        assertThat(answer.status()).isEqualTo(Status.OK);
        assertThat(new String(answer.body(), StandardCharsets.UTF_8)).isEqualTo("still " + id);
    }

    // ---- data against the credit ----

    @Test
    void dataBeyondTheMessageCreditClosesTheConnection() throws Exception
    {
        start(StreamLimits.builder().windowMessages(4).build());
        try (Session bystander = bystander())
        {
            final RawPeer peer = attacker();
            final long session = session(peer);
            final RawPeer.Received credit = open(peer, session, 1);
            assertThat(credit.i64(0)).as("received").isZero();
            assertThat(credit.i64(8)).as("the window in messages").isEqualTo(4);
            for (int seq = 1; seq <= 4; seq++)
            {
                peer.send(RawPeer.streamData(session, 1, seq, utf8("message " + seq)));
            }
            served(peer, session, 2); // the service took nothing: four are held, as the window allows
            peer.send(RawPeer.streamData(session, 1, 5, utf8("message 5")));
            assertThat(peer.closedWithin(Duration.ofSeconds(5))).isTrue();
            assertViolation("STREAM_DATA on stream 1 of session " + session +
                ": message 5 beyond the credit of 4 messages");
            // Only the connection closed: the session waits for its client to attach again, the stream with it.
            assertThat(held.get(0).error).isNotDone();
            stillServed(bystander);
        }
    }

    @Test
    void dataBeyondTheByteCreditClosesTheConnection() throws Exception
    {
        start(StreamLimits.builder().windowBytes(1024).build());
        try (Session bystander = bystander())
        {
            final RawPeer peer = attacker();
            final long session = session(peer);
            assertThat(open(peer, session, 1).i64(16)).as("the window in bytes").isEqualTo(1024);
            // A message counts its header area (sequence included) and its data: 8 + 1 + 500, then 8 + 1 + 600.
            peer.send(RawPeer.streamData(session, 1, 1, utf8("a"), new byte[500]));
            peer.send(RawPeer.streamData(session, 1, 2, utf8("b"), new byte[600])); // starts at 509 < 1024: taken
            served(peer, session, 2);
            peer.send(RawPeer.streamData(session, 1, 3, utf8("c")));
            assertThat(peer.closedWithin(Duration.ofSeconds(5))).isTrue();
            assertViolation("STREAM_DATA on stream 1 of session " + session +
                ": message 3 beyond the credit of 1024 bytes, 1118 received");
            stillServed(bystander);
        }
    }

    // ---- data against the sequence ----

    @Test
    void aSequenceGapClosesTheConnection() throws Exception
    {
        start(StreamLimits.DEFAULT);
        try (Session bystander = bystander())
        {
            final RawPeer peer = attacker();
            final long session = session(peer);
            open(peer, session, 1);
            peer.send(RawPeer.streamData(session, 1, 1, utf8("one")));
            peer.send(RawPeer.streamData(session, 1, 3, utf8("three")));
            assertThat(peer.closedWithin(Duration.ofSeconds(5))).isTrue();
            assertViolation("STREAM_DATA on stream 1 of session " + session + ": message 3 where 2 was due");
            stillServed(bystander);
        }
    }

    @Test
    void dataAfterTheEndOfItsDirectionClosesTheConnection() throws Exception
    {
        start(StreamLimits.DEFAULT);
        try (Session bystander = bystander())
        {
            final RawPeer peer = attacker();
            final long session = session(peer);
            open(peer, session, 1);
            peer.send(RawPeer.streamData(session, 1, 1, utf8("one")));
            peer.send(RawPeer.streamData(session, 1, FrameFlags.END, Status.OK, 2, NOTHING)); // half-closed
            served(peer, session, 2); // the service has not completed: the stream lives on
            peer.send(RawPeer.streamData(session, 1, 3, utf8("after the end")));
            assertThat(peer.closedWithin(Duration.ofSeconds(5))).isTrue();
            assertViolation("STREAM_DATA on stream 1 of session " + session +
                ": message 3 after the end of the direction at 2");
            stillServed(bystander);
        }
    }

    @Test
    void aDuplicateMessageIsDroppedAndTheStreamGoesOn() throws Exception
    {
        start(StreamLimits.builder().windowMessages(4).build());
        final CompletableFuture<Holder> collector = new CompletableFuture<>();
        onStream = stream ->
        {
            stream.open().close();
            final Holder holder = new Holder(stream)
            {
                @Override
                public void onHalfClose()
                {
                    stream.complete(new Metadata().put("got", String.join(",", messages)));
                }
            };
            stream.start(holder);
            stream.request(Long.MAX_VALUE);
            collector.complete(holder);
        };
        final RawPeer peer = attacker();
        final long session = session(peer);
        open(peer, session, 1);
        peer.send(RawPeer.streamData(session, 1, 1, utf8("one")));
        peer.send(RawPeer.streamData(session, 1, 1, utf8("one again"))); // as after a resend elsewhere
        peer.send(RawPeer.streamData(session, 1, 2, utf8("two")));
        peer.send(RawPeer.streamData(session, 1, 1, utf8("one, late")));
        peer.send(RawPeer.streamData(session, 1, FrameFlags.END, Status.OK, 3, NOTHING));
        final RawPeer.Received end = next(peer, frame -> frame.isStreamData(true));
        assertThat(end).as("the service completed the stream").isNotNull();
        assertThat(end.requestId()).isEqualTo(1);
        assertThat(end.status()).isEqualTo(Status.OK);
        assertThat(end.i64(0)).as("the acceptor's end is its first message").isEqualTo(1);
        assertThat(collector.get(5, TimeUnit.SECONDS).messages).containsExactly("one", "two");
        served(peer, session, 2);
        assertNoViolation();
    }

    // ---- credit ----

    @Test
    void anAbsurdCreditLetsTheSenderQueueNoMoreThanItsOwnWindow() throws Exception
    {
        final int window = 8;
        start(StreamLimits.builder().windowMessages(window).build());
        final CompletableFuture<Integer> taken = new CompletableFuture<>();
        onStream = stream ->
        {
            stream.open().close();
            stream.start(new Holder(stream)
            {
                @Override
                public void onReady()
                {
                    if (taken.isDone())
                    {
                        return;
                    }
                    // Another thread offers while this (the stream's context thread) waits for it: nothing is
                    // written meanwhile, so what the sender took is exactly what it queued.
                    final Thread offerer = new Thread(() ->
                    {
                        int offered = 0;
                        while (offered < 1_000_000 && stream.offer(Outbound.of(TestEngines.utf8("m"))))
                        {
                            offered++;
                        }
                        taken.complete(offered);
                    });
                    offerer.start();
                    try
                    {
                        offerer.join(10_000);
                    }
                    catch (final InterruptedException ex)
                    {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            stream.isReady(); // false, no credit before the opener's: arms onReady
        };
        try (Session bystander = bystander())
        {
            final RawPeer peer = attacker();
            final long session = session(peer);
            open(peer, session, 1);
            peer.send(RawPeer.credit(session, 1, 0, 0, Long.MAX_VALUE, Long.MAX_VALUE));
            assertThat(taken.get(10, TimeUnit.SECONDS)).as("offers taken with a credit of 2^63 - 1 messages")
                .isEqualTo(window);
            for (long seq = 1; seq <= window; seq++)
            {
                final RawPeer.Received data = next(peer, frame -> frame.type() == FrameType.STREAM_DATA);
                assertThat(data).isNotNull();
                assertThat(data.i64(0)).isEqualTo(seq);
                assertThat(data.flags() & FrameFlags.ACK_REQUESTED).as("message %d asks to be acknowledged", seq)
                    .isEqualTo(seq == window ? FrameFlags.ACK_REQUESTED : 0);
            }
            assertThat(framesWithin(peer, Duration.ofMillis(500))).as("nothing more was offered").isEmpty();
            served(peer, session, 2);
            assertNoViolation();
            stillServed(bystander);
        }
    }

    /**
     * A message flagged ACK_REQUESTED (its sender's window is full) is acknowledged as it arrives, unread, with the
     * limits as granted; unflagged ones earn nothing until the application takes half the window.
     */
    @Test
    void aMessageThatAsksForAnAcknowledgementIsAcknowledgedAtOnceWithTheLimitsAsGranted() throws Exception
    {
        start(StreamLimits.builder().windowMessages(16).windowBytes(4096).build());
        final RawPeer peer = attacker();
        final long session = session(peer);
        open(peer, session, 1);
        for (long seq = 1; seq <= 3; seq++)
        {
            peer.send(RawPeer.streamData(session, 1, seq, utf8("m" + seq)));
        }
        assertThat(framesWithin(peer, Duration.ofMillis(300))).as("nothing for messages not asking, none taken")
            .isEmpty();
        peer.send(RawPeer.streamData(session, 1, FrameFlags.ACK_REQUESTED, 0, 4, utf8("m4")));
        final RawPeer.Received ack = next(peer, frame -> frame.type() == FrameType.CREDIT);
        assertThat(ack.requestId()).isEqualTo(1);
        assertThat(ack.i64(0)).as("received").isEqualTo(4);
        assertThat(ack.i64(8)).as("the message limit as granted").isEqualTo(16);
        assertThat(ack.i64(16)).as("the byte limit as granted").isEqualTo(4096);
        peer.send(RawPeer.streamData(session, 1, FrameFlags.ACK_REQUESTED, 0, 5, utf8("m5")));
        assertThat(next(peer, frame -> frame.type() == FrameType.CREDIT).i64(0)).isEqualTo(5);
        assertThat(held).hasSize(1);
        assertThat(held.get(0).messages).as("none taken by the service").isEmpty();
        served(peer, session, 2);
        assertNoViolation();
    }

    @Test
    void aMalformedCreditClosesTheConnection() throws Exception
    {
        start(StreamLimits.builder().windowMessages(4).build());
        final Map<String, LongFunction<byte[]>> cases = new LinkedHashMap<>();
        cases.put("CREDIT with received -1, limit 4 and 100 bytes", s -> RawPeer.credit(s, 1, 0, -1, 4, 100));
        cases.put("CREDIT with received 0, limit -1 and 100 bytes", s -> RawPeer.credit(s, 1, 0, 0, -1, 100));
        cases.put("CREDIT with received 0, limit 4 and -1 bytes", s -> RawPeer.credit(s, 1, 0, 0, 4, -1));
        cases.put("CREDIT with received 3, limit 2 and 100 bytes", s -> RawPeer.credit(s, 1, 0, 3, 2, 100));
        cases.put("CREDIT with a 16-byte body and 0 segments (it has a 24-byte body)",
            s -> RawPeer.frame(FrameType.CREDIT, 0, s, 1, new SetupCodec.Writer().i64(0).i64(4).toBytes()));
        cases.put("CREDIT with a 32-byte body and 0 segments", s -> RawPeer.frame(FrameType.CREDIT, 0, s, 1,
            new SetupCodec.Writer().i64(0).i64(4).i64(100).i64(0).toBytes()));
        cases.put("CREDIT with a 24-byte body and 1 segments", s -> RawPeer.frame(FrameType.CREDIT, 0, s, 1,
            new SetupCodec.Writer().i64(0).i64(4).i64(100).toBytes(), new byte[8]));
        cases.put("CREDIT for stream 1 acknowledges message 5, but 0 were sent",
            s -> RawPeer.credit(s, 1, 0, 5, 10, 100));
        try (Session bystander = bystander())
        {
            for (final Map.Entry<String, LongFunction<byte[]>> malformed : cases.entrySet())
            {
                final RawPeer peer = attacker();
                final long session = session(peer);
                open(peer, session, 1);
                peer.send(malformed.getValue().apply(session));
                assertThat(peer.closedWithin(Duration.ofSeconds(5))).as(malformed.getKey()).isTrue();
                assertViolation(malformed.getKey());
            }
            stillServed(bystander);
        }
    }

    // ---- frames for streams that are not there ----

    @Test
    void streamFramesForAStreamNeverOpenedCloseTheConnection() throws Exception
    {
        start(StreamLimits.DEFAULT);
        final Map<String, LongFunction<byte[]>> cases = new LinkedHashMap<>();
        cases.put("STREAM_DATA for stream 7, which the peer never opened",
            s -> RawPeer.streamData(s, 7, 1, utf8("x")));
        cases.put("CREDIT for stream 7, which the peer never opened", s -> RawPeer.credit(s, 7, 0, 0, 4, 100));
        cases.put("CREDIT for stream 0, which the peer never opened", s -> RawPeer.credit(s, 0, 0, 0, 4, 100));
        cases.put("CREDIT for stream 1, which this side never opened",
            s -> RawPeer.credit(s, 1, FrameFlags.FROM_ACCEPTOR, 0, 4, 100));
        cases.put("STREAM_DATA for stream 1, which this side never opened",
            s -> RawPeer.streamData(s, 1, FrameFlags.FROM_ACCEPTOR, 0, 1, utf8("x")));
        try (Session bystander = bystander())
        {
            for (final Map.Entry<String, LongFunction<byte[]>> unopened : cases.entrySet())
            {
                final RawPeer peer = attacker();
                final long session = session(peer);
                peer.send(unopened.getValue().apply(session));
                assertThat(peer.closedWithin(Duration.ofSeconds(5))).as(unopened.getKey()).isTrue();
                assertViolation(unopened.getKey() + ", on session " + session);
            }
            // Above the highest stream the peer opened on the session, with one open.
            final RawPeer peer = attacker();
            final long session = session(peer);
            open(peer, session, 1);
            peer.send(RawPeer.streamData(session, 2, 1, utf8("x")));
            assertThat(peer.closedWithin(Duration.ofSeconds(5))).isTrue();
            assertViolation("STREAM_DATA for stream 2, which the peer never opened, on session " + session);
            stillServed(bystander);
        }
    }

    @Test
    void streamFramesForAStreamThatEndedAreDroppedAndTheSessionGoesOn() throws Exception
    {
        start(StreamLimits.builder().windowMessages(4).windowBytes(1024).build());
        onStream = stream ->
        {
            stream.open().close();
            stream.start(new Holder(stream));
            stream.complete();
        };
        final RawPeer peer = attacker();
        final long session = session(peer);
        open(peer, session, 1);
        final RawPeer.Received end = next(peer, frame -> frame.isStreamData(true));
        assertThat(end.requestId()).isEqualTo(1);
        assertThat(end.status()).isEqualTo(Status.OK);
        assertThat(end.i64(0)).isEqualTo(1);
        peer.send(RawPeer.credit(session, 1, 0, 1, 4, 1024)); // the end acknowledged, as the spec asks
        peer.send(RawPeer.streamData(session, 1, 1, utf8("late")));
        peer.send(RawPeer.streamData(session, 1, 9, utf8("late, with a gap")));
        peer.send(RawPeer.streamData(session, 1, 1_000, utf8("late, beyond any credit"), new byte[4096]));
        peer.send(RawPeer.streamData(session, 1, FrameFlags.END, Status.OK, 2, NOTHING));
        peer.send(RawPeer.credit(session, 1, 0, 0, 1_000, 1 << 20));
        served(peer, session, 2);
        open(peer, session, 3);
        assertThat(next(peer, frame -> frame.isStreamData(true)).requestId()).isEqualTo(3);
        served(peer, session, 4);
        assertNoViolation();
    }

    // ---- the set-up's feature bit ----

    @Test
    void streamFramesOnASessionThatDidNotAnnounceStreamsCloseTheConnection() throws Exception
    {
        start(StreamLimits.DEFAULT);
        final byte[] goAwayOnly = {SetupCodec.CREDENTIALS_NONE, SetupCodec.FEATURE_GOAWAY};
        final Map<String, LongFunction<byte[]>> cases = new LinkedHashMap<>();
        cases.put("REQUEST", s -> RawPeer.streamOpen(s, 1, null, utf8("open")));
        cases.put("STREAM_DATA", s -> RawPeer.streamData(s, 1, 1, utf8("x")));
        cases.put("CREDIT", s -> RawPeer.credit(s, 1, 0, 0, 4, 100));
        try (Session bystander = bystander())
        {
            for (final byte[] features : new byte[][] {goAwayOnly, {SetupCodec.CREDENTIALS_NONE}})
            {
                for (final Map.Entry<String, LongFunction<byte[]>> frame : cases.entrySet())
                {
                    final RawPeer peer = attacker();
                    peer.send(RawPeer.setup(1, "svc", features));
                    final RawPeer.Received accept = peer.answer();
                    assertThat(accept.type()).isEqualTo(FrameType.SETUP_ACCEPT);
                    final long session = accept.sessionId();
                    served(peer, session, 7);
                    peer.send(frame.getValue().apply(session));
                    assertThat(peer.closedWithin(Duration.ofSeconds(5))).as(frame.getKey()).isTrue();
                    assertViolation(frame.getKey() + " of a stream on session " + session +
                        ", whose peer did not announce streams");
                }
            }
            assertThat(held).as("no stream reached the service").isEmpty();
            stillServed(bystander);
        }
    }

    @Test
    void aClientThatAnnouncesNoStreamsParsesItsSetUpAcceptAndIsSentNoStream() throws Exception
    {
        start(StreamLimits.DEFAULT);
        final byte[][] clients = {
            {SetupCodec.CREDENTIALS_NONE}, // before the features byte
            {SetupCodec.CREDENTIALS_NONE, SetupCodec.FEATURE_GOAWAY}, // before streams
        };
        for (final byte[] client : clients)
        {
            final RawPeer old = attacker();
            old.send(RawPeer.setup(1, "svc", client));
            final RawPeer.Received accept = old.answer();
            assertThat(accept.type()).isEqualTo(FrameType.SETUP_ACCEPT);
            // Read as a client from before streams reads it: attributes, in flight, dedup window, secret, the sizes
            // the server takes, then the connection portals when there is more; it reads nothing after them.
            final SetupCodec.Reader body = accept.reader();
            assertThat(body.map()).isNotNull();
            assertThat(body.i32()).isPositive();
            assertThat(body.i32()).isPositive();
            assertThat(body.bytes()).isNotEmpty();
            for (int i = 0; i < 4; i++)
            {
                assertThat(body.i32()).isPositive();
            }
            assertThat(body.remaining()).isPositive();
            assertThat(body.strings()).isEmpty();
            assertThat(body.remaining()).as("what such a client leaves unread: the server's features").isOne();
            assertThat(body.u8()).isEqualTo(SetupCodec.FEATURE_STREAMS);

            final long session = accept.sessionId();
            served(old, session, 1);
            final CompletableFuture<Throwable> refused = new CompletableFuture<>();
            final StreamCall call = lastCaller.openStream(Outbound.empty(), new Holder(null)
            {
                @Override
                public void onError(final Throwable failure)
                {
                    refused.complete(failure);
                }
            });
            assertThat(refused).as("failed at once, on the calling thread").isDone();
            assertThat(refused.get()).isInstanceOf(XioException.class).hasMessageContaining("does not take streams");
            assertThat(call.isDone()).isTrue();
            assertThat(framesWithin(old, Duration.ofMillis(300))).as("nothing was sent to the client").isEmpty();
            served(old, session, 2);
        }
        assertNoViolation();
    }

    // ---- opens over the limits ----

    @Test
    void aStreamOpenFloodIsRefusedOverTheLimitsAndHoldsNothingForTheRefused() throws Exception
    {
        start(StreamLimits.builder().maxStreamsPerSession(4).maxStreamsPerConnection(6).build());
        try (Session bystander = bystander())
        {
            final RawPeer peer = attacker();
            final long first = session(peer);
            assertThat(flood(peer, first, 1, 10)).as("taken per id on the first session")
                .containsExactly(true, true, true, true, false, false, false, false, false, false);
            assertThat(server.refusals(PeerRefusal.STREAM_LIMIT)).isEqualTo(6);
            final long second = session(peer); // the same connection
            assertThat(flood(peer, second, 1, 4)).as("the connection's limit on the second session")
                .containsExactly(true, true, false, false);
            assertThat(server.refusals(PeerRefusal.STREAM_LIMIT)).isEqualTo(8);
            assertThat(held).as("only the streams taken reached the service").hasSize(6);

            // Another connection has the connection's limit to itself.
            final RawPeer other = attacker();
            assertThat(flood(other, session(other), 1, 4)).containsOnly(true);

            // A stream that ends makes room; a refused open held no place, not even its id.
            peer.send(RawPeer.cancel(first, 2, 2));
            final RawPeer.Received cancelled = next(peer, frame -> frame.isStreamData(true));
            assertThat(cancelled.sessionId()).isEqualTo(first);
            assertThat(cancelled.requestId()).isEqualTo(2);
            assertThat(cancelled.status()).isEqualTo(Status.CANCELLED);
            final Holder two = held.stream().filter(h -> h.stream.session().id() == first &&
                h.stream.streamId() == 2).findFirst().orElseThrow();
            assertThat(two.error.get(5, TimeUnit.SECONDS)).isInstanceOf(RequestCancelledException.class);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(flood(peer, first, 5, 5)).as("the refused id 5 opened again").containsExactly(true));
            assertThat(flood(peer, first, 11, 11)).as("full again").containsExactly(false);
            assertThat(server.refusals(PeerRefusal.STREAM_LIMIT)).isEqualTo(9);
            served(peer, first, 12);
            assertNoViolation();
            stillServed(bystander);
        }
    }

    /**
     * A flood of opens from one host over several connections takes at most the host's share
     * ({@code maxStreamsPerPeer}), so a client on another host still opens streams.
     */
    @Test
    void aStreamOpenFloodFromOneHostLeavesStreamsForOtherHosts() throws Exception
    {
        start(StreamLimits.builder().maxStreamsPerPeer(100).build());
        try (Session bystander = bystander())
        {
            long taken = 0;
            for (int connection = 0; connection < 3; connection++)
            {
                final RawPeer peer = attacker();
                for (int i = 0; i < 4; i++)
                {
                    taken += flood(peer, session(peer), 1, 70).stream().filter(open -> open).count();
                }
            }
            System.out.printf("stream-open flood from one host on three connections: %d of 840 opens taken, %d " +
                "refused%n", taken, server.refusals(PeerRefusal.STREAM_LIMIT));
            assertThat(taken).as("bounded by the host's share").isEqualTo(100);
            assertThat(server.refusals(PeerRefusal.STREAM_LIMIT)).isEqualTo(840 - 100);
            stillServed(bystander);
        }
    }

    /**
     * Each stream sets its window of bytes aside from its session's and the engine's budgets while it is open: a
     * flood of opens stops at the session's budget however far the session is from its count of streams, and, over
     * several sessions, at the engine's; the streams taken go on, and one that ends gives its window back.
     */
    @Test
    void aStreamOpenFloodStopsAtTheSessionsAndTheEnginesWindowBudgets() throws Exception
    {
        final int window = 1024;
        start(StreamLimits.builder().windowBytes(window).maxWindowBytesPerSession(4L * window)
            .maxWindowBytes(6L * window).build());
        final RawPeer peer = attacker();
        final long first = session(peer);
        assertThat(flood(peer, first, 1, 8)).as("the session's budget: four windows")
            .containsExactly(true, true, true, true, false, false, false, false);
        final RawPeer other = attacker();
        final long second = session(other);
        assertThat(flood(other, second, 1, 4)).as("the engine's budget: two windows left")
            .containsExactly(true, true, false, false);
        assertThat(server.refusals(PeerRefusal.STREAM_LIMIT)).isEqualTo(6);
        assertThat(held).as("only the streams taken reached the service").hasSize(6);
        assertThat(server.openStreams()).isEqualTo(6);

        // A stream taken goes on: its message, within the window, reaches the service.
        other.send(RawPeer.streamData(second, 2, 1, utf8("within the window")));
        final Holder two = held.stream().filter(h -> h.stream.session().id() == second &&
            h.stream.streamId() == 2).findFirst().orElseThrow();
        two.stream.request(1);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
            assertThat(two.messages).containsExactly("within the window"));

        // A stream that ends gives its window back to the engine's budget: one more open is taken, on any session.
        peer.send(RawPeer.cancel(first, 1, 1));
        final RawPeer.Received cancelled = next(peer, frame -> frame.isStreamData(true));
        assertThat(cancelled.requestId()).isEqualTo(1);
        assertThat(cancelled.status()).isEqualTo(Status.CANCELLED);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
            assertThat(flood(other, second, 5, 5)).as("the freed window taken").containsExactly(true));
        assertThat(flood(other, second, 6, 6)).as("the engine's budget full again").containsExactly(false);
        assertThat(flood(peer, first, 9, 9)).as("on either session").containsExactly(false);
        served(peer, first, 10);
        served(other, second, 7);
        assertNoViolation();
    }

    /** Opens streams {@code from..to} in one write; whether each was taken (CREDIT) or refused (BACK_PRESSURE). */
    private static List<Boolean> flood(final RawPeer peer, final long session, final long from, final long to)
        throws IOException
    {
        final ByteBuffer all = ByteBuffer.allocate((int)(to - from + 1) * RawPeer.streamOpen(session, 1, null,
            NOTHING).length);
        for (long id = from; id <= to; id++)
        {
            all.put(RawPeer.streamOpen(session, id, null, NOTHING));
        }
        peer.send(all.array());
        final Map<Long, Boolean> taken = new HashMap<>();
        while (taken.size() < to - from + 1)
        {
            final RawPeer.Received answer = next(peer, frame -> frame.sessionId() == session &&
                (frame.type() == FrameType.CREDIT || frame.type() == FrameType.RESPONSE));
            assertThat(answer).as("the connection is still up").isNotNull();
            if (answer.type() == FrameType.RESPONSE)
            {
                assertThat(answer.status()).as("the refusal of %d", answer.requestId()).isEqualTo(Status.BACK_PRESSURE);
            }
            assertThat(taken.put(answer.requestId(), answer.type() == FrameType.CREDIT)).as("one answer per open")
                .isNull();
        }
        final List<Boolean> inOrder = new ArrayList<>();
        for (long id = from; id <= to; id++)
        {
            inOrder.add(taken.get(id));
        }
        return inOrder;
    }

    /** The receiver of an END acknowledges it with a CREDIT whose {@code received} is the END's sequence number. */
    @Test
    void theAcceptorAcknowledgesTheOpenersEndWithACredit() throws Exception
    {
        start(StreamLimits.builder().windowMessages(4).build());
        final RawPeer peer = attacker();
        final long session = session(peer);
        open(peer, session, 1);
        peer.send(RawPeer.streamData(session, 1, 1, utf8("one")));
        peer.send(RawPeer.streamData(session, 1, FrameFlags.END, Status.OK, 2, NOTHING));
        final List<RawPeer.Received> frames = framesWithin(peer, Duration.ofSeconds(1));
        served(peer, session, 2);
        assertThat(held).hasSize(1);
        assertThat(held.get(0).stream.isDone()).as("the service has not completed").isFalse();
        assertThat(frames).as("the receiver of an END acknowledges it with a CREDIT whose received is its sequence")
            .anySatisfy(frame ->
            {
                assertThat(frame.type()).isEqualTo(FrameType.CREDIT);
                assertThat(frame.requestId()).isEqualTo(1);
                assertThat(frame.i64(0)).isEqualTo(2);
            });
        assertNoViolation();
    }

    // ---- peers that do not take what a stream sends them ----

    /** Offers what {@link #message} makes, as credit allows, on the stream's context thread; counts everything. */
    private static final class Producer extends Holder
    {
        final AtomicLong accepted = new AtomicLong();
        final AtomicLong refused = new AtomicLong();
        final AtomicLong released = new AtomicLong();
        final int size;

        Producer(final InboundStream stream, final int size)
        {
            super(stream);
            this.size = size;
        }

        Outbound message()
        {
            return Outbound.of(TestEngines.utf8("chunk"), ByteBuffer.allocate(size))
                .releaseAfterSend(released::incrementAndGet);
        }

        synchronized void pump()
        {
            while (stream.offer(message()))
            {
                accepted.incrementAndGet();
            }
            refused.incrementAndGet();
        }

        @Override
        public void onReady()
        {
            pump();
        }
    }

    @Test
    void aPeerThatNeverGrantsMoreThanItsFirstCreditHoldsTheProducerThereUntilTheDeadlineEndsTheStream()
        throws Exception
    {
        start(StreamLimits.builder().windowMessages(16).build());
        final CompletableFuture<Producer> producer = new CompletableFuture<>();
        onStream = stream ->
        {
            stream.open().close();
            final Producer feed = new Producer(stream, 1024);
            stream.start(feed);
            feed.pump();
            producer.complete(feed);
        };
        try (Session bystander = bystander())
        {
            final RawPeer peer = attacker();
            final long session = session(peer);
            peer.send(RawPeer.streamOpen(session, 1, RawPeer.context(TestEngines.scaled(Duration.ofSeconds(2))
                .toNanos()), utf8("produce")));
            accepted(peer, 1);
            peer.send(RawPeer.credit(session, 1, 0, 0, 5, 1 << 20)); // and never more
            for (long seq = 1; seq <= 5; seq++)
            {
                final RawPeer.Received data = next(peer, frame -> frame.type() == FrameType.STREAM_DATA);
                assertThat(data.i64(0)).isEqualTo(seq);
                assertThat(data.isStreamData(false)).isTrue();
            }
            final Producer feed = producer.get(5, TimeUnit.SECONDS);
            final List<RawPeer.Received> more = framesWithin(peer, Duration.ofMillis(500));
            assertThat(more).as("nothing beyond the credit").noneMatch(frame -> frame.type() == FrameType.STREAM_DATA);
            assertThat(feed.accepted.get()).as("offers taken: the credit, well within the window").isEqualTo(5);
            assertThat(feed.refused.get()).as("offers refused").isPositive();
            feed.pump();
            assertThat(feed.accepted.get()).isEqualTo(5);
            assertThat(feed.stream.isReady()).isFalse();
            assertThat(feed.released.get()).as("every message taken is kept for a resend until acknowledged")
                .isZero();

            final RawPeer.Received end = next(peer, frame -> frame.isStreamData(true));
            assertThat(end).as("the deadline ended the stream").isNotNull();
            assertThat(end.requestId()).isEqualTo(1);
            assertThat(end.status()).isEqualTo(Status.DEADLINE_EXCEEDED);
            assertThat(end.i64(0)).isEqualTo(6);
            assertThat(feed.error.get(5, TimeUnit.SECONDS)).isInstanceOf(XioTimeoutException.class);
            assertThat(feed.stream.isDone()).isTrue();
            feed.pump();
            assertThat(feed.accepted.get()).as("nothing taken once it ended").isEqualTo(5);
            peer.send(RawPeer.credit(session, 1, 0, 6, 6, 1 << 20));
            served(peer, session, 2);
            await().atMost(Duration.ofSeconds(5)).until(() -> feed.released.get() == 5); // acknowledged: let go
            assertNoViolation();
            stillServed(bystander);
        }
    }

    @Test
    void aPeerThatNeverReadsHoldsAStreamsProducerAtItsWindowNotAtItsMemory() throws Exception
    {
        final int window = 16;
        final int size = 64 << 10;
        final int queued = 256 << 10;
        start(TestEngines.LIMITS.withMaxQueuedBytes(queued)
            .withStreams(StreamLimits.builder().windowMessages(window).build()));
        final CompletableFuture<Producer> producer = new CompletableFuture<>();
        onStream = stream ->
        {
            stream.open().close();
            final Producer feed = new Producer(stream, size);
            stream.start(feed);
            feed.pump();
            producer.complete(feed);
        };
        try (Session bystander = bystander())
        {
            final RawPeer peer = new RawPeer(ATTACKER, portal.uri().port(), 4096);
            peers.add(peer);
            final long session = session(peer);
            open(peer, session, 1);
            // All the credit there is, and then never a read again: only keepalives go out.
            peer.send(RawPeer.credit(session, 1, 0, 0, Long.MAX_VALUE, Long.MAX_VALUE));
            final Producer feed = producer.get(5, TimeUnit.SECONDS);
            long before = -1;
            final long start = System.nanoTime();
            while (feed.accepted.get() != before && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20))
            {
                before = feed.accepted.get();
                for (int i = 0; i < 5; i++)
                {
                    peer.send(RawPeer.keepalive());
                    Thread.sleep(200);
                }
            }
            final long accepted = feed.accepted.get();
            final long holding = accepted - feed.released.get();
            System.out.printf("never-reading stream peer: %d messages of %d KiB taken, %d held by the server, the " +
                "rest in the kernel's buffers%n", accepted, size >> 10, holding);
            assertThat(accepted).as("the offers stopped within 20 s").isEqualTo(before);
            assertThat(feed.refused.get()).isPositive();
            assertThat(holding).as("held: the sender's window of unacknowledged messages, no more")
                .isLessThanOrEqualTo(window);
            assertThat(accepted * size).as("what went into the kernel's buffers besides (tcp_wmem's maximum)")
                .isLessThan((8L << 20) + (long)(window + queued / size + 1) * size);
            stillServed(bystander);
            assertThat(server.refusals(PeerRefusal.WRITE_STALL) + server.refusals(PeerRefusal.UNSENT_LIMIT)).isZero();
            // Gone without a word: the stream waits for its opener to resume it, until the session expires.
            peer.close();
            assertThat(feed.error.get(60, TimeUnit.SECONDS)).isInstanceOf(ConnectionException.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> feed.released.get() == accepted);
        }
    }

    // ---- what the engine sends ----

    /**
     * An acceptor may send exactly the credit it was granted and then its END (which needs no credit); the opener
     * acknowledges the END with a CREDIT whose {@code received} is the END's sequence number. Fails as of a93fb40:
     * {@code OpenedStream.endArrived} calls {@code StreamReceiver.acknowledgeEnd}, which sends the limit granted
     * before (here 4) with {@code received} 5, a CREDIT that {@code StreamFrames.checkCredit} calls malformed
     * ("limit < received"): between two engines the acceptor closes the connection, and every other stream on it.
     */
    @Test
    void theOpenersAcknowledgementOfAnEndAfterAFullWindowIsACreditItsPeerAccepts() throws Exception
    {
        final int window = 4;
        start(StreamLimits.builder().windowMessages(window).build());
        final RawPeer peer = attacker();
        final long session = session(peer);
        served(peer, session, 1);
        final CompletableFuture<Metadata> completed = new CompletableFuture<>();
        final Holder atServer = new Holder(null)
        {
            @Override
            public void onComplete(final Metadata trailers)
            {
                completed.complete(trailers);
            }

            @Override
            public void onError(final Throwable failure)
            {
                completed.completeExceptionally(failure);
            }
        };
        final StreamCall call = lastCaller.openStream(Outbound.of(TestEngines.utf8("to you")), atServer);
        final RawPeer.Received open = next(peer, frame -> frame.type() == FrameType.REQUEST);
        assertThat(open.flags() & (FrameFlags.STREAM | FrameFlags.FROM_ACCEPTOR))
            .isEqualTo(FrameFlags.STREAM | FrameFlags.FROM_ACCEPTOR);
        final long id = open.requestId();
        final RawPeer.Received grant = next(peer, frame -> frame.type() == FrameType.CREDIT);
        assertThat(grant.requestId()).isEqualTo(id);
        assertThat(grant.i64(8)).isEqualTo(window);
        // This side takes the stream, sends the whole window the opener granted, then ends it: OK.
        peer.send(RawPeer.credit(session, id, FrameFlags.FROM_ACCEPTOR, 0, 64, 1 << 20));
        for (int seq = 1; seq <= window; seq++)
        {
            peer.send(RawPeer.streamData(session, id, FrameFlags.FROM_ACCEPTOR, 0, seq, utf8("item " + seq)));
        }
        peer.send(RawPeer.streamData(session, id, FrameFlags.FROM_ACCEPTOR | FrameFlags.END, Status.OK, window + 1,
            NOTHING));
        final RawPeer.Received ack = next(peer, frame -> frame.type() == FrameType.CREDIT && frame.i64(0) > 0);
        assertThat(ack).isNotNull();
        call.request(Long.MAX_VALUE);
        assertThat(completed.get(5, TimeUnit.SECONDS)).isNotNull();
        assertThat(atServer.messages).containsExactly("item 1", "item 2", "item 3", "item 4");
        assertThat(ack.requestId()).isEqualTo(id);
        assertThat(ack.i64(0)).as("the end acknowledged").isEqualTo(window + 1);
        assertThat(ack.i64(8)).as("limitSequence of the acknowledgement: below its received, the CREDIT is one " +
            "this engine closes a connection for (\"limit < received\")").isGreaterThanOrEqualTo(ack.i64(0));
    }

    // ---- an acceptor's ended streams; streams on their way between connections ----

    /** Keepalive timeout, write-stall timeout and reconnect timeout of {@link #startQuickly}: 1 s, 0.5 s and 3 s. */
    private static final Duration QUICK_END_WAIT = Duration.ofMillis(1_000 + 500 + 3_000);

    /**
     * A server that waits {@link #QUICK_END_WAIT} (its keepalive timeout, write-stall timeout and reconnect timeout
     * together) for the acknowledgement of a stream's end.
     */
    private void startQuickly(final StreamLimits streams)
    {
        start(TestEngines.LIMITS.withWriteStallTimeout(Duration.ofMillis(500)).withStreams(streams),
            builder -> builder.keepalive(Duration.ofMillis(100), Duration.ofSeconds(1))
                .reconnectTimeout(Duration.ofSeconds(3)));
    }

    private RawPeer attacker(final Portal at) throws IOException
    {
        final RawPeer peer = new RawPeer(ATTACKER, at.uri().port(), 0);
        peers.add(peer);
        return peer;
    }

    /**
     * A peer that never acknowledges the ends of the streams it opened cannot keep their places: once an end has
     * waited for its acknowledgement longer than a well-behaved opener can take (the server's keepalive timeout,
     * write-stall timeout and reconnect timeout), the server forgets the stream and its place is free again.
     */
    @Test
    void endsNeverAcknowledgedHoldTheirStreamsPlacesOnlyUntilTheEndsWaitRunsOut() throws Exception
    {
        startQuickly(StreamLimits.builder().maxStreamsPerSession(2).build());
        onStream = stream ->
        {
            hold(stream);
            stream.complete();
        };
        final RawPeer peer = attacker();
        final long session = session(peer);
        for (long id = 1; id <= 2; id++)
        {
            open(peer, session, id);
            assertThat(next(peer, frame -> frame.isStreamData(true)).requestId()).isEqualTo(id); // never acknowledged
        }
        assertThat(flood(peer, session, 3, 3)).as("the session's places, held by the two ended streams")
            .containsExactly(false);
        framesWithin(peer, QUICK_END_WAIT.plusSeconds(1));
        assertThat(flood(peer, session, 3, 3)).as("free again once the ends waited long enough")
            .containsExactly(true);
        assertThat(next(peer, frame -> frame.isStreamData(true)).requestId()).isEqualTo(3);
        peer.send(RawPeer.credit(session, 1, 0, 1, 1, 1 << 20)); // late: for a stream forgotten, dropped
        served(peer, session, 4);
        assertThat(server.refusals(PeerRefusal.STREAM_LIMIT)).isOne();
        assertNoViolation();
    }

    /**
     * An opener whose connection went before it acknowledged the acceptor's end, and that resumes the stream later
     * than the server's keepalive and write-stall timeouts but within its reconnect timeout, still gets the end:
     * the server waits for an acknowledgement as long as it waits for its client.
     */
    @Test
    void anOpenerThatResumesWithinTheReconnectTimeoutStillGetsTheEndItHadNotAcknowledged() throws Exception
    {
        startQuickly(StreamLimits.DEFAULT);
        onStream = stream ->
        {
            hold(stream);
            stream.complete(new Metadata().put("done", "yes"));
        };
        final RawPeer first = attacker();
        final RawPeer.SetUp session = first.setUpWithSecret("svc", SetupCodec.FEATURES);
        open(first, session.sessionId(), 1);
        assertThat(next(first, frame -> frame.isStreamData(true)).i64(0)).isEqualTo(1);
        first.close(); // before the end's acknowledgement
        Thread.sleep(2_000); // more than 1 s + 0.5 s, less than the 3 s the server keeps the session
        final RawPeer second = attacker();
        second.attachTo(session);
        second.send(RawPeer.streamResume(session.sessionId(), 1, 1));
        final RawPeer.Received end = next(second, frame -> frame.requestId() == 1 &&
            (frame.isStreamData(true) || frame.type() == FrameType.RESPONSE));
        assertThat(end.type()).as("the end written again, not RESPONSE_LOST").isEqualTo(FrameType.STREAM_DATA);
        assertThat(end.i64(0)).isEqualTo(1);
        assertThat(end.status()).isEqualTo(Status.OK);
        second.send(RawPeer.credit(session.sessionId(), 1, 0, 1, 1, 1 << 20));
        served(second, session.sessionId(), 2);
        assertNoViolation();
    }

    /** The server opens a stream to the client of {@code session} (which the client has not taken yet); its call. */
    private StreamCall serverOpens(final RawPeer peer, final long session) throws IOException
    {
        served(peer, session, 1);
        return lastCaller.openStream(Outbound.of(TestEngines.utf8("to you")), new Holder(null));
    }

    /** Which of {@code peers} the server's open of stream {@code id} came on; that peer takes the stream. */
    private static RawPeer takes(final long session, final long id, final RawPeer... peers) throws IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline)
        {
            for (final RawPeer peer : peers)
            {
                peer.send(RawPeer.keepalive());
                try
                {
                    final RawPeer.Received frame = peer.read(Duration.ofMillis(100));
                    if (frame != null && frame.type() == FrameType.REQUEST && frame.requestId() == id)
                    {
                        peer.send(RawPeer.credit(session, id, FrameFlags.FROM_ACCEPTOR, 0, 64, 1 << 20));
                        return peer;
                    }
                }
                catch (final SocketTimeoutException quiet)
                {
                    // nothing on this one within 100 ms: the next
                }
            }
        }
        throw new AssertionError("no open of stream " + id + " within 15 s");
    }

    /** The server's CANCEL of its own stream {@code id}, {@code [id .. id]}, arrives on {@code peer}. */
    private static void cancelArrives(final RawPeer peer, final long id) throws IOException
    {
        final RawPeer.Received cancel = next(peer, frame -> frame.type() == FrameType.CANCEL);
        assertThat(cancel.requestId()).isEqualTo(id);
        assertThat(cancel.flags() & FrameFlags.FROM_ACCEPTOR).as("the server's id space")
            .isEqualTo(FrameFlags.FROM_ACCEPTOR);
        assertThat(cancel.i64(0)).as("the last id of the range").isEqualTo(id);
    }

    /** The server's session listener cancels {@code call} when it hears of a protocol violation. */
    private void cancelOnViolation(final StreamCall call)
    {
        onEvent = event ->
        {
            if (event.detail() != null && event.detail().contains("protocol violation"))
            {
                call.cancel(); // on the connection's thread, before its sessions hear of the loss
            }
        };
    }

    /**
     * A cancel of the server's stream that comes while its connection is closing (the session's listener hears of a
     * violation before the session does) cannot write its CANCEL there: it is owed, and goes on the connection the
     * client attaches next, so that the client does not keep the stream.
     */
    @Test
    void aCancelThatFindsItsConnectionClosingGoesOnTheConnectionAttachedNext() throws Exception
    {
        start(StreamLimits.DEFAULT);
        final RawPeer first = attacker();
        final RawPeer.SetUp session = first.setUpWithSecret("svc", SetupCodec.FEATURES);
        final StreamCall call = serverOpens(first, session.sessionId());
        takes(session.sessionId(), call.streamId(), first);
        cancelOnViolation(call);
        first.send(RawPeer.streamData(session.sessionId(), 99, 1, utf8("never opened")));
        assertThat(first.closedWithin(Duration.ofSeconds(5))).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(call::isDone);
        final RawPeer second = attacker();
        second.attachTo(session);
        cancelArrives(second, call.streamId());
    }

    /** As above, with another connection of the session up: the owed CANCEL goes there at once. */
    @Test
    void aCancelThatFindsItsConnectionClosingGoesOnAnotherConnectionOfTheSession() throws Exception
    {
        start(StreamLimits.DEFAULT);
        final RawPeer one = attacker();
        final RawPeer.SetUp session = one.setUpWithSecret("svc", SetupCodec.FEATURES);
        final RawPeer two = attacker();
        two.attachTo(session);
        final StreamCall call = serverOpens(one, session.sessionId());
        final RawPeer carrier = takes(session.sessionId(), call.streamId(), one, two);
        cancelOnViolation(call);
        carrier.send(RawPeer.streamData(session.sessionId(), 99, 1, utf8("never opened")));
        assertThat(carrier.closedWithin(Duration.ofSeconds(5))).isTrue();
        cancelArrives(carrier == one ? two : one, call.streamId());
    }

    /**
     * A stream counts against {@code maxStreamsPerConnection} on the connection it was last opened or resumed on:
     * streams resumed on another connection of the session make room on the first, and take it on the other.
     */
    @Test
    void streamsResumedOnAnotherConnectionCountThereAgainstTheConnectionsLimit() throws Exception
    {
        start(StreamLimits.builder().maxStreamsPerConnection(2).build());
        final RawPeer one = attacker();
        final RawPeer.SetUp session = one.setUpWithSecret("svc", SetupCodec.FEATURES);
        final long id = session.sessionId();
        final RawPeer two = attacker();
        two.attachTo(session);
        assertThat(flood(one, id, 1, 3)).as("the first connection full").containsExactly(true, true, false);
        for (long stream = 1; stream <= 2; stream++)
        {
            two.send(RawPeer.streamResume(id, stream, 1));
            final long resumed = stream;
            assertThat(next(two, frame -> frame.type() == FrameType.CREDIT && frame.requestId() == resumed))
                .as("stream %d resumed on the second connection", stream).isNotNull();
        }
        assertThat(flood(one, id, 3, 3)).as("room on the first, whose streams moved").containsExactly(true);
        assertThat(flood(two, id, 4, 4)).as("the second holds the two that moved").containsExactly(false);
        assertThat(held).hasSize(3);
        served(one, id, 5);
        assertNoViolation();
    }

    /**
     * The frames for a stream on its way to another connection of its session (its opener resumed it there, and it
     * has not arrived) are held only as far as its window of bytes allows: a peer that sends more meanwhile breaks
     * the protocol there and then, rather than making the server hold what it sends.
     */
    @Test
    void framesForAStreamOnItsWayToAnotherConnectionAreHeldOnlyWithinItsWindowOfBytes() throws Exception
    {
        final int window = 4096;
        start(StreamLimits.builder().windowBytes(window).build());
        final Portal second = server.bind("tcp://127.0.0.1:0", PortalOptions.DEFAULT.withContext(1));
        final Portal first = server.bind("tcp://127.0.0.1:0", PortalOptions.DEFAULT.withContext(0)
            .withAcceptor(request -> SetupDecision.accept().withConnectionPortals(List.of(second.uri()))));
        final CountDownLatch taking = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        onStream = stream ->
        {
            stream.open().close();
            stream.start(new Holder(stream)
            {
                @Override
                public void onMessage(final Message message)
                {
                    message.close();
                    taking.countDown();
                    try
                    {
                        release.await(10, TimeUnit.SECONDS); // holds the stream's thread: it cannot move meanwhile
                    }
                    catch (final InterruptedException ex)
                    {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            stream.request(Long.MAX_VALUE);
        };
        final RawPeer one = attacker(first);
        final RawPeer.SetUp session = one.setUpWithSecret("svc", SetupCodec.FEATURES);
        final long id = session.sessionId();
        final RawPeer two = attacker(second);
        two.attachTo(session);
        open(one, id, 1);
        one.send(RawPeer.streamData(id, 1, 1, utf8("one")));
        assertThat(taking.await(5, TimeUnit.SECONDS)).isTrue();
        try
        {
            two.send(RawPeer.streamResume(id, 1, 1));
            for (long seq = 2; seq <= 9; seq++)
            {
                two.trySend(RawPeer.streamData(id, 1, seq, NOTHING, new byte[2048]));
            }
            assertThat(two.closedWithin(Duration.ofSeconds(2))).as("closed while the stream could not move").isTrue();
            assertViolation("STREAM_DATA for stream 1: more than a window of " + window + " bytes while it moved to " +
                "resume");
        }
        finally
        {
            release.countDown();
        }
    }

    // ---- a stream on its way to a connection that closes meanwhile ----

    /** The tasks a context runs in one turn before it reads its connections ({@code EventLoop}'s). */
    private static final int TASKS_PER_TURN = 1024;

    /** The session of {@link #movingStream}: stream 1 on the first connection (context 0), held there for the test. */
    private record Moving(long session, RawPeer first, RawPeer dying, RawPeer next, Holder stream, Runnable release)
    {
    }

    /**
     * A session with three connections: the first on context 0, where stream 1 opens and lives, the two others
     * attached on context 1. Context 0 is then held (a task that waits, {@link Moving#release} ends it), so that the
     * stream cannot move until the test lets it: an open of it sent again on {@code dying} moves it there only once
     * that connection closed, and the way on from there is the redirect under test. {@code onMessage} is the
     * service's for every stream's messages, on its context's thread.
     */
    private Moving movingStream(final Consumer<Message> onMessage) throws Exception
    {
        start(TestEngines.LIMITS.withStreams(StreamLimits.builder().windowBytes(4096).build()),
            builder -> builder.keepalive(Duration.ofMillis(200), Duration.ofSeconds(30)));
        final Portal others = server.bind("tcp://127.0.0.1:0", PortalOptions.DEFAULT.withContext(1));
        final Portal first = server.bind("tcp://127.0.0.1:0", PortalOptions.DEFAULT.withContext(0)
            .withAcceptor(request -> SetupDecision.accept().withConnectionPortals(List.of(others.uri()))));
        onStream = stream ->
        {
            stream.open().close();
            final Holder holder = new Holder(stream)
            {
                @Override
                public void onMessage(final Message message)
                {
                    onMessage.accept(message);
                    super.onMessage(message);
                }
            };
            held.add(holder);
            stream.start(holder);
            stream.request(Long.MAX_VALUE);
        };
        final RawPeer one = attacker(first);
        final RawPeer.SetUp session = one.setUpWithSecret("svc", SetupCodec.FEATURES);
        final RawPeer dying = attacker(others);
        dying.attachTo(session);
        final RawPeer next = attacker(others);
        next.attachTo(session);
        open(one, session.sessionId(), 1);
        return new Moving(session.sessionId(), one, dying, next, held.get(0), holdContext(0));
    }

    /** Holds the server's context {@code index} in a task until the returned action lets it go on. */
    private Runnable holdContext(final int index) throws InterruptedException
    {
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        server.contexts().get(index).execute(() ->
        {
            holding.countDown();
            awaitQuietly(release);
        });
        assertThat(holding.await(5, TimeUnit.SECONDS)).as("context %d held", index).isTrue();
        return release::countDown;
    }

    private static void awaitQuietly(final CountDownLatch latch)
    {
        try
        {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** Each of the server's contexts {@code indexes}, in turn, ran every task it had before this. */
    private void ranTasks(final int... indexes) throws InterruptedException
    {
        for (final int index : indexes)
        {
            final CountDownLatch ran = new CountDownLatch(1);
            server.contexts().get(index).execute(ran::countDown);
            assertThat(ran.await(5, TimeUnit.SECONDS)).as("context %d ran its tasks", index).isTrue();
        }
    }

    /** {@code peer} closes its connection and the server has taken the loss. */
    private void closes(final RawPeer peer) throws Exception
    {
        final Predicate<SessionEvent> loss = event -> event.detail() != null && event.detail().contains(" lost");
        final long before = serverEvents.stream().filter(loss).count();
        peer.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.stream().filter(loss).count() > before);
    }

    /**
     * A stream on its way to a connection whose loss the server takes first (its opener sent its open again there)
     * goes on to another connection of the session, and waits there for its opener: the opener lost that connection
     * too and resumes the stream on one of the others, which then is the stream's first resume there, not a second.
     */
    @Test
    void aStreamWhoseConnectionClosedOnItsWayResumesWhereItsOpenerSendsItsOpenAgain() throws Exception
    {
        final Moving moving = movingStream(message -> { });
        final long session = moving.session();
        try
        {
            moving.dying().send(RawPeer.streamResume(session, 1, 1));
            served(moving.dying(), session, 2); // the re-sent open was read: the stream waits to move there
            closes(moving.dying());
        }
        finally
        {
            moving.release().run();
        }
        ranTasks(0, 1, 1); // the stream went to the closed connection's lane, and on from there
        moving.next().send(RawPeer.streamResume(session, 1, 2));
        moving.next().send(RawPeer.streamData(session, 1, 1, utf8("after the move")));
        served(moving.next(), session, 3);
        await().atMost(Duration.ofSeconds(5)).until(() -> !moving.stream().messages.isEmpty());
        assertThat(moving.stream().messages).containsExactly("after the move");
        assertNoViolation();
    }

    /**
     * The frames held for a stream on its way to a connection that closes meanwhile are dropped, not carried to the
     * connection it goes on to: its opener writes them again with its next resume, and the two together would count
     * against the stream's window of bytes twice. A busy context runs at most {@link #TASKS_PER_TURN} tasks a turn
     * and reads its connections between turns: the test fills the turn in which the stream goes on, so that the
     * opener's resume and what it writes again are read as soon as what that way on queued has had its turn.
     */
    @Test
    void framesHeldForAStreamOnAConnectionThatClosedAreNotCountedAgainWhereItGoesOn() throws Exception
    {
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Moving moving = movingStream(message ->
        {
            if (text(message.header()).equals("hold"))
            {
                holding.countDown();
                awaitQuietly(release);
            }
        });
        final long session = moving.session();
        final RawPeer next = moving.next();
        final byte[] kilobyte = new byte[1024];
        try
        {
            open(next, session, 5); // its message "hold" holds context 1 where it reads, between two turns
            moving.dying().send(RawPeer.streamResume(session, 1, 1));
            for (long seq = 1; seq <= 4; seq++)
            {
                moving.dying().send(RawPeer.streamData(session, 1, seq, utf8("m" + seq), kilobyte)); // a window
            }
            served(moving.dying(), session, 2);
            closes(moving.dying());
            next.send(RawPeer.streamData(session, 5, 1, utf8("hold")));
            assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
        }
        finally
        {
            moving.release().run();
        }
        ranTasks(0); // the stream is on its way to the closed connection's lane: the first task of context 1's turn
        final Context context = server.contexts().get(1);
        for (int task = 2; task < TASKS_PER_TURN - 1; task++)
        {
            context.execute(() -> { });
        }
        context.execute(() ->
        {
            // The turn's last task but one: the next is the first the way on queued, then the connection is read.
            next.trySend(RawPeer.streamResume(session, 1, 2));
            for (long seq = 1; seq <= 4; seq++)
            {
                next.trySend(RawPeer.streamData(session, 1, seq, utf8("m" + seq), kilobyte));
            }
        });
        release.countDown();
        served(next, session, 3);
        await().atMost(Duration.ofSeconds(5)).until(() -> moving.stream().messages.size() >= 4);
        assertThat(moving.stream().messages).containsExactly("m1", "m2", "m3", "m4");
        assertNoViolation();
    }
}
