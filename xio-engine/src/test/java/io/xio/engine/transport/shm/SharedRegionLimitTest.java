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
import io.xio.engine.SessionEvent;
import io.xio.engine.SessionOptions;
import io.xio.engine.StreamCall;
import io.xio.engine.StreamLimits;
import io.xio.engine.StreamListener;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32;

import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * More shared buffers on one shm connection than a receiver maps ({@link ShmShared#MAX_REGIONS}): the data of the
 * buffers beyond it goes by copy, and the connection stays up, for calls and for streams (also when a stream resumes
 * with more unacknowledged messages, each in its own buffer, than that).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SharedRegionLimitTest
{
    private static final int BUFFERS = ShmShared.MAX_REGIONS + 16;
    private static final int BYTES = 16 << 10;

    private final TestEngines engines = new TestEngines();
    private final String name = "t-" + UUID.randomUUID().toString().substring(0, 13);
    /** The client session's connection events: a connection lost is a RECONNECTING. */
    private final List<SessionEvent> events = new CopyOnWriteArrayList<>();
    private XioEngine server;
    private XioEngine client;

    /** What a receiver saw of one message: whether it viewed the sender's buffer, and what it held. */
    private record Seen(long sequence, boolean inShared, long crc)
    {
    }

    @BeforeEach
    void startEngines()
    {
        final Limits limits = TestEngines.LIMITS.withStreams(StreamLimits.builder().windowMessages(2 * BUFFERS)
            .windowBytes(2 * BUFFERS * BYTES).build());
        server = engines.start(engines.builder("server").limits(limits));
        client = engines.start(engines.builder("client").limits(limits));
    }

    @AfterEach
    void closeEngines() throws Exception
    {
        engines.close();
        assertThat(SharedBufferTest.sharedFiles()).as("shared buffer files left").isEmpty();
    }

    private static ByteBuffer filled(final XioEngine engine, final long sequence)
    {
        final ByteBuffer buffer = engine.allocateShared(BYTES);
        for (int i = 0; i < BYTES; i += 8)
        {
            buffer.putLong(i, sequence * 0x9E3779B97F4A7C15L + i);
        }
        return buffer;
    }

    private static long crc(final ByteBuffer data)
    {
        final CRC32 crc = new CRC32();
        crc.update(data.duplicate());
        return crc.getValue();
    }

    private static Seen seen(final Message message)
    {
        return new Seen(message.header().getLong(message.header().position()), message.inShared(),
            crc(message.segment(0)));
    }

    private static Outbound message(final long sequence, final ByteBuffer data)
    {
        return Outbound.of(ByteBuffer.allocate(8).putLong(0, sequence), data.duplicate());
    }

    private Session connect(final String resource)
    {
        final Portal portal = server.bind("shm://" + name);
        return client.connect(portal.uri().withResource(resource).toString(),
            SessionOptions.DEFAULT.withConnections(1).withListener(events::add));
    }

    private long lostConnections()
    {
        return events.stream().filter(e -> e.type() == SessionEvent.Type.RECONNECTING).count();
    }

    @Test
    void callsFromMoreSharedBuffersThanAPeerMapsArriveIntactAndTheOnesBeyondGoByCopy() throws Exception
    {
        final BlockingQueue<Seen> seen = new LinkedBlockingQueue<>();
        server.register("look", request ->
        {
            seen.add(seen(request.message()));
            request.respond(Outbound.of(utf8("ok")).releaseAfterSend(request.message()));
        });
        try (Session session = connect("look"))
        {
            for (long sequence = 1; sequence <= BUFFERS; sequence++)
            {
                final ByteBuffer buffer = filled(client, sequence);
                final long before = client.statistics().bytesSent();
                session.request(message(sequence, buffer)).get(10, TimeUnit.SECONDS).close();
                final long sent = client.statistics().bytesSent() - before;
                final boolean byReference = sequence <= ShmShared.MAX_REGIONS;
                assertThat(seen.poll(10, TimeUnit.SECONDS)).as("request %d", sequence)
                    .isEqualTo(new Seen(sequence, byReference, crc(buffer)));
                if (byReference)
                {
                    assertThat(sent).as("bytes written for request %d", sequence).isLessThan(BYTES / 4);
                }
                else
                {
                    assertThat(sent).as("bytes written for request %d", sequence).isGreaterThan(BYTES);
                }
                assertThat(client.freeShared(buffer)).isTrue();
            }
            assertThat(lostConnections()).as("connections lost: %s", events).isZero();
        }
    }

    /** The consumer: what each message held, closed at once; the acceptor's completes at the opener's half-close. */
    private static final class Consumer implements StreamListener
    {
        final AtomicReference<InboundStream> stream = new AtomicReference<>();
        final ConcurrentLinkedQueue<Seen> seen = new ConcurrentLinkedQueue<>();

        @Override
        public void onMessage(final Message message)
        {
            try (message)
            {
                seen.add(seen(message));
            }
        }

        @Override
        public void onHalfClose()
        {
            stream.get().complete();
        }

        @Override
        public void onError(final Throwable error)
        {
            seen.add(new Seen(-1, false, 0));
        }
    }

    /** The producer's side: releases of its messages, and the stream's end. */
    private static final class Producer implements StreamListener
    {
        final BlockingQueue<Long> released = new LinkedBlockingQueue<>();
        final CompletableFuture<Metadata> done = new CompletableFuture<>();

        Outbound message(final long sequence, final ByteBuffer data)
        {
            return SharedRegionLimitTest.message(sequence, data).releaseAfterSend(() -> released.add(sequence));
        }

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
    }

    /** Registers the stream sink, asking for {@code demand} messages at first. */
    private Consumer sink(final long demand)
    {
        final Consumer consumer = new Consumer();
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
                consumer.stream.set(stream);
                stream.start(consumer);
                if (demand > 0)
                {
                    stream.request(demand);
                }
            }
        });
        return consumer;
    }

    /** Messages 1.. with {@code crcs}, the first {@code byReference} of them read in the sender's buffer. */
    private static List<Seen> expected(final List<Long> crcs, final int byReference)
    {
        final List<Seen> all = new ArrayList<>();
        for (int i = 0; i < crcs.size(); i++)
        {
            all.add(new Seen(i + 1, i < byReference, crcs.get(i)));
        }
        return all;
    }

    @Test
    void streamMessagesFromMoreSharedBuffersThanAPeerMapsArriveIntactAndTheOnesBeyondGoByCopy() throws Exception
    {
        final Consumer consumer = sink(Long.MAX_VALUE);
        final Producer producer = new Producer();
        final List<Long> crcs = new ArrayList<>();
        final List<ByteBuffer> buffers = new ArrayList<>();
        try (Session session = connect("sink"))
        {
            final StreamCall call = session.openStream(Outbound.empty(), producer);
            await().atMost(Duration.ofSeconds(10)).until(call::isReady); // the acceptor's first credit came
            for (long sequence = 1; sequence <= BUFFERS; sequence++)
            {
                final ByteBuffer buffer = filled(client, sequence);
                buffers.add(buffer);
                crcs.add(crc(buffer));
                final long before = client.statistics().bytesSent();
                assertThat(call.offer(producer.message(sequence, buffer))).isTrue();
                final int read = (int)sequence;
                await().atMost(Duration.ofSeconds(10)).until(() -> consumer.seen.size() == read);
                final long sent = client.statistics().bytesSent() - before;
                if (sequence <= ShmShared.MAX_REGIONS)
                {
                    assertThat(sent).as("bytes written for message %d", sequence).isLessThan(BYTES / 4);
                }
                else
                {
                    assertThat(sent).as("bytes written for message %d", sequence).isGreaterThan(BYTES);
                }
            }
            call.halfClose();
            producer.done.get(30, TimeUnit.SECONDS);
            // acknowledged as the consumer's credit (half a window) or its end's acknowledgement says
            for (int i = 0; i < BUFFERS; i++)
            {
                final Long sequence = producer.released.poll(10, TimeUnit.SECONDS);
                assertThat(sequence).as("a message released").isNotNull();
                assertThat(client.freeShared(buffers.get((int)(sequence - 1)))).isTrue();
            }
            assertThat(consumer.seen).containsExactlyElementsOf(expected(crcs, ShmShared.MAX_REGIONS));
            assertThat(lostConnections()).as("connections lost: %s", events).isZero();
        }
    }

    /**
     * The consumer reads nothing while the stream's connection is lost: every message is unacknowledged (held by
     * reference), so the stream resumes on the next connection with all of them to send again, more buffers than the
     * peer maps; then it reads them.
     */
    @Test
    void aStreamResumingWithMoreUnacknowledgedSharedBuffersThanAPeerMapsResumesOnce() throws Exception
    {
        final Consumer consumer = sink(0);
        final Producer producer = new Producer();
        final List<Long> crcs = new ArrayList<>();
        final List<ByteBuffer> buffers = new ArrayList<>();
        try (Session session = connect("sink"))
        {
            await().atMost(Duration.ofSeconds(10)).until(() -> session.connectionCount() == 1);
            final long framesBefore = server.statistics().framesReceived();
            final StreamCall call = session.openStream(Outbound.empty(), producer);
            await().atMost(Duration.ofSeconds(10)).until(call::isReady); // the acceptor's first credit came
            for (long sequence = 1; sequence <= BUFFERS; sequence++)
            {
                final ByteBuffer buffer = filled(client, sequence);
                buffers.add(buffer);
                crcs.add(crc(buffer));
                assertThat(call.offer(producer.message(sequence, buffer))).isTrue();
            }
            // the open, the opener's first credit, then every message
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(server.statistics()
                .framesReceived() - framesBefore).as("frames the server received").isGreaterThanOrEqualTo(BUFFERS + 2));
            session.abortConnections();
            await().atMost(Duration.ofSeconds(10)).until(() -> events.stream()
                .anyMatch(e -> e.type() == SessionEvent.Type.RECONNECTED));
            // every message again on the new connection, the ones beyond the peer's regions by copy
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(server.statistics()
                .framesReceived() - framesBefore).as("frames the server received")
                .isGreaterThanOrEqualTo(2 * BUFFERS + 2));
            consumer.stream.get().request(Long.MAX_VALUE);
            for (int i = 0; i < BUFFERS; i++)
            {
                final Long sequence = producer.released.poll(10, TimeUnit.SECONDS);
                assertThat(sequence).as("a message released").isNotNull();
                assertThat(client.freeShared(buffers.get((int)(sequence - 1)))).isTrue();
            }
            call.halfClose();
            producer.done.get(30, TimeUnit.SECONDS);
            // held when the connection went: copied then
            assertThat(consumer.seen).containsExactlyElementsOf(expected(crcs, 0));
            assertThat(lostConnections()).as("connections lost: %s", events).isEqualTo(1);
        }
    }
}
