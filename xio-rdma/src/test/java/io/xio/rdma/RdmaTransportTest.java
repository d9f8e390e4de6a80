package io.xio.rdma;

import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.SessionEvent;
import io.xio.engine.SessionOptions;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioFuture;
import io.xio.engine.transport.ServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What only RDMA shows: large data read one-sidedly instead of sent, registered application buffers,
 * credits running out against a stalled receiver, a peer process that dies. Needs an RDMA device.
 */
@Tag("rdma")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RdmaTransportTest
{
    private final TestEngines engines = new TestEngines();
    private ServerProcess child;

    @AfterEach
    void close() throws Exception
    {
        if (child != null)
        {
            child.close();
        }
        engines.close();
    }

    private static String portal()
    {
        return "rdma://" + RdmaTestAddress.ip() + ":0";
    }

    private static ByteBuffer pattern(final int length, final int seed)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(length);
        for (int i = 0; i < length; i++)
        {
            buffer.put(i, (byte)(i * 31 + seed));
        }
        return buffer;
    }

    private static long crc(final ByteBuffer buffer)
    {
        final CRC32C crc = new CRC32C();
        crc.update(buffer.duplicate());
        return crc.getValue();
    }

    @Test
    void largeSegmentsAreReadByThePeerNotSentThroughReceiveSlots() throws Exception
    {
        final XioEngine server = engines.start("server");
        final XioEngine client = engines.start("client");
        server.register("sum", request ->
        {
            try (Message message = request.message())
            {
                final ByteBuffer data = message.segment(0);
                request.respond(Outbound.of(ByteBuffer.allocate(12).putInt(0, data.remaining()).putLong(4, crc(data))));
            }
        });
        final Portal portal = server.bind(portal());
        try (Session session = client.connect(portal.uri().withResource("sum").toString()))
        {
            final int size = 1 << 20;
            final long before = client.statistics().bytesSent();
            for (int i = 0; i < 8; i++)
            {
                final ByteBuffer data = pattern(size, i);
                try (Message reply = session.request(Outbound.of(utf8("sum"), data)).get(60, TimeUnit.SECONDS))
                {
                    assertThat(reply.header().getInt(0)).isEqualTo(size);
                    assertThat(reply.header().getLong(4)).isEqualTo(crc(data));
                }
            }
            // 8 MiB went over; what the client itself posted were descriptors and frame headers
            assertThat(client.statistics().bytesSent() - before).isLessThan(64 << 10);
        }
    }

    @Test
    void registeredApplicationBuffersTravelWithoutACopyBothWays() throws Exception
    {
        final XioEngine server = engines.start("server");
        final XioEngine client = engines.start("client");
        final ByteBuffer reply = server.registerMemory(pattern(2 << 20, 7));
        server.register("fetch", request ->
        {
            request.message().close();
            request.respond(Outbound.of(utf8("here"), reply.duplicate()));
        });
        final Portal portal = server.bind(portal());
        final ByteBuffer upload = client.registerMemory(pattern(2 << 20, 3));
        try (Session session = client.connect(portal.uri().withResource("fetch").toString()))
        {
            final long serverBefore = server.statistics().bytesSent();
            final long clientBefore = client.statistics().bytesSent();
            for (int i = 0; i < 4; i++)
            {
                try (Message message = session.request(Outbound.of(utf8("get"), upload.duplicate()))
                    .get(60, TimeUnit.SECONDS))
                {
                    assertThat(text(message.header())).isEqualTo("here");
                    assertThat(crc(message.segment(0))).isEqualTo(crc(reply));
                }
            }
            assertThat(server.statistics().bytesSent() - serverBefore).isLessThan(64 << 10);
            assertThat(client.statistics().bytesSent() - clientBefore).isLessThan(64 << 10);

            // unregistered, the buffer is registered per transfer again: still no copy, same bytes
            assertThat(client.unregisterMemory(upload)).isTrue();
            assertThat(client.unregisterMemory(upload)).isFalse();
            try (Message message = session.request(Outbound.of(utf8("get"), upload.duplicate()))
                .get(60, TimeUnit.SECONDS))
            {
                assertThat(crc(message.segment(0))).isEqualTo(crc(reply));
            }
        }
    }

    @Test
    void responsesAreWrittenStraightIntoTheRequestersRegisteredOutputBuffer() throws Exception
    {
        final XioEngine server = engines.start("server");
        final XioEngine client = engines.start("client");
        final ByteBuffer registered = server.registerMemory(pattern(256 << 10, 1)); // sent from where it is
        final ByteBuffer unregistered = pattern(100 << 10, 2);                // registered for the one write
        final ByteBuffer small = ByteBuffer.allocate(2000).put(0, (byte)9);  // copied into a send slot
        server.register("read", request ->
        {
            request.message().close();
            request.respond(Outbound.of(utf8("blocks"), registered.duplicate(), unregistered.duplicate(),
                small.duplicate()));
        });
        final Portal portal = server.bind(portal());
        final int total = registered.capacity() + unregistered.capacity() + small.capacity();
        final ByteBuffer output = client.registerMemory(ByteBuffer.allocateDirect(512 << 10));
        final ByteBuffer notRegistered = ByteBuffer.allocateDirect(512 << 10);
        try (Session session = client.connect(portal.uri().withResource("read").toString()))
        {
            final long before = client.statistics().bytesReceived();
            for (int i = 0; i < 20; i++)
            {
                output.clear().position(i * 8); // anywhere in the registered region
                try (Message reply = session.request(Outbound.of(utf8("get")).responseInto(output))
                    .get(60, TimeUnit.SECONDS))
                {
                    assertThat(text(reply.header())).isEqualTo("blocks");
                    assertThat(reply.inOutput()).isTrue();
                    assertThat(reply.segmentOffset(0)).isEqualTo(i * 8);
                    assertThat(crc(reply.segment(0))).isEqualTo(crc(registered));
                    assertThat(crc(reply.segment(1))).isEqualTo(crc(unregistered));
                    assertThat(crc(reply.segment(2))).isEqualTo(crc(small));
                    assertThat(crc(output.slice(i * 8 + registered.capacity(), unregistered.capacity())))
                        .isEqualTo(crc(unregistered));
                }
            }
            // 20 × 358 KiB were written into the output; the client received frame headers only
            assertThat(client.statistics().bytesReceived() - before).isLessThan(64 << 10);

            // an output outside registered memory is not offered: the data comes in the frame and is copied in
            final long copiedBefore = client.statistics().bytesReceived();
            try (Message reply = session.request(Outbound.of(utf8("get")).responseInto(notRegistered))
                .get(60, TimeUnit.SECONDS))
            {
                assertThat(reply.inOutput()).isTrue();
                assertThat(crc(notRegistered.slice(0, registered.capacity()))).isEqualTo(crc(registered));
            }
            assertThat(client.statistics().bytesReceived() - copiedBefore).isGreaterThanOrEqualTo(total);
        }
    }

    @Test
    void anOfferedOutputIsNotWrittenAfterItsCallTimedOutOrItsSessionClosed() throws Exception
    {
        final XioEngine server = engines.start("server");
        final XioEngine client = engines.start("client");
        final ByteBuffer data = pattern(64 << 10, 5);
        final ByteBuffer serverOutput = server.registerMemory(ByteBuffer.allocateDirect(64 << 10));
        final List<io.xio.engine.InboundRequest> held = new CopyOnWriteArrayList<>();
        final List<XioFuture<Message>> asked = new CopyOnWriteArrayList<>();
        server.register("slow", request ->
        {
            request.message().close();
            held.add(request); // answered later, after the caller gave up
            if (held.size() == 2)
            {
                // outputs offered both ways when the session closes: each side must hear the other's fence
                asked.add(request.session().request(Outbound.of(utf8("back")).responseInto(serverOutput)));
            }
        });
        final Portal portal = server.bind(portal());
        final ByteBuffer output = client.registerMemory(ByteBuffer.allocateDirect(64 << 10));
        final ByteBuffer second = client.registerMemory(ByteBuffer.allocateDirect(64 << 10));
        final List<io.xio.engine.InboundRequest> heldByClient = new CopyOnWriteArrayList<>();
        final Session session = client.connect(portal.uri().withResource("slow").toString(),
            SessionOptions.DEFAULT.withHandler(request ->
            {
                request.message().close();
                heldByClient.add(request);
            }));
        final XioFuture<Message> timedOut = session.request(Outbound.of(utf8("get")).responseInto(output),
            CallOptions.timeout(Duration.ofMillis(300)));
        assertThatThrownBy(() -> timedOut.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(
            io.xio.engine.XioTimeoutException.class);
        final XioFuture<Message> closed = session.request(Outbound.of(utf8("get")).responseInto(second));
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 2 && heldByClient.size() == 1);
        session.close();
        assertThatThrownBy(() -> closed.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(ConnectionException.class);
        assertThatThrownBy(() -> asked.get(0).get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(ConnectionException.class);
        for (final io.xio.engine.InboundRequest request : held)
        {
            request.respond(Outbound.of(utf8("late"), data.duplicate()));
        }
        heldByClient.get(0).respond(Outbound.of(utf8("late"), data.duplicate()));
        // A grace period for a write that must never come: nothing observable marks its absence sooner.
        Thread.sleep(500);
        for (final ByteBuffer buffer : List.of(output, second, serverOutput))
        {
            for (int i = 0; i < buffer.capacity(); i++)
            {
                assertThat(buffer.get(i)).as("byte %d", i).isZero();
            }
        }
    }

    @Test
    void aStalledReceiverRunsTheSenderOutOfCreditsAndLosesNothing() throws Exception
    {
        final XioEngine server = engines.start(engines.builder("server").contexts(1));
        final XioEngine client = engines.start("client");
        final CountDownLatch stalled = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final List<Integer> seen = new CopyOnWriteArrayList<>();
        server.register("slow", request ->
        {
            try (Message message = request.message())
            {
                if (seen.isEmpty())
                {
                    stalled.countDown();
                    awaitRelease(release); // on the context thread: nothing is polled, no receive re-posted
                }
                seen.add(message.header().getInt(0));
            }
        });
        final Portal portal = server.bind(portal());
        final List<SessionEvent> events = new CopyOnWriteArrayList<>();
        try (Session session = client.connect(portal.uri().withResource("slow").toString(),
            SessionOptions.DEFAULT.withListener(events::add)))
        {
            final int count = 400; // 12 KiB each: two receive slots per message, far beyond 64 credits
            final List<XioFuture<Void>> sends = new ArrayList<>();
            for (int i = 0; i < count; i++)
            {
                final ByteBuffer header = ByteBuffer.allocate(12 << 10).putInt(0, i);
                sends.add(session.send(Outbound.of(header), CallOptions.DEFAULT.withWaitWhenFull(true)));
                if (i == 0)
                {
                    assertThat(stalled.await(30, TimeUnit.SECONDS)).isTrue();
                }
            }
            // 800 receive slots' worth against 64 posted: while the receiver stalls, the sender must hold most back
            final long doneWhileStalled = sends.stream().filter(XioFuture::isDone).count();
            release.countDown();
            assertThat(doneWhileStalled).isLessThan(count);
            for (final XioFuture<Void> send : sends)
            {
                send.get(60, TimeUnit.SECONDS);
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> seen.size() == count);
            for (int i = 0; i < count; i++)
            {
                assertThat(seen.get(i)).isEqualTo(i);
            }
            assertThat(events).extracting(SessionEvent::type).doesNotContain(SessionEvent.Type.RECONNECTING,
                SessionEvent.Type.ERROR);
        }
    }

    @Test
    void aKilledPeerProcessFailsEveryCallerPromptly() throws Exception
    {
        child = ServerProcess.start("rdma://" + RdmaTestAddress.ip() + ":0",
            "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED");
        assertThat(child.uri()).startsWith("rdma://");
        final String base = child.uri() + "/";
        final XioEngine client = engines.start(engines.builder("client").reconnectTimeout(Duration.ofSeconds(2)));
        try (Session echo = client.connect(base + "echo");
             Session hold = client.connect(base + "hold", SessionOptions.DEFAULT.withTimeout(Duration.ofSeconds(60))))
        {
            for (int i = 0; i < 50; i++)
            {
                try (Message reply = echo.request(Outbound.of(utf8("across " + i))).get(30, TimeUnit.SECONDS))
                {
                    assertThat(text(reply.header())).isEqualTo("across " + i);
                }
            }
            final List<XioFuture<Message>> inFlight = new ArrayList<>();
            for (int i = 0; i < 200; i++)
            {
                inFlight.add(hold.request(Outbound.of(utf8("held " + i)), CallOptions.DEFAULT.withWaitWhenFull(true)));
            }
            assertThat(child.kill()).isTrue(); // kill -9: the kernel tears its queue pairs down
            for (final XioFuture<Message> future : inFlight)
            {
                assertThatThrownBy(() -> future.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(ConnectionException.class);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> !hold.isOpen() && !echo.isOpen());
        }
    }

    private static void awaitRelease(final CountDownLatch latch)
    {
        try
        {
            assertThat(latch.await(60, TimeUnit.SECONDS)).isTrue();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
