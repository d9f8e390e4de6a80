package io.xio.engine.transport.shm;

import io.xio.engine.InboundRequest;
import io.xio.engine.InboundStream;
import io.xio.engine.Limits;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.RequestHandler;
import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.StreamCall;
import io.xio.engine.StreamLimits;
import io.xio.engine.StreamListener;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Stream messages of a mebibyte from {@link XioEngine#allocateShared} buffers over shm: they travel as references
 * (the ring carries a few dozen bytes each), arrive intact and in order as read-only views, and each comes back to
 * its producer ({@link Outbound#releaseAfterSend}) only once its consumer closed it. Messages still waiting for
 * the consumer when the connection goes or the producer's end arrives are copied, and come back then: the consumer
 * reads what was sent, also across connection kills, whatever the producer writes into its buffers afterwards.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SharedStreamTest
{
    private static final int MIB = 1 << 20;
    /** The producer's slots: mebibytes of one shared buffer, each rewritten for a new message once it is back. */
    private static final int SLOTS = 12;
    private static final int WINDOW = 8;

    private final TestEngines engines = new TestEngines();
    private final String name = "t-" + UUID.randomUUID().toString().substring(0, 13);
    private XioEngine server;
    private XioEngine client;

    @BeforeEach
    void startEngines()
    {
        final Limits limits = TestEngines.LIMITS.withStreams(StreamLimits.builder().windowMessages(WINDOW)
            .windowBytes(WINDOW * MIB).build());
        server = engines.start(engines.builder("server").limits(limits));
        client = engines.start(engines.builder("client").limits(limits));
    }

    @AfterEach
    void closeEngines() throws Exception
    {
        engines.close();
        assertThat(SharedBufferTest.sharedFiles()).as("shared buffer files left").isEmpty();
    }

    /** Writes {@code sequence}'s pattern over the whole slot, eight bytes at a time. */
    private static void fill(final ByteBuffer slot, final long sequence)
    {
        for (int i = 0; i < slot.capacity(); i += 8)
        {
            slot.putLong(i, sequence * 0x9E3779B97F4A7C15L + i);
        }
    }

    private static long crc(final ByteBuffer data)
    {
        final CRC32 crc = new CRC32();
        crc.update(data.duplicate());
        return crc.getValue();
    }

    /**
     * The producer: messages 1..n, each written into a free slot of one shared buffer and offered as credit allows;
     * a slot is free again when xio releases its message. The test's thread offers; releases come on xio's.
     */
    private static final class SharedFeed implements StreamListener
    {
        final ByteBuffer region;
        final BlockingQueue<Integer> free = new LinkedBlockingQueue<>();
        final Map<Long, Long> crcs = new ConcurrentHashMap<>();
        final AtomicLong released = new AtomicLong();
        /** The messages that came back: a slot is written again only after its message is here. */
        final Set<Long> back = ConcurrentHashMap.newKeySet();
        final CompletableFuture<Metadata> done = new CompletableFuture<>();
        private final Semaphore ready = new Semaphore(0);

        SharedFeed(final XioEngine engine)
        {
            region = engine.allocateShared(SLOTS * MIB);
            for (int slot = 0; slot < SLOTS; slot++)
            {
                free.add(slot);
            }
        }

        /** Offers messages 1..count on {@code stream}, then ends its direction with {@code end}. */
        void send(final XioStream stream, final long count, final Runnable end) throws InterruptedException
        {
            for (long sequence = 1; sequence <= count; sequence++)
            {
                final Integer slot = free.poll(30, TimeUnit.SECONDS);
                assertThat(slot).as("a slot back for message %d", sequence).isNotNull();
                final ByteBuffer data = region.slice(slot * MIB, MIB);
                fill(data, sequence);
                crcs.put(sequence, crc(data));
                final long mine = sequence;
                final Outbound message = Outbound.of(ByteBuffer.allocate(8).putLong(0, sequence), data)
                    .releaseAfterSend(() ->
                    {
                        back.add(mine);
                        released.incrementAndGet();
                        free.add(slot);
                    });
                while (!stream.offer(message))
                {
                    assertThat(stream.isDone()).as("the stream ended before message %d", sequence).isFalse();
                    assertThat(ready.tryAcquire(30, TimeUnit.SECONDS)).as("credit for message %d", sequence).isTrue();
                }
            }
            end.run();
        }

        @Override
        public void onMessage(final Message message)
        {
            message.close();
        }

        @Override
        public void onReady()
        {
            ready.release();
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
     * The consumer: checks each message against what the producer wrote, in order, and closes it (or keeps it); an
     * acceptor's completes the stream at the opener's half-close. A message may have been copied (held across a lost
     * connection, or when the end came) only where {@code copies} allows it; one read by reference must not have come
     * back to its producer yet.
     */
    private static final class Checker implements StreamListener
    {
        final XioStream stream;
        final SharedFeed feed;
        /** The producer's end arrived, after every message. */
        final CompletableFuture<Void> finished = new CompletableFuture<>();
        final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        final AtomicLong taken = new AtomicLong();
        final AtomicLong copied = new AtomicLong();
        private final long keep;
        private final boolean copies;
        volatile Message kept;
        private long expected = 1;

        /** @param keep the message to leave open, or 0 */
        Checker(final XioStream stream, final SharedFeed feed, final long keep, final boolean copies)
        {
            this.stream = stream;
            this.feed = feed;
            this.keep = keep;
            this.copies = copies;
        }

        @Override
        public void onMessage(final Message message)
        {
            final long sequence = message.header().getLong(message.header().position());
            if (sequence != expected)
            {
                problems.add("message " + sequence + " where " + expected + " was due");
            }
            expected = sequence + 1;
            if (message.inShared() && feed.back.contains(sequence))
            {
                problems.add("message " + sequence + " came back to its producer before it was read");
            }
            if (!message.inShared())
            {
                copied.incrementAndGet();
                if (!copies)
                {
                    problems.add("message " + sequence + " was copied, not referenced");
                }
            }
            if (message.segmentCount() != 1 || crc(message.segment(0)) != feed.crcs.get(sequence))
            {
                problems.add("message " + sequence + " is not what its producer wrote");
            }
            taken.incrementAndGet();
            if (sequence == keep)
            {
                kept = message;
            }
            else
            {
                message.close();
            }
        }

        @Override
        public void onHalfClose()
        {
            ((InboundStream)stream).complete();
            finished.complete(null);
        }

        @Override
        public void onComplete(final Metadata trailers)
        {
            finished.complete(null);
        }

        @Override
        public void onError(final Throwable error)
        {
            problems.add("failed: " + error);
            finished.completeExceptionally(error);
        }
    }

    /** Binds a portal whose streams a {@link Checker} consumes, asking first for {@code demand} messages. */
    private Session open(final SharedFeed feed, final long keep, final long demand, final boolean copies,
        final CompletableFuture<Checker> consumer)
    {
        return open(feed, keep, demand, copies, consumer, SessionOptions.DEFAULT);
    }

    private Session open(final SharedFeed feed, final long keep, final long demand, final boolean copies,
        final CompletableFuture<Checker> consumer, final SessionOptions options)
    {
        server.register("sink", new RequestHandler()
        {
            @Override
            public void onRequest(final InboundRequest request)
            {
                request.message().close();
                request.fail(new IllegalStateException("streams only"));
            }

            @Override
            public void onStream(final InboundStream stream)
            {
                stream.open().close();
                final Checker checker = new Checker(stream, feed, keep, copies);
                stream.start(checker);
                if (demand > 0)
                {
                    stream.request(demand);
                }
                consumer.complete(checker);
            }
        });
        final Portal portal = server.bind("shm://" + name);
        return client.connect(portal.uri().withResource("sink").toString(), options);
    }

    @Test
    void mebibyteMessagesGoByReferenceInOrderAndEachComesBackOnlyOnceItsConsumerClosedIt() throws Exception
    {
        final int count = 48;
        final SharedFeed feed = new SharedFeed(client);
        final CompletableFuture<Checker> consumer = new CompletableFuture<>();
        try (Session session = open(feed, 1, Long.MAX_VALUE, false, consumer))
        {
            final long before = client.statistics().bytesSent();
            final StreamCall call = session.openStream(Outbound.empty(), feed);
            feed.send(call, count, call::halfClose);
            feed.done.get(60, TimeUnit.SECONDS);
            final Checker checker = consumer.get(0, TimeUnit.SECONDS);
            assertThat(checker.problems).isEmpty();
            assertThat(checker.taken.get()).isEqualTo(count);
            // A reference is a few dozen bytes in the ring; the mebibytes stay where the producer wrote them.
            assertThat(client.statistics().bytesSent() - before).as("bytes the client wrote into its ring")
                .isLessThan(count * 512L);

            await().atMost(Duration.ofSeconds(30)).until(() -> feed.released.get() == count - 1);
            // the first message is still open at the consumer: its slot stays lent, whatever was acknowledged
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
                .until(() -> feed.released.get() == count - 1);
            assertThat(feed.free).hasSize(SLOTS - 1);
            checker.kept.close();
            await().atMost(Duration.ofSeconds(30)).until(() -> feed.released.get() == count);
            assertThat(feed.free).hasSize(SLOTS);
        }
        assertThat(client.freeShared(feed.region)).isTrue();
    }

    @Test
    void messagesHeldAcrossConnectionKillsArriveExactlyOnceInOrderAndIntact() throws Exception
    {
        final int count = 240;
        final SharedFeed feed = new SharedFeed(client);
        final CompletableFuture<Checker> consumer = new CompletableFuture<>();
        try (Session session = open(feed, 0, WINDOW, true, consumer))
        {
            final StreamCall call = session.openStream(Outbound.empty(), feed);
            final Checker checker = consumer.get(30, TimeUnit.SECONDS);
            final AtomicLong kills = new AtomicLong();
            final Thread killer = killer(session, checker.finished, kills, () -> checker.stream.request(WINDOW));
            try
            {
                feed.send(call, count, call::halfClose);
                feed.done.get(100, TimeUnit.SECONDS);
            }
            finally
            {
                killer.interrupt();
                killer.join();
            }
            assertThat(checker.problems).isEmpty();
            assertThat(checker.taken.get()).isEqualTo(count);
            assertThat(checker.copied.get()).as("messages copied").isLessThan(count);
            assertThat(kills.get()).isGreaterThanOrEqualTo(10);
            await().atMost(Duration.ofSeconds(20)).until(() -> server.openStreams() + client.openStreams() == 0);
            await().atMost(Duration.ofSeconds(30)).until(() -> feed.released.get() == count);
            assertThat(feed.free).hasSize(SLOTS);
        }
    }

    /**
     * Kills every connection of {@code session} every 100 ms until {@code until} is done, counting the kills, and half
     * way between kills runs {@code ask} (the consumer asks for another window): the window after it arrives
     * meanwhile and waits unread while its connection goes and the stream resumes on the next.
     */
    private static Thread killer(final Session session, final CompletableFuture<?> until, final AtomicLong kills,
        final Runnable ask)
    {
        final Thread killer = new Thread(() ->
        {
            try
            {
                while (!until.isDone())
                {
                    Thread.sleep(50);
                    session.abortConnections();
                    kills.incrementAndGet();
                    Thread.sleep(50);
                    ask.run();
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }, "connection-killer");
        killer.setDaemon(true);
        killer.start();
        return killer;
    }

    /**
     * The acceptor produces: its end arrives while the opener still holds messages by reference, which are copied, so
     * that the end is acknowledged at once and the acceptor's stream is over well before its end's wait runs out.
     */
    @Test
    void aServerStreamHeldAcrossConnectionKillsCompletesAndItsEndIsAcknowledged() throws Exception
    {
        final int count = 160;
        final SharedFeed feed = new SharedFeed(server);
        final CompletableFuture<InboundStream> accepted = source();
        final Portal portal = server.bind("shm://" + name);
        try (Session session = client.connect(portal.uri().withResource("source").toString()))
        {
            final Checker checker = new Checker(null, feed, 0, true);
            final StreamCall call = session.openStream(Outbound.empty(), checker);
            call.request(WINDOW);
            final InboundStream stream = accepted.get(30, TimeUnit.SECONDS);
            stream.start(feed);
            final AtomicLong kills = new AtomicLong();
            final Thread killer = killer(session, checker.finished, kills, () -> call.request(WINDOW));
            try
            {
                feed.send(stream, count, stream::complete);
                checker.finished.get(100, TimeUnit.SECONDS);
            }
            finally
            {
                killer.interrupt();
                killer.join();
            }
            assertThat(checker.problems).isEmpty();
            assertThat(checker.taken.get()).isEqualTo(count);
            assertThat(checker.copied.get()).as("messages copied").isLessThan(count);
            assertThat(kills.get()).isGreaterThanOrEqualTo(10);
            await().atMost(Duration.ofSeconds(20)).until(() -> server.openStreams() + client.openStreams() == 0);
            await().atMost(Duration.ofSeconds(30)).until(() -> feed.released.get() == count);
            assertThat(feed.free).hasSize(SLOTS);
        }
    }

    /**
     * A window of the acceptor's messages waits unread at the opener when the acceptor's end arrives: they are copied
     * there, so the end is acknowledged at once and their buffers are the producer's again, which may write into them
     * before the opener reads the messages.
     */
    @Test
    void messagesWaitingUnreadWhenTheEndArrivesAreCopiedAndTheEndIsAcknowledgedAtOnce() throws Exception
    {
        final SharedFeed feed = new SharedFeed(server);
        final CompletableFuture<InboundStream> accepted = source();
        final Portal portal = server.bind("shm://" + name);
        try (Session session = client.connect(portal.uri().withResource("source").toString()))
        {
            final Checker checker = new Checker(null, feed, 0, true);
            final StreamCall call = session.openStream(Outbound.empty(), checker);
            final InboundStream stream = accepted.get(30, TimeUnit.SECONDS);
            stream.start(feed);
            feed.send(stream, WINDOW, stream::complete);
            await().atMost(Duration.ofSeconds(10)).until(() -> server.openStreams() == 0 &&
                feed.released.get() == WINDOW);
            assertThat(checker.taken.get()).as("messages read").isZero();
            scribble(feed);
            call.request(WINDOW);
            checker.finished.get(30, TimeUnit.SECONDS);
            assertThat(checker.problems).isEmpty();
            assertThat(checker.taken.get()).isEqualTo(WINDOW);
            assertThat(checker.copied.get()).isEqualTo(WINDOW);
        }
        assertThat(server.freeShared(feed.region)).isTrue();
    }

    /**
     * A window of the opener's messages waits unread at the acceptor when the connection goes: they are copied there,
     * so the stream's resume acknowledges them and their buffers are the producer's again before they are read.
     */
    @Test
    void messagesWaitingUnreadWhenTheConnectionGoesAreCopiedAndComeBackOnResume() throws Exception
    {
        final SharedFeed feed = new SharedFeed(client);
        final CompletableFuture<Checker> consumer = new CompletableFuture<>();
        try (Session session = open(feed, 0, 0, true, consumer, SessionOptions.DEFAULT.withConnections(1)))
        {
            await().atMost(Duration.ofSeconds(10)).until(() -> session.connectionCount() == 1);
            final long before = server.statistics().framesReceived();
            final StreamCall call = session.openStream(Outbound.empty(), feed);
            final Checker checker = consumer.get(30, TimeUnit.SECONDS);
            feed.send(call, WINDOW, () -> { });
            // the open, the opener's first credit, then the window
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(server.statistics()
                .framesReceived() - before).as("frames the server received").isGreaterThanOrEqualTo(WINDOW + 2));
            assertThat(feed.released.get()).as("messages back before the connection went").isZero();
            session.abortConnections();
            await().atMost(Duration.ofSeconds(20)).until(() -> feed.released.get() == WINDOW);
            assertThat(checker.taken.get()).as("messages read").isZero();
            scribble(feed);
            checker.stream.request(WINDOW);
            call.halfClose();
            feed.done.get(30, TimeUnit.SECONDS);
            assertThat(checker.problems).isEmpty();
            assertThat(checker.taken.get()).isEqualTo(WINDOW);
            assertThat(checker.copied.get()).isEqualTo(WINDOW);
        }
        assertThat(client.freeShared(feed.region)).isTrue();
    }

    /** Writes over every slot of the producer's buffer, as a producer reusing them would. */
    private static void scribble(final SharedFeed feed)
    {
        for (int slot = 0; slot < SLOTS; slot++)
        {
            fill(feed.region.slice(slot * MIB, MIB), -1);
        }
    }

    /** Registers a portal's resource whose streams the test starts itself. */
    private CompletableFuture<InboundStream> source()
    {
        final CompletableFuture<InboundStream> accepted = new CompletableFuture<>();
        server.register("source", new RequestHandler()
        {
            @Override
            public void onRequest(final InboundRequest request)
            {
                request.message().close();
                request.fail(new IllegalStateException("streams only"));
            }

            @Override
            public void onStream(final InboundStream stream)
            {
                stream.open().close();
                accepted.complete(stream);
            }
        });
        return accepted;
    }
}
