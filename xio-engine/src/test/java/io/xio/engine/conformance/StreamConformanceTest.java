package io.xio.engine.conformance;

import io.xio.engine.InboundStream;
import io.xio.engine.Limits;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.PeerRefusal;
import io.xio.engine.Portal;
import io.xio.engine.RemoteException;
import io.xio.engine.RequestCancelledException;
import io.xio.engine.RequestHandler;
import io.xio.engine.Session;
import io.xio.engine.StreamCall;
import io.xio.engine.StreamLimits;
import io.xio.engine.StreamListener;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioException;
import io.xio.engine.XioStream;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.BackPressureException;
import io.xio.engine.CallOptions;
import io.xio.engine.SessionOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static io.xio.engine.TestEngines.failure;
import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Streams on every transport, through the public API: server, client and bidirectional streams arriving whole and in
 * order, flow control that keeps a producer within its consumer's window, cancel from either side, deadlines,
 * metadata and trailers, failures and limits. A transport's test extends this class and names a portal.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class StreamConformanceTest
{
    /** Messages in the long streams: enough to turn every window over many times. */
    protected static final int MANY = 100_000;
    private static final int WINDOW = 64;
    /** How soon a producer hears its consumer's cancel: one trip across the transport, and room for a busy host. */
    private static final Duration CANCEL_HEARD_WITHIN = TestEngines.scaled(Duration.ofSeconds(5));
    /** Where the cancel tests' consumer cancels: at the first message, within the first window, many windows on. */
    private static final long[] CANCEL_POINTS = {1, WINDOW / 2 + 1, 10 * WINDOW + 7};

    protected final TestEngines engines = new TestEngines();
    protected XioEngine server;
    protected XioEngine client;

    /** A fresh portal address for this transport (port 0 / a unique name). */
    protected abstract String portalAddress();

    /** The engines' builder: a transport adds what it needs (TLS material, say). */
    protected XioEngine.Builder configure(final XioEngine.Builder builder)
    {
        return builder;
    }

    /**
     * Whether a credit reaches the producer while the consumer's loop turn goes on: where handing it over costs no
     * system call (shm), rather than at the turn's end.
     */
    protected boolean creditGoesMidTurn()
    {
        return false;
    }

    @BeforeEach
    void startEngines()
    {
        final Limits limits = TestEngines.LIMITS.withStreams(StreamLimits.builder().windowMessages(WINDOW)
            .windowBytes(256 << 10).build());
        server = engines.start(configure(engines.builder("server")).limits(limits));
        client = engines.start(configure(engines.builder("client")).limits(limits));
    }

    @AfterEach
    void closeEngines()
    {
        engines.close();
    }

    private Session open(final String resource, final RequestHandler handler)
    {
        server.register(resource, handler);
        final Portal portal = server.bind(portalAddress());
        return client.connect(portal.uri().withResource(resource).toString());
    }

    private static Outbound number(final long value)
    {
        return Outbound.of(ByteBuffer.allocate(8).putLong(0, value));
    }

    private static long number(final Message message)
    {
        try (message)
        {
            return message.header().getLong(message.header().position());
        }
    }

    /** Offers numbers 1..count as credit allows, resuming on the ready signal; then ends its direction. */
    private static final class Feed
    {
        private final XioStream stream;
        private final long count;
        private final Runnable end;
        private long next = 1;
        final AtomicLong offered = new AtomicLong();

        Feed(final XioStream stream, final long count, final Runnable end)
        {
            this.stream = stream;
            this.count = count;
            this.end = end;
        }

        /** What was offered, once an offer in progress (whose message may have arrived already) is counted. */
        synchronized long offeredNow()
        {
            return offered.get();
        }

        synchronized void pump()
        {
            while (next <= count)
            {
                if (!stream.offer(number(next)))
                {
                    return;
                }
                offered.set(next);
                next++;
            }
            if (next == count + 1)
            {
                next++;
                end.run();
            }
        }
    }

    /**
     * One cancel, counted from both ends: the consumer asks for {@code asked} messages, takes them as they come and
     * cancels at its {@code cancelAt}-th (with a window's worth, at most, waiting for it when it asked for no more);
     * the producer offers as fast as credit allows. This records what the producer had offered when the cancel was
     * issued, when it heard it (its listener's {@code onError}), what it had offered then, and whether an offer after
     * that was still taken. Its listeners are the two streams'; the streams and the producer's feed are set before any
     * message moves.
     */
    private static final class CancelCount
    {
        final long cancelAt;
        final long asked;
        final AtomicLong consumed = new AtomicLong();
        final CompletableFuture<Throwable> consumerEnded = new CompletableFuture<>();
        final CountDownLatch heard = new CountDownLatch(1);
        volatile XioStream consumer;
        volatile Feed producer;
        volatile long issuedAt;
        volatile long offeredAtIssue;
        volatile long heardAt;
        volatile long offeredWhenHeard = -1;
        volatile Throwable producerError;
        volatile boolean offerTakenAfter;

        CancelCount(final long cancelAt, final long asked)
        {
            this.cancelAt = cancelAt;
            this.asked = asked;
        }

        /** Each cancel point, with a consumer that asks for everything and one that asks for no more than it takes. */
        static java.util.List<CancelCount> rounds()
        {
            final java.util.List<CancelCount> rounds = new java.util.ArrayList<>();
            for (final long cancelAt : CANCEL_POINTS)
            {
                rounds.add(new CancelCount(cancelAt, Long.MAX_VALUE));
                rounds.add(new CancelCount(cancelAt, cancelAt));
            }
            return rounds;
        }

        @Override
        public String toString()
        {
            return "cancel at message " + cancelAt + (asked == cancelAt ? ", no more asked for" : ", all asked for");
        }

        StreamListener consumerListener()
        {
            return new StreamListener()
            {
                @Override
                public void onMessage(final Message message)
                {
                    message.close();
                    if (consumed.incrementAndGet() == cancelAt)
                    {
                        offeredAtIssue = producer.offeredNow();
                        issuedAt = System.nanoTime();
                        consumer.cancel();
                    }
                }

                @Override
                public void onError(final Throwable error)
                {
                    consumerEnded.complete(error);
                }
            };
        }

        StreamListener producerListener()
        {
            return new StreamListener()
            {
                @Override
                public void onMessage(final Message message)
                {
                    message.close();
                }

                @Override
                public void onReady()
                {
                    producer.pump();
                }

                @Override
                public void onError(final Throwable error)
                {
                    heardAt = System.nanoTime();
                    final Feed feed = producer;
                    if (feed != null)
                    {
                        offeredWhenHeard = feed.offeredNow();
                        feed.pump(); // told it is over, the stream takes nothing more
                        offerTakenAfter = feed.offered.get() != offeredWhenHeard;
                    }
                    producerError = error;
                    heard.countDown();
                }
            };
        }

        /**
         * The producer heard the cancel within {@link #CANCEL_HEARD_WITHIN} and offered no more than the credit the
         * consumer had granted before it: what the consumer took, and a window beyond.
         */
        void assertTheProducerStopped(final String side) throws Exception
        {
            final String round = side + ", " + this;
            assertThat(heard.await(30, TimeUnit.SECONDS)).as("%s: the producer heard the cancel", round).isTrue();
            assertThat(producerError).as(round).isInstanceOf(RequestCancelledException.class);
            assertThat(consumerEnded.get(30, TimeUnit.SECONDS)).as(round).isInstanceOf(RequestCancelledException.class);
            final Duration toHear = Duration.ofNanos(heardAt - issuedAt);
            final long offered = producer.offered.get();
            System.out.printf("%s: the producer had offered %d when the cancel was issued, %d when it heard it %d " +
                "us later%n", round, offeredAtIssue, offeredWhenHeard, toHear.toNanos() / 1_000);
            assertThat(toHear).as("%s: from the cancel to the producer's hearing it", round)
                .isLessThanOrEqualTo(CANCEL_HEARD_WITHIN);
            assertThat(consumed.get()).as("%s: delivered, the last one the consumer's cancel", round)
                .isEqualTo(cancelAt);
            assertThat(offered).as("%s: offered all told (what the consumer took, and at most the window it had " +
                "granted beyond)", round).isEqualTo(offeredWhenHeard).isLessThanOrEqualTo(cancelAt + WINDOW);
            assertThat(offered - offeredAtIssue).as("%s: offered after the cancel was issued", round)
                .isLessThanOrEqualTo(WINDOW);
            assertThat(offerTakenAfter).as("%s: an offer taken once the producer heard the cancel", round).isFalse();
            assertThat(producer.stream.isDone()).as(round).isTrue();
        }
    }

    /** Collects numbers in order and the stream's last signal. */
    private static class Collector implements StreamListener
    {
        final ConcurrentLinkedQueue<Long> numbers = new ConcurrentLinkedQueue<>();
        final AtomicLong received = new AtomicLong();
        final CompletableFuture<Metadata> done = new CompletableFuture<>();
        volatile Runnable ready = () -> { };
        volatile long expected = 1;
        volatile boolean inOrder = true;

        @Override
        public void onMessage(final Message message)
        {
            final long value = number(message);
            if (value != expected)
            {
                inOrder = false;
            }
            expected = value + 1;
            received.incrementAndGet();
        }

        @Override
        public void onReady()
        {
            ready.run();
        }

        @Override
        public void onHalfClose()
        {
            done.complete(Metadata.EMPTY);
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
    }

    /**
     * A server stream: the handler sends as many numbers as the open asks for, then completes with a trailer; its
     * requests are answered empty.
     */
    private static final RequestHandler COUNTER = new RequestHandler()
    {
        @Override
        public void onRequest(final io.xio.engine.InboundRequest request)
        {
            request.message().close();
            request.respond(Outbound.empty());
        }

        @Override
        public void onStream(final InboundStream stream)
        {
            final long count = number(stream.open());
            final Feed feed = new Feed(stream, count, () -> stream.complete(new Metadata()
                .put("sent", Long.toString(count))));
            stream.start(pumping(feed));
            feed.pump();
        }
    };

    @Test
    void aServerStreamArrivesWholeAndInOrderWithItsTrailers() throws Exception
    {
        try (Session session = open("count", COUNTER))
        {
            final Collector collector = new Collector();
            final StreamCall call = session.openStream(number(MANY), collector);
            call.request(Long.MAX_VALUE);
            final Metadata trailers = collector.done.get(60, TimeUnit.SECONDS);
            assertThat(collector.received.get()).isEqualTo(MANY);
            assertThat(collector.inOrder).isTrue();
            assertThat(trailers.get("sent")).isEqualTo(Long.toString(MANY));
            assertThat(call.isDone()).isTrue();
        }
    }

    @Test
    void aClientStreamArrivesWholeAndInOrderAndTheAcceptorAnswersAtTheHalfClose() throws Exception
    {
        final Collector atServer = new Collector();
        final RequestHandler sink = holding(stream ->
        {
            stream.open().close();
            atServer.done.whenComplete((ok, failed) ->
            {
                if (failed == null)
                {
                    stream.complete(new Metadata().put("received", Long.toString(atServer.received.get())));
                }
            });
            stream.start(atServer);
            stream.request(Long.MAX_VALUE);
        });
        try (Session session = open("sink", sink))
        {
            final Collector collector = new Collector();
            final StreamCall call = session.openStream(Outbound.empty(), collector);
            final Feed feed = new Feed(call, MANY, call::halfClose);
            collector.ready = feed::pump;
            feed.pump();
            final Metadata trailers = collector.done.get(60, TimeUnit.SECONDS);
            assertThat(trailers.get("received")).isEqualTo(Long.toString(MANY));
            assertThat(atServer.inOrder).isTrue();
            assertThat(collector.received.get()).isZero();
        }
    }

    @Test
    void aBidirectionalStreamEchoesEveryMessageInOrder() throws Exception
    {
        final RequestHandler echo = holding(stream ->
        {
            stream.open().close();
            // Echo within the credit the opener grants: take a message only when it can go back at once.
            final AtomicReference<StreamListener> self = new AtomicReference<>();
            final StreamListener listener = new StreamListener()
            {
                @Override
                public void onMessage(final Message message)
                {
                    final long value = number(message);
                    if (!stream.offer(number(value)))
                    {
                        stream.fail(new IllegalStateException("no credit for " + value));
                        return;
                    }
                    if (stream.isReady())
                    {
                        stream.request(1);
                    }
                }

                @Override
                public void onReady()
                {
                    stream.request(1);
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
            };
            self.set(listener);
            stream.start(listener);
            stream.request(1);
        });
        try (Session session = open("echo", echo))
        {
            final Collector collector = new Collector();
            final StreamCall call = session.openStream(Outbound.empty(), collector);
            call.request(Long.MAX_VALUE);
            final Feed feed = new Feed(call, MANY, call::halfClose);
            collector.ready = feed::pump;
            feed.pump();
            collector.done.get(60, TimeUnit.SECONDS);
            assertThat(collector.received.get()).isEqualTo(MANY);
            assertThat(collector.inOrder).isTrue();
        }
    }

    @Test
    void aConsumerThatTakesOneAtATimeHoldsTheProducerWithinItsWindow() throws Exception
    {
        final AtomicLong delivered = new AtomicLong();
        final AtomicLong worst = new AtomicLong();
        final AtomicReference<Feed> serverFeed = new AtomicReference<>();
        final RequestHandler counter = holding(stream ->
        {
            final long count = number(stream.open());
            final Feed feed = new Feed(stream, count, stream::complete);
            serverFeed.set(feed);
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
                    feed.pump();
                    worst.accumulateAndGet(feed.offered.get() - delivered.get(), Math::max);
                }

                @Override
                public void onError(final Throwable error)
                {
                }
            });
            feed.pump();
            worst.accumulateAndGet(feed.offered.get() - delivered.get(), Math::max);
        });
        final int count = 2_000;
        try (Session session = open("slow", counter))
        {
            final AtomicReference<StreamCall> call = new AtomicReference<>();
            final Collector collector = new Collector()
            {
                @Override
                public void onMessage(final Message message)
                {
                    super.onMessage(message);
                    delivered.incrementAndGet();
                    call.get().request(1); // one at a time, each after the last was taken
                }
            };
            call.set(session.openStream(number(count), collector));
            call.get().request(1);
            collector.done.get(60, TimeUnit.SECONDS);
            assertThat(collector.received.get()).isEqualTo(count);
            assertThat(collector.inOrder).isTrue();
            // Offered but not yet taken by the consumer: never more than its window.
            assertThat(worst.get()).isPositive().isLessThanOrEqualTo(WINDOW);
        }
    }

    /**
     * Each side's window is its own (not announced): a producer whose window is a fraction of its consumer's, which
     * grants again only once it took half of its own, still sends everything, as the acceptor and as the opener.
     */
    @Test
    void aProducerWhoseWindowIsSmallerThanItsConsumersGoesOnToTheEnd() throws Exception
    {
        engines.close();
        final int small = 8;
        server = engines.start(configure(engines.builder("server")).limits(TestEngines.LIMITS
            .withStreams(StreamLimits.builder().windowMessages(small).build())));
        client = engines.start(configure(engines.builder("client"))); // windows of 1024 messages
        final int count = 100 * small;
        final CompletableFuture<Session> serverSide = new CompletableFuture<>();
        final Collector atClient = new Collector();
        final RequestHandler clientHandler = holding(stream ->
        {
            stream.open().close();
            atClient.done.whenComplete((ok, failed) -> stream.complete());
            stream.start(atClient);
            stream.request(Long.MAX_VALUE);
        });
        server.register("count", COUNTER);
        try (Session session = connectBack(clientHandler, serverSide))
        {
            final Collector fromAcceptor = new Collector();
            final Session toCount = client.connect(session.uri().withResource("count").toString());
            try (toCount)
            {
                toCount.openStream(number(count), fromAcceptor).request(Long.MAX_VALUE);
                assertThat(fromAcceptor.done.get(30, TimeUnit.SECONDS).get("sent")).isEqualTo(Long.toString(count));
                assertThat(fromAcceptor.received.get()).isEqualTo(count);
            }

            final Collector atServer = new Collector();
            final StreamCall call = serverSide.get(30, TimeUnit.SECONDS).openStream(Outbound.empty(), atServer);
            final Feed feed = new Feed(call, count, call::halfClose);
            atServer.ready = feed::pump;
            feed.pump();
            atServer.done.get(30, TimeUnit.SECONDS);
            assertThat(atClient.received.get()).isEqualTo(count);
            assertThat(atClient.inOrder).isTrue();
        }
    }

    @Test
    void aConsumerThatStopsReadingStopsTheProducerAtItsWindow() throws Exception
    {
        final AtomicReference<Feed> serverFeed = new AtomicReference<>();
        final CompletableFuture<Throwable> serverEnd = new CompletableFuture<>();
        final RequestHandler counter = holding(stream ->
        {
            stream.open().close();
            final Feed feed = new Feed(stream, Long.MAX_VALUE - 1, stream::complete);
            serverFeed.set(feed);
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
                    feed.pump();
                }

                @Override
                public void onError(final Throwable error)
                {
                    serverEnd.complete(error);
                }
            });
            feed.pump();
        });
        try (Session session = open("endless", counter))
        {
            final Collector collector = new Collector();
            final StreamCall call = session.openStream(Outbound.empty(), collector);
            call.request(10);
            await().atMost(Duration.ofSeconds(30)).until(() -> collector.received.get() == 10);
            await().atMost(Duration.ofSeconds(30)).until(() -> serverFeed.get() != null &&
                serverFeed.get().offered.get() >= 10);
            Thread.sleep(300); // nothing more may come while the consumer takes nothing
            final long offered = serverFeed.get().offered.get();
            Thread.sleep(300);
            assertThat(serverFeed.get().offered.get()).isEqualTo(offered).isLessThanOrEqualTo(10 + WINDOW);
            assertThat(collector.received.get()).isEqualTo(10);
            call.cancel();
            assertThat(serverEnd.get(30, TimeUnit.SECONDS)).isInstanceOf(RequestCancelledException.class);
            assertThat(failure(collector.done)).isInstanceOf(RequestCancelledException.class);
        }
    }

    @Test
    void aCreditReachesTheProducerWhileTheConsumersTurnGoesOn() throws Exception
    {
        org.junit.jupiter.api.Assumptions.assumeTrue(creditGoesMidTurn(), "credit goes at the end of the turn");
        final AtomicReference<Feed> serverFeed = new AtomicReference<>();
        final RequestHandler counter = holding(stream ->
        {
            stream.open().close();
            final Feed feed = new Feed(stream, Long.MAX_VALUE - 1, stream::complete);
            serverFeed.set(feed);
            stream.start(pumping(feed));
            feed.pump(); // the whole window in one turn: the consumer reads it in one turn too
        });
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (Session session = open("endless", counter))
        {
            final Collector collector = new Collector()
            {
                @Override
                public void onMessage(final Message message)
                {
                    super.onMessage(message);
                    if (received.get() == WINDOW)
                    {
                        try
                        {
                            // holds the consumer's turn: the credit granted at half the window must go meanwhile
                            release.await(30, TimeUnit.SECONDS);
                        }
                        catch (final InterruptedException ex)
                        {
                            Thread.currentThread().interrupt();
                        }
                    }
                }
            };
            final StreamCall call = session.openStream(Outbound.empty(), collector);
            call.request(Long.MAX_VALUE);
            try
            {
                await().atMost(Duration.ofSeconds(20)).until(() -> serverFeed.get() != null &&
                    serverFeed.get().offered.get() > WINDOW);
                assertThat(collector.received.get()).isEqualTo(WINDOW);
            }
            finally
            {
                release.countDown();
            }
            call.cancel();
        }
    }

    @Test
    void theAcceptorsCancelEndsTheOpenersStream() throws Exception
    {
        final RequestHandler quitter = holding(stream ->
        {
            stream.open().close();
            stream.start(new Collector());
            stream.offer(number(1));
            stream.cancel();
        });
        try (Session session = open("quit", quitter))
        {
            final Collector collector = new Collector();
            final StreamCall call = session.openStream(Outbound.empty(), collector);
            call.request(Long.MAX_VALUE);
            assertThat(failure(collector.done)).isInstanceOf(RequestCancelledException.class);
            await().atMost(Duration.ofSeconds(5)).until(call::isDone);
            assertThat(call.offer(number(1))).isFalse();
        }
    }

    /**
     * The opener cancels a server stream while the acceptor's producer offers as fast as credit allows: the producer
     * hears it promptly (its listener's {@code onError}), and all it offered, however late the cancel reached it,
     * stays within the credit the opener granted before cancelling, counted.
     */
    @Test
    void theOpenersCancelStopsTheAcceptorsProducerWithinTheCreditItHad() throws Exception
    {
        final AtomicReference<CancelCount> round = new AtomicReference<>();
        final RequestHandler endless = holding(stream ->
        {
            stream.open().close();
            final CancelCount count = round.get();
            count.producer = new Feed(stream, Long.MAX_VALUE - 1, stream::complete);
            stream.start(count.producerListener());
            count.producer.pump();
        });
        try (Session session = open("endless", endless))
        {
            for (final CancelCount count : CancelCount.rounds())
            {
                round.set(count);
                count.consumer = session.openStream(Outbound.empty(), count.consumerListener());
                count.consumer.request(count.asked);
                count.assertTheProducerStopped("the opener's cancel");
            }
            session.request(Outbound.empty()).get(30, TimeUnit.SECONDS).close();
        }
    }

    /**
     * The acceptor cancels a client stream while the opener's producer offers as fast as credit allows: the opener
     * hears it promptly, and all it offered stays within the credit the acceptor granted before cancelling, counted.
     */
    @Test
    void theAcceptorsCancelStopsTheOpenersProducerWithinTheCreditItHad() throws Exception
    {
        final AtomicReference<CancelCount> round = new AtomicReference<>();
        final RequestHandler cancelling = holding(stream ->
        {
            stream.open().close();
            final CancelCount count = round.get();
            count.consumer = stream;
            stream.start(count.consumerListener());
            stream.request(count.asked);
        });
        try (Session session = open("cancelling", cancelling))
        {
            for (final CancelCount count : CancelCount.rounds())
            {
                round.set(count);
                final StreamCall call = session.openStream(Outbound.empty(), count.producerListener());
                count.producer = new Feed(call, Long.MAX_VALUE - 1, call::halfClose);
                count.producer.pump();
                count.assertTheProducerStopped("the acceptor's cancel");
            }
            session.request(Outbound.empty()).get(30, TimeUnit.SECONDS).close();
        }
    }

    @Test
    void aDeadlineEndsTheStreamOnBothSides() throws Exception
    {
        final CompletableFuture<Throwable> atServer = new CompletableFuture<>();
        final RequestHandler idle = holding(stream ->
        {
            stream.open().close();
            assertThat(stream.hasDeadline()).isTrue();
            stream.start(new Collector()
            {
                @Override
                public void onError(final Throwable error)
                {
                    atServer.complete(error);
                }
            });
        });
        try (Session session = open("idle", idle))
        {
            final Collector collector = new Collector();
            session.openStream(Outbound.empty(), CallOptions.timeout(TestEngines.scaled(Duration.ofMillis(300))),
                collector);
            assertThat(failure(collector.done)).isInstanceOf(XioTimeoutException.class);
            // The acceptor's own deadline, or the opener's cancel at its deadline, whichever comes first.
            assertThat(atServer.get(30, TimeUnit.SECONDS)).isInstanceOfAny(XioTimeoutException.class,
                RequestCancelledException.class);
        }
    }

    @Test
    void theOpensMetadataReachesTheAcceptorAndAFailureReachesTheOpener() throws Exception
    {
        final RequestHandler failing = holding(stream ->
        {
            final String tenant = stream.metadata().get("tenant");
            final String header = text(stream.open().header());
            stream.open().close();
            stream.start(new Collector());
            stream.offer(number(7));
            stream.fail("com.acme.Refused", tenant + " may not read " + header);
        });
        try (Session session = open("failing", failing))
        {
            final Collector collector = new Collector();
            final StreamCall call = session.openStream(Outbound.of(utf8("ledger"))
                .metadata(new Metadata().put("tenant", "acme")), collector);
            call.request(Long.MAX_VALUE);
            assertThat(failure(collector.done)).isInstanceOf(RemoteException.class)
                .hasMessageContaining("acme may not read ledger");
        }
    }

    @Test
    void aServiceThatTakesNoStreamsRefusesThem() throws Exception
    {
        try (Session session = open("plain", TestEngines.ECHO))
        {
            final Collector collector = new Collector();
            session.openStream(Outbound.empty(), collector).request(1);
            assertThat(failure(collector.done)).isInstanceOf(RemoteException.class)
                .hasMessageContaining("takes no streams");
        }
    }

    @Test
    void streamsOverTheSessionsLimitAreRefusedAndOthersStillOpen() throws Exception
    {
        final RequestHandler holder = new RequestHandler()
        {
            @Override
            public void onRequest(final io.xio.engine.InboundRequest request)
            {
                request.message().close();
                request.respond(Outbound.empty());
            }

            @Override
            public void onStream(final InboundStream stream)
            {
                stream.open().close();
                stream.start(new Collector());
            }
        };
        engines.close();
        final Limits limits = TestEngines.LIMITS.withStreams(StreamLimits.builder().maxStreamsPerSession(2).build());
        server = engines.start(configure(engines.builder("server")).limits(limits));
        client = engines.start(configure(engines.builder("client")));
        try (Session session = open("holder", holder))
        {
            final Collector first = new Collector();
            final Collector second = new Collector();
            final Collector third = new Collector();
            final StreamCall one = session.openStream(Outbound.empty(), first);
            final StreamCall two = session.openStream(Outbound.empty(), second);
            await().atMost(Duration.ofSeconds(30)).until(() -> one.isReady() && two.isReady());
            session.openStream(Outbound.empty(), third);
            assertThat(failure(third.done)).isInstanceOf(BackPressureException.class);
            session.request(Outbound.empty()).get(30, TimeUnit.SECONDS).close();
            one.cancel();
            // The cancelled stream's place is free again: an open is taken once the cancel reached the server.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
            {
                final Collector attempt = new Collector();
                final StreamCall call = session.openStream(Outbound.empty(), attempt);
                await().atMost(Duration.ofSeconds(5)).until(() -> call.isReady() || attempt.done.isDone());
                assertThat(attempt.done).isNotDone();
                call.cancel();
            });
        }
    }

    /** Two sessions of the client engine to {@link #COUNTER} on one portal of the server engine. */
    private Session[] twoSessions()
    {
        server.register("count", COUNTER);
        final String uri = server.bind(portalAddress()).uri().withResource("count").toString();
        return new Session[] {client.connect(uri), client.connect(uri)};
    }

    /** Waits until the acceptor took each of {@code calls} (its first credit came): open on both sides. */
    private static void accepted(final StreamCall... calls)
    {
        await().atMost(Duration.ofSeconds(30))
            .until(() -> java.util.Arrays.stream(calls).allMatch(XioStream::isReady));
    }

    /**
     * The engine's limit on open streams holds across its sessions: once two sessions' streams together reach it, an
     * open on either is refused (BACK_PRESSURE, counted), while the streams open go on to their ends and the sessions
     * still serve calls; the place a stream held is free again once it ended, for any session.
     */
    @Test
    void streamsOverTheAcceptorsEngineLimitAreRefusedOnEverySessionAndTheOpenOnesGoOn() throws Exception
    {
        engines.close();
        final StreamLimits windows = StreamLimits.builder().windowMessages(WINDOW).build();
        server = engines.start(configure(engines.builder("server")).limits(TestEngines.LIMITS
            .withStreams(windows.toBuilder().maxStreams(3).build())));
        client = engines.start(configure(engines.builder("client")).limits(TestEngines.LIMITS.withStreams(windows)));
        final Session[] sessions = twoSessions();
        try (Session first = sessions[0]; Session second = sessions[1])
        {
            // A hundred messages each, more than the opener's window: each stays open until its opener asks for them.
            final Collector[] taken = {new Collector(), new Collector(), new Collector()};
            final StreamCall[] calls = {first.openStream(number(100), taken[0]),
                first.openStream(number(100), taken[1]), second.openStream(number(100), taken[2])};
            accepted(calls);
            assertThat(server.openStreams()).isEqualTo(3);
            for (final Session session : sessions)
            {
                final Collector refused = new Collector();
                session.openStream(number(100), refused).request(Long.MAX_VALUE);
                assertThat(failure(refused.done)).as("an open over the engine's limit on %s", session)
                    .isInstanceOf(BackPressureException.class);
            }
            assertThat(server.refusals(PeerRefusal.STREAM_LIMIT)).isEqualTo(2);
            assertThat(server.openStreams()).isEqualTo(3);
            second.request(Outbound.empty()).get(30, TimeUnit.SECONDS).close();

            for (int i = 0; i < calls.length; i++)
            {
                calls[i].request(Long.MAX_VALUE);
                assertThat(taken[i].done.get(30, TimeUnit.SECONDS).get("sent")).isEqualTo("100");
                assertThat(taken[i].received.get()).isEqualTo(100);
                assertThat(taken[i].inOrder).isTrue();
            }
            // Each end acknowledged: the acceptor's places are free again, for either session.
            await().atMost(Duration.ofSeconds(30)).until(() -> server.openStreams() == 0);
            final Collector[] again = {new Collector(), new Collector(), new Collector()};
            final StreamCall[] more = {second.openStream(number(5), again[0]),
                second.openStream(number(5), again[1]), second.openStream(number(5), again[2])};
            for (int i = 0; i < more.length; i++)
            {
                more[i].request(Long.MAX_VALUE);
                again[i].done.get(30, TimeUnit.SECONDS);
                assertThat(again[i].received.get()).isEqualTo(5);
            }
            assertThat(server.refusals(PeerRefusal.STREAM_LIMIT)).isEqualTo(2);
        }
    }

    /**
     * This side's own opens are held to its engine's limit too, across its sessions: one over it fails at once with
     * {@link BackPressureException} naming the limit, and never reaches the peer; a cancelled stream's place is free
     * again at once.
     */
    @Test
    void opensOverTheOpenersEngineLimitFailAtOnceOnEverySession() throws Exception
    {
        engines.close();
        final StreamLimits windows = StreamLimits.builder().windowMessages(WINDOW).build();
        server = engines.start(configure(engines.builder("server")).limits(TestEngines.LIMITS.withStreams(windows)));
        client = engines.start(configure(engines.builder("client")).limits(TestEngines.LIMITS
            .withStreams(windows.toBuilder().maxStreams(2).build())));
        final Session[] sessions = twoSessions();
        try (Session first = sessions[0]; Session second = sessions[1])
        {
            final Collector one = new Collector();
            final StreamCall call = first.openStream(number(100), one);
            final StreamCall other = second.openStream(number(100), new Collector());
            accepted(call, other);
            assertThat(client.openStreams()).isEqualTo(2);
            for (final Session session : sessions)
            {
                final Collector refused = new Collector();
                final StreamCall over = session.openStream(number(100), refused);
                assertThat(refused.done).as("refused at once").isCompletedExceptionally();
                assertThat(over.isDone()).isTrue();
                assertThat(failure(refused.done)).isInstanceOf(BackPressureException.class)
                    .hasMessageContaining("no more streams on session").hasMessageContaining("2 in the engine");
            }
            assertThat(server.openStreams()).isEqualTo(2);
            assertThat(server.refusals(PeerRefusal.STREAM_LIMIT)).isZero();

            call.cancel();
            assertThat(failure(one.done)).isInstanceOf(RequestCancelledException.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> client.openStreams() == 1);
            final Collector next = new Collector();
            second.openStream(number(5), next).request(Long.MAX_VALUE);
            next.done.get(30, TimeUnit.SECONDS);
            assertThat(next.received.get()).isEqualTo(5);
            other.cancel();
        }
    }

    @Test
    void bothSidesCountEachSessionsOpenStreamsUntilTheyEnd() throws Exception
    {
        final BlockingQueue<InboundStream> arrived = new LinkedBlockingQueue<>();
        try (Session session = open("held", holding(stream ->
        {
            stream.open().close();
            stream.start(new Collector());
            arrived.add(stream);
        })))
        {
            assertThat(session.statistics().openStreams()).isZero();
            final Collector first = new Collector();
            final StreamCall one = session.openStream(Outbound.empty(), first);
            one.request(Long.MAX_VALUE);
            final InboundStream oneAtServer = arrived.poll(30, TimeUnit.SECONDS);
            assertThat(oneAtServer).as("the first stream at the server").isNotNull();
            final Collector second = new Collector();
            final StreamCall two = session.openStream(Outbound.empty(), second);
            assertThat(arrived.poll(30, TimeUnit.SECONDS)).as("the second stream at the server").isNotNull();
            final Session atServer = server.sessions().get(0);
            assertThat(session.statistics().openStreams()).isEqualTo(2);
            assertThat(atServer.statistics().openStreams()).isEqualTo(2);
            assertThat(client.openStreams()).isEqualTo(2);
            assertThat(server.openStreams()).isEqualTo(2);

            oneAtServer.complete();
            first.done.get(30, TimeUnit.SECONDS);
            // The acceptor's stream counts until the opener acknowledged its end.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
            {
                assertThat(session.statistics().openStreams()).isEqualTo(1);
                assertThat(atServer.statistics().openStreams()).isEqualTo(1);
            });

            two.cancel();
            assertThat(failure(second.done)).isInstanceOf(RequestCancelledException.class);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
            {
                assertThat(session.statistics().openStreams()).isZero();
                assertThat(atServer.statistics().openStreams()).isZero();
                assertThat(client.openStreams()).isZero();
                assertThat(server.openStreams()).isZero();
            });
        }
    }

    /**
     * A client session whose streams {@code clientHandler} takes, to the server's service {@code back}, which hands
     * {@code serverSide} the server's side of the session once the client's first request (made here) arrives.
     */
    private Session connectBack(final RequestHandler clientHandler, final CompletableFuture<Session> serverSide)
        throws Exception
    {
        server.register("back", request ->
        {
            request.message().close();
            serverSide.complete(request.session());
            request.respond(Outbound.empty());
        });
        final Portal portal = server.bind(portalAddress());
        final Session session = client.connect(portal.uri().withResource("back").toString(),
            SessionOptions.DEFAULT.withHandler(clientHandler));
        session.request(Outbound.empty()).get(30, TimeUnit.SECONDS).close();
        return session;
    }

    @Test
    void theServerMayOpenAStreamToItsClient() throws Exception
    {
        final CompletableFuture<Session> serverSide = new CompletableFuture<>();
        final RequestHandler clientHandler = holding(stream ->
        {
            final long count = number(stream.open());
            final Feed feed = new Feed(stream, count, stream::complete);
            stream.start(new Collector()
            {
                @Override
                public void onReady()
                {
                    feed.pump();
                }
            });
            feed.pump();
        });
        final Session session = connectBack(clientHandler, serverSide);
        try (session)
        {
            final Session atServer = serverSide.get(30, TimeUnit.SECONDS);
            final Collector collector = new Collector();
            atServer.openStream(number(1_000), collector).request(Long.MAX_VALUE);
            collector.done.get(30, TimeUnit.SECONDS);
            assertThat(collector.received.get()).isEqualTo(1_000);
            assertThat(collector.inOrder).isTrue();
        }
    }

    @Test
    void aMessageOverThePeersLimitIsRefusedAtTheOffer() throws Exception
    {
        final RequestHandler holder = holding(stream ->
        {
            stream.open().close();
            stream.start(new Collector());
        });
        try (Session session = open("hold", holder))
        {
            final Collector collector = new Collector();
            final StreamCall call = session.openStream(Outbound.empty(), collector);
            await().atMost(Duration.ofSeconds(30)).until(() -> call.isReady() || call.isDone());
            final ByteBuffer huge = ByteBuffer.allocate(TestEngines.LIMITS.maxHeaderBytes() + 1);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> call.offer(Outbound.of(huge)))
                .isInstanceOf(XioException.class);
        }
    }

    /**
     * A message whose header area (its 8-byte sequence number and header) is exactly the peer's
     * {@code maxHeaderBytes}, one whose metadata is exactly its {@code maxMetadataBytes}, and trailers of exactly that
     * size are legal: offered, taken and delivered. The sequence number is no part of the call context.
     */
    @Test
    void messagesAndTrailersExactlyAtThePeersLimitsAreSentAndTaken() throws Exception
    {
        final int headerBytes = TestEngines.LIMITS.maxHeaderBytes();
        final int metadataBytes = TestEngines.LIMITS.maxMetadataBytes();
        final Metadata full = new Metadata().put("k", "v".repeat(metadataBytes - Metadata.ENTRY_OVERHEAD - 1));
        assertThat(full.encodedLength()).isEqualTo(metadataBytes);
        final ConcurrentLinkedQueue<String> arrived = new ConcurrentLinkedQueue<>();
        final RequestHandler sink = holding(stream ->
        {
            stream.open().close();
            stream.start(new StreamListener()
            {
                @Override
                public void onMessage(final Message message)
                {
                    try (message)
                    {
                        arrived.add(message.header().remaining() + " " + message.metadata().encodedLength());
                    }
                }

                @Override
                public void onHalfClose()
                {
                    stream.complete(full);
                }

                @Override
                public void onError(final Throwable error)
                {
                }
            });
            stream.request(Long.MAX_VALUE);
        });
        try (Session session = open("exact", sink))
        {
            final Collector collector = new Collector();
            final StreamCall call = session.openStream(Outbound.empty(), collector);
            await().atMost(Duration.ofSeconds(30)).until(() -> call.isReady() || call.isDone());
            final int header = headerBytes - 8;
            assertThat(call.offer(Outbound.of(ByteBuffer.allocate(header)))).as("a header area of exactly %d bytes",
                headerBytes).isTrue();
            assertThat(call.offer(Outbound.empty().metadata(new Metadata(full)))).as("metadata of exactly %d bytes",
                metadataBytes).isTrue();
            call.halfClose();
            final Metadata trailers = collector.done.get(30, TimeUnit.SECONDS);
            assertThat(arrived).containsExactly(header + " 0", "0 " + metadataBytes);
            assertThat(trailers.encodedLength()).as("trailers of exactly %d bytes", metadataBytes)
                .isEqualTo(metadataBytes);
        }
    }

    /** How often the connection-kill tests drop every connection: 100 ms; an emulated transport may need longer. */
    protected Duration killInterval()
    {
        return Duration.ofMillis(100);
    }

    /**
     * Drops every connection of {@code session} every {@link #killInterval()} until {@code done}, counting the kills,
     * and lets {@code afterKill} run after each (a consumer that asks for more only then makes the stream outlive many
     * kills).
     */
    private Thread killer(final Session session, final CompletableFuture<?> done, final AtomicLong kills,
        final Runnable afterKill)
    {
        final long interval = killInterval().toMillis();
        final Thread thread = new Thread(() ->
        {
            while (!done.isDone())
            {
                try
                {
                    Thread.sleep(interval);
                }
                catch (final InterruptedException ex)
                {
                    return;
                }
                if (!done.isDone())
                {
                    session.abortConnections();
                    kills.incrementAndGet();
                    afterKill.run();
                }
            }
        }, "connection-killer");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    @Test
    void aServerStreamSurvivesConnectionKillsEvery100msExactlyOnceAndInOrder() throws Exception
    {
        final int count = MANY / 2;
        try (Session session = open("count", COUNTER))
        {
            final Collector collector = new Collector();
            final AtomicLong kills = new AtomicLong();
            final StreamCall call = session.openStream(number(count), collector);
            call.request(count / 20);
            final Thread killer = killer(session, collector.done, kills, () -> call.request(count / 20));
            final Metadata trailers = collector.done.get(100, TimeUnit.SECONDS);
            killer.join();
            assertThat(collector.inOrder).isTrue();
            assertThat(collector.received.get()).isEqualTo(count);
            assertThat(trailers.get("sent")).isEqualTo(Long.toString(count));
            assertThat(kills.get()).isGreaterThanOrEqualTo(19);
        }
    }

    @Test
    void aBidirectionalStreamSurvivesConnectionKillsEvery100msExactlyOnceAndInOrder() throws Exception
    {
        final Collector atServer = new Collector();
        final RequestHandler sink = holding(stream ->
        {
            stream.open().close();
            final Feed feed = new Feed(stream, MANY / 4, () -> stream.complete(new Metadata()
                .put("received", Long.toString(atServer.received.get()))));
            atServer.ready = feed::pump;
            // Completes after the opener's last message and its own last one, whichever is later.
            atServer.done.whenComplete((ok, failed) -> feed.pump());
            stream.start(atServer);
            stream.request(Long.MAX_VALUE);
        });
        try (Session session = open("both", sink))
        {
            final Collector collector = new Collector();
            final AtomicLong kills = new AtomicLong();
            final StreamCall call = session.openStream(Outbound.empty(), collector);
            call.request(MANY / 40);
            final Feed feed = new Feed(call, MANY / 4, call::halfClose);
            collector.ready = feed::pump;
            final Thread killer = killer(session, collector.done, kills, () -> call.request(MANY / 40));
            feed.pump();
            final Metadata trailers = collector.done.get(100, TimeUnit.SECONDS);
            killer.join();
            assertThat(atServer.inOrder).isTrue();
            assertThat(collector.inOrder).isTrue();
            assertThat(collector.received.get()).isEqualTo(MANY / 4);
            assertThat(trailers.get("received")).isEqualTo(Long.toString(MANY / 4));
            assertThat(kills.get()).isGreaterThanOrEqualTo(9);
        }
    }

    /**
     * A stream the server opened resumes on the connection its client attaches again: the server writes its open
     * again there once the client's attach is accepted, so every message still arrives once and in order.
     */
    @Test
    void aStreamTheServerOpenedSurvivesConnectionKillsExactlyOnceAndInOrder() throws Exception
    {
        final int count = MANY / 10;
        final CompletableFuture<Session> serverSide = new CompletableFuture<>();
        final RequestHandler clientHandler = holding(stream ->
        {
            final Feed feed = new Feed(stream, number(stream.open()), stream::complete);
            stream.start(pumping(feed));
            feed.pump();
        });
        try (Session session = connectBack(clientHandler, serverSide))
        {
            final Collector collector = new Collector();
            final AtomicLong kills = new AtomicLong();
            final StreamCall call = serverSide.get(30, TimeUnit.SECONDS).openStream(number(count), collector);
            call.request(count / 20);
            final Thread killer = killer(session, collector.done, kills, () -> call.request(count / 20));
            collector.done.get(100, TimeUnit.SECONDS);
            killer.join();
            assertThat(collector.inOrder).isTrue();
            assertThat(collector.received.get()).isEqualTo(count);
            assertThat(kills.get()).isGreaterThanOrEqualTo(19);
        }
    }

    /** A listener that closes what comes and pumps {@code feed} whenever the stream has credit again. */
    private static StreamListener pumping(final Feed feed)
    {
        return new StreamListener()
        {
            @Override
            public void onMessage(final Message message)
            {
                message.close();
            }

            @Override
            public void onReady()
            {
                feed.pump();
            }

            @Override
            public void onError(final Throwable error)
            {
            }
        };
    }

    /** A handler whose streams {@code onOpen} takes; its requests are answered empty. */
    private static RequestHandler holding(final java.util.function.Consumer<InboundStream> onOpen)
    {
        return new RequestHandler()
        {
            @Override
            public void onRequest(final io.xio.engine.InboundRequest request)
            {
                request.message().close();
                request.respond(Outbound.empty());
            }

            @Override
            public void onStream(final InboundStream stream)
            {
                onOpen.accept(stream);
            }
        };
    }

    @Test
    void anEndRightAfterAFullWindowCompletesTheStream() throws Exception
    {
        final RequestHandler window = holding(stream ->
        {
            stream.open().close();
            final Feed feed = new Feed(stream, WINDOW, stream::complete); // a window, then the end beyond it
            stream.start(new Collector()
            {
                @Override
                public void onReady()
                {
                    feed.pump();
                }
            });
            feed.pump();
        });
        try (Session session = open("window", window))
        {
            final Collector collector = new Collector();
            final StreamCall call = session.openStream(Outbound.empty(), collector);
            // The whole window and the end arrive while nothing is asked for: the end makes the stream done here.
            await().atMost(Duration.ofSeconds(30)).until(call::isDone);
            call.request(Long.MAX_VALUE);
            collector.done.get(30, TimeUnit.SECONDS);
            assertThat(collector.received.get()).isEqualTo(WINDOW);
            assertThat(collector.inOrder).isTrue();
            session.request(Outbound.empty()).get(30, TimeUnit.SECONDS).close(); // the connection is still fine
        }
    }

    @Test
    void streamsPassAServerInterceptorThatLooksAtThem() throws Exception
    {
        final AtomicLong intercepted = new AtomicLong();
        engines.close();
        final io.xio.engine.ServerInterceptor counting = new io.xio.engine.ServerInterceptor()
        {
            @Override
            public void intercept(final io.xio.engine.InboundRequest request, final RequestHandler next)
                throws Exception
            {
                next.onRequest(request);
            }

            @Override
            public void interceptStream(final InboundStream stream, final RequestHandler next) throws Exception
            {
                intercepted.incrementAndGet();
                next.onStream(stream);
            }
        };
        server = engines.start(configure(engines.builder("server")).serverInterceptor(counting));
        client = engines.start(configure(engines.builder("client")));
        try (Session session = open("count", COUNTER))
        {
            final Collector collector = new Collector();
            session.openStream(number(10), collector).request(Long.MAX_VALUE);
            collector.done.get(30, TimeUnit.SECONDS);
            assertThat(collector.received.get()).isEqualTo(10);
            assertThat(intercepted.get()).isEqualTo(1);
        }
    }

    @Test
    void cancellingACompletedStreamWithMessagesStillHeldFreesItsPlace() throws Exception
    {
        engines.close();
        final Limits one = TestEngines.LIMITS.withStreams(StreamLimits.builder().maxStreamsPerSession(1).build());
        server = engines.start(configure(engines.builder("server")));
        client = engines.start(configure(engines.builder("client")).limits(one));
        try (Session session = open("count", COUNTER))
        {
            final Collector first = new Collector();
            final StreamCall call = session.openStream(number(5), first);
            // Five messages and the end came, none asked for: the end makes the stream done here.
            await().atMost(Duration.ofSeconds(30)).until(call::isDone);
            assertThat(first.done).isNotDone();
            call.cancel();
            assertThat(failure(first.done)).isInstanceOf(RequestCancelledException.class);
            final Collector second = new Collector();
            session.openStream(number(3), second).request(Long.MAX_VALUE);
            second.done.get(30, TimeUnit.SECONDS);
            assertThat(second.received.get()).isEqualTo(3);
        }
    }

    @Test
    void aStreamCancelledBeforeItsHandlerStartedItFreesItsPlace() throws Exception
    {
        engines.close();
        final Limits one = TestEngines.LIMITS.withStreams(StreamLimits.builder().maxStreamsPerSession(1).build());
        server = engines.start(configure(engines.builder("server")).limits(one));
        client = engines.start(configure(engines.builder("client")));
        final java.util.concurrent.BlockingQueue<InboundStream> unstarted =
            new java.util.concurrent.LinkedBlockingQueue<>();
        try (Session session = open("lazy", holding(unstarted::add)))
        {
            final Collector first = new Collector();
            final StreamCall call = session.openStream(Outbound.empty(), first);
            final InboundStream atServer = unstarted.poll(30, TimeUnit.SECONDS);
            call.cancel();
            await().atMost(Duration.ofSeconds(30)).until(atServer::isDone);
            final Collector second = new Collector();
            final StreamCall next = session.openStream(Outbound.empty(), second);
            await().atMost(Duration.ofSeconds(30)).until(() -> next.isReady() || second.done.isDone());
            assertThat(second.done).isNotDone();
            final CompletableFuture<Throwable> late = new CompletableFuture<>();
            atServer.open().close();
            atServer.start(new Collector()
            {
                @Override
                public void onError(final Throwable error)
                {
                    late.complete(error);
                }
            });
            assertThat(late.get(30, TimeUnit.SECONDS)).isInstanceOf(RequestCancelledException.class);
            next.cancel();
            unstarted.poll(30, TimeUnit.SECONDS).open().close();
        }
    }

    @Test
    void anAcceptorThatOffersBeforeItStartsHearsWhenItMayGoOn() throws Exception
    {
        final RequestHandler eager = holding(stream ->
        {
            stream.open().close();
            final Feed feed = new Feed(stream, 500, stream::complete);
            feed.pump(); // no credit yet: the opener's comes after the open; the offer arms the ready signal
            stream.start(new Collector()
            {
                @Override
                public void onReady()
                {
                    feed.pump();
                }
            });
        });
        try (Session session = open("eager", eager))
        {
            final Collector collector = new Collector();
            session.openStream(Outbound.empty(), collector).request(Long.MAX_VALUE);
            collector.done.get(30, TimeUnit.SECONDS);
            assertThat(collector.received.get()).isEqualTo(500);
        }
    }

    @Test
    void aLargeOpenIsReleasedOnceAndTheAcceptorReadsItWhole() throws Exception
    {
        final CompletableFuture<Integer> length = new CompletableFuture<>();
        final RequestHandler reader = holding(stream ->
        {
            try (Message open = stream.open())
            {
                length.complete(open.segmentCount() == 1 ? open.segment(0).remaining() : -1);
            }
            stream.start(new Collector());
            stream.complete();
        });
        try (Session session = open("large", reader))
        {
            final AtomicLong released = new AtomicLong();
            final ByteBuffer data = ByteBuffer.allocateDirect(1 << 20);
            final Collector collector = new Collector();
            session.openStream(Outbound.of(utf8("big"), data).releaseAfterSend(released::incrementAndGet), collector)
                .request(1);
            collector.done.get(30, TimeUnit.SECONDS);
            assertThat(length.get(30, TimeUnit.SECONDS)).isEqualTo(1 << 20);
            await().atMost(Duration.ofSeconds(30)).until(() -> released.get() == 1);
            Thread.sleep(100);
            assertThat(released.get()).isEqualTo(1);
        }
    }

    /** Bytes a streamed message may allocate on the engine's path, both ends together; a transport may add its own. */
    protected double allocationBudget()
    {
        return 16.0;
    }

    /** Messages per measured round of the allocation test; an emulated transport may ask for fewer. */
    protected int allocationMessages()
    {
        return 100_000;
    }

    /**
     * Not a timing: bytes every thread allocated (com.sun.management) per message of a server stream whose producer
     * reuses its messages (each back from xio once acknowledged) and whose consumer closes each as it comes, after
     * warm-up. The best of a few rounds counts, as the JIT may still be compiling in the first.
     */
    @Test
    void aStreamsMessagesAllocateAtMostSixteenBytesEach() throws Exception
    {
        final int perRound = allocationMessages();
        final AtomicReference<CompletableFuture<Void>> roundDone = new AtomicReference<>();
        final RequestHandler producer = holding(stream ->
        {
            stream.open().close();
            final org.agrona.concurrent.ManyToOneConcurrentArrayQueue<Outbound> pool =
                new org.agrona.concurrent.ManyToOneConcurrentArrayQueue<>(4 * WINDOW);
            final java.util.IdentityHashMap<Outbound, AutoCloseable> back = new java.util.IdentityHashMap<>();
            for (int i = 0; i < 3 * WINDOW; i++)
            {
                final Outbound message = Outbound.of(ByteBuffer.allocate(64));
                back.put(message, () -> pool.offer(message));
                pool.offer(message);
            }
            final long[] next = {1};
            final Runnable pump = () ->
            {
                Outbound message;
                while ((message = pool.poll()) != null)
                {
                    message.header().putLong(0, next[0]);
                    if (!stream.offer(message.releaseAfterSend(back.get(message))))
                    {
                        message.released(); // not taken: straight back to the pool
                        return;
                    }
                    next[0]++;
                }
            };
            stream.start(new Collector()
            {
                @Override
                public void onReady()
                {
                    pump.run();
                }
            });
            pump.run();
        });
        engines.close(); // again without leak detection, which records a stack trace per message
        final Limits limits = TestEngines.LIMITS.withStreams(StreamLimits.builder().windowMessages(WINDOW).build());
        server = engines.start(configure(engines.builder("server")).limits(limits).leakDetection(false));
        client = engines.start(configure(engines.builder("client")).limits(limits).leakDetection(false));
        try (Session session = open("alloc", producer))
        {
            final AtomicLong taken = new AtomicLong();
            final StreamListener consumer = new StreamListener()
            {
                @Override
                public void onMessage(final Message message)
                {
                    message.close();
                    final long now = taken.incrementAndGet();
                    if (now % perRound == 0)
                    {
                        roundDone.get().complete(null);
                    }
                }

                @Override
                public void onError(final Throwable error)
                {
                    roundDone.get().completeExceptionally(error);
                }
            };
            roundDone.set(new CompletableFuture<>());
            final StreamCall call = session.openStream(Outbound.empty(), consumer);
            call.request(perRound); // warm-up round
            roundDone.get().get(60, TimeUnit.SECONDS);
            final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
            double best = Double.MAX_VALUE;
            for (int round = 0; round < 3; round++)
            {
                final CompletableFuture<Void> done = new CompletableFuture<>();
                roundDone.set(done);
                final long[] ids = threads.getAllThreadIds();
                final long[] before = threads.getThreadAllocatedBytes(ids);
                call.request(perRound);
                done.get(60, TimeUnit.SECONDS);
                final long[] after = threads.getThreadAllocatedBytes(ids);
                long bytes = 0;
                for (int i = 0; i < ids.length; i++)
                {
                    if (before[i] >= 0 && after[i] >= 0)
                    {
                        bytes += after[i] - before[i];
                    }
                }
                best = Math.min(best, (double)bytes / perRound);
            }
            call.cancel();
            assertThat(best).as("bytes allocated per streamed message").isLessThanOrEqualTo(allocationBudget());
        }
    }
}
