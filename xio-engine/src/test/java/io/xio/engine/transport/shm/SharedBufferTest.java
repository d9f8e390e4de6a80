package io.xio.engine.transport.shm;

import io.xio.engine.InboundRequest;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32;

import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Large messages from {@link XioEngine#allocateShared} buffers: by reference over shm, by copy elsewhere. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SharedBufferTest
{
    private static final Path DIR = new ShmTransport().directory();
    private static final int MIB = 1 << 20;
    private final TestEngines engines = new TestEngines();
    private final String name = "t-" + UUID.randomUUID().toString().substring(0, 13);
    /** What the handler saw of each request: whether its data was a view into shared memory, and its checksum. */
    private final BlockingQueue<Seen> seen = new LinkedBlockingQueue<>();
    /** Requests the handler answered but left open: the sender's buffer is lent until they close. */
    private final BlockingQueue<InboundRequest> held = new LinkedBlockingQueue<>();

    private record Seen(boolean inShared, boolean readOnly, long crc, int length)
    {
    }

    @AfterEach
    void close() throws IOException
    {
        engines.close();
        assertThat(sharedFiles()).as("shared buffer files left in " + DIR).isEmpty();
        assertThat(ringFiles()).as("files left in " + DIR).isEmpty();
    }

    static List<Path> sharedFiles() throws IOException
    {
        try (Stream<Path> all = Files.list(DIR))
        {
            return all.filter(p -> p.getFileName().toString().startsWith("xio-shared-" +
                ProcessHandle.current().pid() + "-")).toList();
        }
    }

    private List<Path> ringFiles() throws IOException
    {
        try (Stream<Path> all = Files.list(DIR))
        {
            return all.filter(p -> p.getFileName().toString().startsWith("xio-" + name)).toList();
        }
    }

    private XioEngine server(final boolean holdRequests)
    {
        final XioEngine server = engines.start("shared-server");
        server.register("look", request ->
        {
            final Message message = request.message();
            final ByteBuffer data = message.segment(0);
            seen.add(new Seen(message.inShared(), data.isReadOnly(), crc(data), data.remaining()));
            if (holdRequests)
            {
                request.respond(Outbound.of(utf8("ok")));
                held.add(request);
            }
            else
            {
                request.respond(Outbound.of(utf8("ok")).releaseAfterSend(message));
            }
        });
        return server;
    }

    private static long crc(final ByteBuffer data)
    {
        final CRC32 crc = new CRC32();
        crc.update(data.duplicate());
        return crc.getValue();
    }

    private static ByteBuffer fill(final ByteBuffer buffer, final int seed)
    {
        for (int i = 0; i < buffer.capacity(); i++)
        {
            buffer.put(i, (byte)(i * 31 + seed));
        }
        return buffer;
    }

    @Test
    void aMebibyteFromASharedBufferArrivesOverShmAsAReadOnlyViewAndTheSendWaitsForTheReceiversClose() throws Exception
    {
        final XioEngine server = server(true);
        final XioEngine client = engines.start("shared-client");
        final ByteBuffer payload = fill(client.allocateShared(MIB), 7);
        assertThat(payload.isDirect()).isTrue();
        assertThat(sharedFiles()).hasSize(1);
        final Portal portal = server.bind("shm://" + name);
        try (Session session = client.connect(portal.uri().withResource("look").toString()))
        {
            for (int round = 0; round < 3; round++)
            {
                fill(payload, round);
                final long expected = crc(payload);
                final XioFuture<Message> response = session.request(Outbound.of(utf8("h"), payload.duplicate()));
                final Seen first = seen.poll(10, TimeUnit.SECONDS);
                assertThat(first).isEqualTo(new Seen(true, true, expected, MIB));
                final InboundRequest request = held.poll(10, TimeUnit.SECONDS);
                // The response is in, but the server still reads the sender's bytes: the call is not over.
                await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !response.isDone());
                request.message().close();
                response.get(10, TimeUnit.SECONDS).close();
            }
        }
        assertThat(client.freeShared(payload)).isTrue();
        assertThat(sharedFiles()).isEmpty();
        assertThat(client.freeShared(payload)).isFalse();
    }

    @Test
    void aSegmentInPartOfASharedBufferArrivesIntactAndFilesGoWhenTheEngineCloses() throws Exception
    {
        final XioEngine server = server(false);
        final XioEngine client = engines.start("shared-client");
        final ByteBuffer payload = fill(client.allocateShared(4 * MIB), 3);
        final Portal portal = server.bind("shm://" + name);
        try (Session session = client.connect(portal.uri().withResource("look").toString()))
        {
            final ByteBuffer part = payload.slice(MIB + 5, 2 * MIB);
            @SuppressWarnings("unchecked")
            final XioFuture<Message>[] calls = new XioFuture[4];
            for (int i = 0; i < calls.length; i++)
            {
                calls[i] = session.request(Outbound.of(utf8("h"), part.duplicate()));
            }
            for (final XioFuture<Message> call : calls)
            {
                call.get(10, TimeUnit.SECONDS).close();
                assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo(new Seen(true, true, crc(part), 2 * MIB));
            }
        }
        assertThat(sharedFiles()).hasSize(1);
        engines.close();
        assertThat(sharedFiles()).isEmpty();
    }

    @Test
    void aSharedRequestLeavesBeforeTheSendingTaskEndsItsTurn() throws Exception
    {
        final XioEngine server = server(false);
        final XioEngine client = engines.start(engines.builder("shared-client").contexts(1));
        final ByteBuffer payload = fill(client.allocateShared(MIB), 5);
        final Portal portal = server.bind("shm://" + name);
        try (Session session = client.connect(portal.uri().withResource("look").toString()))
        {
            session.request(Outbound.of(utf8("h"), payload.duplicate())).get(10, TimeUnit.SECONDS).close();
            assertThat(seen.poll(10, TimeUnit.SECONDS)).isNotNull();
            // The task holds the client's only loop turn until the server saw the request: a reference frame
            // kept for the end of the turn would never arrive.
            final BlockingQueue<Object> outcome = new LinkedBlockingQueue<>();
            client.contexts().get(0).execute(() ->
            {
                final XioFuture<Message> call = session.request(Outbound.of(utf8("h"), payload.duplicate()));
                try
                {
                    final Seen arrived = seen.poll(5, TimeUnit.SECONDS);
                    outcome.add(arrived == null ? "not sent within the turn" : arrived);
                }
                catch (final InterruptedException ex)
                {
                    outcome.add(ex);
                }
                call.whenComplete((reply, error) ->
                {
                    if (reply != null)
                    {
                        reply.close();
                    }
                });
            });
            assertThat(outcome.poll(10, TimeUnit.SECONDS)).isEqualTo(new Seen(true, true, crc(payload), MIB));
        }
    }

    @Test
    void aSharedBufferFileOfADeadProcessIsRemovedByTheNextProcessThatAllocatesOne() throws Exception
    {
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        final Path stale = Files.createFile(DIR.resolve("xio-shared-" + gone.pid() + "-1-0123456789abcdef.buf"));
        try
        {
            final XioEngine client = engines.start("shared-client");
            client.allocateShared(4096);
            assertThat(stale).doesNotExist();
        }
        finally
        {
            Files.deleteIfExists(stale);
        }
    }

    @Test
    void overTcpASharedBufferIsSentByCopy() throws Exception
    {
        final XioEngine server = server(false);
        final XioEngine client = engines.start("shared-client");
        final ByteBuffer payload = fill(client.allocateShared(MIB), 11);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        try (Session session = client.connect(portal.uri().withResource("look").toString()))
        {
            session.request(Outbound.of(utf8("h"), payload.duplicate())).get(10, TimeUnit.SECONDS).close();
            assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo(new Seen(false, false, crc(payload), MIB));
        }
    }

    @Test
    void anOrdinaryDirectBufferGoesOverShmByCopy() throws Exception
    {
        final XioEngine server = server(false);
        final XioEngine client = engines.start("shared-client");
        final ByteBuffer payload = fill(ByteBuffer.allocateDirect(MIB), 5);
        final Portal portal = server.bind("shm://" + name);
        try (Session session = client.connect(portal.uri().withResource("look").toString()))
        {
            session.request(Outbound.of(utf8("h"), payload.duplicate())).get(10, TimeUnit.SECONDS).close();
            assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo(new Seen(false, false, crc(payload), MIB));
        }
    }
    @Test
    void aSharedResponseIntoAnOutputBufferLandsInThatBuffer() throws Exception
    {
        final XioEngine server = engines.start("shared-server");
        final ByteBuffer answer = fill(server.allocateShared(MIB), 9);
        server.register("give", request -> request.respond(Outbound.of(utf8("r"), answer.duplicate())
            .releaseAfterSend(request.message())));
        final XioEngine client = engines.start("shared-client");
        final Portal portal = server.bind("shm://" + name);
        final ByteBuffer output = ByteBuffer.allocateDirect(MIB);
        try (Session session = client.connect(portal.uri().withResource("give").toString());
            Message response = session.request(Outbound.of(utf8("q")).responseInto(output)).get(10, TimeUnit.SECONDS))
        {
            assertThat(response.inOutput()).isTrue();
            // inOutput() says the data is in our output buffer: it must be there, not only in the server's region
            assertThat(crc(output.duplicate().clear())).isEqualTo(crc(answer));
        }
    }

    @Test
    void theAllocationFreeWayReadsASharedRequestsBytes() throws Exception
    {
        final XioEngine server = engines.start("shared-server");
        final BlockingQueue<byte[]> read = new LinkedBlockingQueue<>();
        server.register("read", request ->
        {
            final Message message = request.message();
            final byte[] bytes = new byte[64];
            try
            {
                message.segmentBuffer(0).getBytes(message.segmentOffset(0), bytes);
            }
            catch (final RuntimeException ex)
            {
                bytes[0] = -1;
                bytes[1] = -1;
            }
            read.add(bytes);
            request.respond(Outbound.of(utf8("ok")).releaseAfterSend(message));
        });
        final XioEngine client = engines.start("shared-client");
        final ByteBuffer payload = fill(client.allocateShared(MIB), 1);
        final Portal portal = server.bind("shm://" + name);
        try (Session session = client.connect(portal.uri().withResource("read").toString()))
        {
            session.request(Outbound.of(utf8("h"), payload.slice(4096, 64 << 10))).get(10, TimeUnit.SECONDS).close();
            final byte[] expected = new byte[64];
            payload.get(4096, expected);
            assertThat(read.poll(10, TimeUnit.SECONDS)).isEqualTo(expected);
        }
    }

    @Test
    void aCallWhoseReceiverNeverClosesTheRequestEndsAfterTheWriteStallTimeout() throws Exception
    {
        final XioEngine server = server(true);
        server.register("echo", TestEngines.ECHO);
        final XioEngine client = engines.start(engines.builder("shared-client")
            .limits(TestEngines.LIMITS.withWriteStallTimeout(Duration.ofSeconds(1))));
        final ByteBuffer payload = fill(client.allocateShared(MIB), 2);
        final Portal portal = server.bind("shm://" + name);
        try (Session session = client.connect(portal.uri().withResource("look").toString()))
        {
            final XioFuture<Message> response = session.request(Outbound.of(utf8("h"), payload.duplicate()),
                io.xio.engine.CallOptions.timeout(Duration.ofSeconds(1)));
            assertThat(seen.poll(10, TimeUnit.SECONDS)).isNotNull();
            // the server answered but keeps (leaks) the request: the release deadline cuts the link, and the call
            // ends with the answer that had come (the send completed as not written)
            await().atMost(Duration.ofSeconds(10)).until(response::isDone);
            try (Message answer = response.get(0, TimeUnit.SECONDS))
            {
                assertThat(TestEngines.text(answer.header())).isEqualTo("ok");
            }
            assertThat(client.refusals(io.xio.engine.PeerRefusal.SHARED_RELEASE)).isEqualTo(1);
        }
        final XioEngine other = engines.start("shared-other");
        try (Session session = other.connect(portal.uri().withResource("echo").toString()))
        {
            session.request(Outbound.of(utf8("still here"))).get(10, TimeUnit.SECONDS).close();
        }
        held.forEach(request -> request.message().close());
    }

    @Test
    void requestsClosedOnManyThreadsAtOnceAllComplete() throws Exception
    {
        final XioEngine server = server(true);
        final XioEngine client = engines.start("shared-client");
        final ByteBuffer payload = fill(client.allocateShared(4 * MIB), 4);
        final Portal portal = server.bind("shm://" + name);
        final int threads = 8;
        final int calls = 32;
        try (Session session = client.connect(portal.uri().withResource("look").toString()))
        {
            for (int round = 0; round < 20; round++)
            {
                @SuppressWarnings("unchecked")
                final XioFuture<Message>[] responses = new XioFuture[calls];
                for (int i = 0; i < calls; i++)
                {
                    responses[i] = session.request(Outbound.of(utf8("h"), payload.slice(i * (32 << 10), 32 << 10)));
                }
                final InboundRequest[] requests = new InboundRequest[calls];
                for (int i = 0; i < calls; i++)
                {
                    requests[i] = held.poll(10, TimeUnit.SECONDS);
                    assertThat(requests[i]).isNotNull();
                }
                seen.clear();
                final java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
                final Thread[] closers = new Thread[threads];
                for (int t = 0; t < threads; t++)
                {
                    final int first = t;
                    closers[t] = new Thread(() ->
                    {
                        try
                        {
                            start.await();
                        }
                        catch (final Exception ex)
                        {
                            throw new AssertionError(ex);
                        }
                        for (int i = first; i < calls; i += threads)
                        {
                            requests[i].message().close();
                        }
                    });
                    closers[t].start();
                }
                for (final Thread closer : closers)
                {
                    closer.join();
                }
                for (final XioFuture<Message> response : responses)
                {
                    response.get(10, TimeUnit.SECONDS).close();
                }
            }
        }
    }
}
