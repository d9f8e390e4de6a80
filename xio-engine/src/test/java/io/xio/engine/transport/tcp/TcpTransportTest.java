package io.xio.engine.transport.tcp;

import io.xio.engine.CallOptions;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.SessionEvent;
import io.xio.engine.SessionOptions;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioFuture;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.engine.TestEngines.ECHO;
import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** What only a real network shows: hostile bytes, resets and silent peers. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpTransportTest
{
    private final TestEngines engines = new TestEngines();
    private final List<SessionEvent> serverEvents = new CopyOnWriteArrayList<>();
    private final ExecutorService executor = Executors.newFixedThreadPool(4);

    @AfterEach
    void close() throws InterruptedException
    {
        executor.shutdownNow();
        assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        engines.close();
    }

    private XioEngine server()
    {
        final XioEngine server = engines.start(engines.builder("server").sessionListener(serverEvents::add));
        server.register("echo", ECHO);
        return server;
    }

    /** The version this side speaks. */
    private static final int V = Frame.VERSION;

    private static ByteBuffer header(final int frameLength, final int version, final int type, final int segments,
        final int headerLength)
    {
        final ByteBuffer frame = ByteBuffer.allocate(Frame.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        frame.putInt(0, frameLength).put(4, (byte)version).put(5, (byte)type).putLong(8, 1).putLong(16, 1)
            .putInt(24, headerLength).putShort(28, (short)segments);
        return frame;
    }

    /** Sends the bytes on a fresh socket and expects the server to close it; returns the event it reported. */
    private String sendAndExpectClose(final Portal portal, final byte[] bytes) throws Exception
    {
        final int before = serverEvents.size();
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), portal.uri().port()))
        {
            socket.setSoTimeout(10_000);
            final OutputStream out = socket.getOutputStream();
            out.write(bytes);
            out.flush();
            final InputStream in = socket.getInputStream();
            assertThat(in.read()).as("server closes the connection").isEqualTo(-1);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.size() > before);
        final SessionEvent event = serverEvents.get(serverEvents.size() - 1);
        assertThat(event.type()).isEqualTo(SessionEvent.Type.ERROR);
        assertThat(event.session()).isNull();
        return event.detail();
    }

    private static byte[] bytes(final ByteBuffer buffer)
    {
        return buffer.array();
    }

    @Test
    void hostileFramesCloseOnlyTheirConnectionWithAnErrorNamingTheProblem() throws Exception
    {
        final XioEngine server = server();
        final XioEngine client = engines.start("client");
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        try (Session session = client.connect(portal.uri().withResource("echo").toString()))
        {
            final byte[] garbage = new byte[64];
            java.util.Arrays.fill(garbage, (byte)0xA5);
            assertThat(sendAndExpectClose(portal, garbage)).contains("unsupported protocol version 165");
            assertThat(sendAndExpectClose(portal, bytes(header(Integer.MAX_VALUE, V, FrameType.REQUEST, 0, 0))))
                .contains("frame length 2147483647 exceeds the limit");
            assertThat(sendAndExpectClose(portal, bytes(header(64, V, 99, 0, 0)))).contains("unknown frame type 99");
            assertThat(sendAndExpectClose(portal, bytes(header(40, V, FrameType.REQUEST, 0, 1 << 20))))
                .contains("application header length 1048576");
            assertThat(sendAndExpectClose(portal, bytes(header(36, V, FrameType.REQUEST, 500, 0))))
                .contains("segment count 500 exceeds");
            final ByteBuffer lying = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN)
                .put(header(40, V, FrameType.KEEPALIVE, 1, 0)).putInt(32, 1000);
            assertThat(sendAndExpectClose(portal, lying.array())).contains("segment lengths add up to");
            assertThat(sendAndExpectClose(portal, bytes(header(32, V, FrameType.SETUP_ACCEPT, 0, 0))))
                .contains("SETUP_ACCEPT sent to a server");
            // the well-behaved session never noticed
            for (int i = 0; i < 10; i++)
            {
                try (Message reply = session.request(Outbound.of(utf8("still here " + i))).get(5, TimeUnit.SECONDS))
                {
                    assertThat(text(reply.header())).isEqualTo("still here " + i);
                }
            }
        }
    }

    @Test
    void networkResetsMidFlightRetransmitWithoutExecutingTwice() throws Exception
    {
        final XioEngine server = engines.start("server");
        final Map<Long, AtomicInteger> executions = new ConcurrentHashMap<>();
        server.register("count", request -> executor.submit(() ->
        {
            executions.computeIfAbsent(request.requestId(), id -> new AtomicInteger()).incrementAndGet();
            request.respond(Outbound.of(request.message().header()).releaseAfterSend(request.message()));
        }));
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final XioEngine client = engines.start("client");
        try (TcpProxy proxy = new TcpProxy(portal.uri().port());
             Session session = client.connect("tcp://127.0.0.1:" + proxy.port() + "/count",
                 SessionOptions.DEFAULT.withTimeout(Duration.ofSeconds(30))))
        {
            final int total = 3_000;
            final List<XioFuture<Message>> futures = new ArrayList<>();
            int drops = 0;
            for (int i = 0; i < total; i++)
            {
                futures.add(session.request(Outbound.of(ByteBuffer.allocate(4).putInt(0, i)),
                    CallOptions.DEFAULT.withWaitWhenFull(true)));
                if (i % 1000 == 500)
                {
                    drops += proxy.dropAll();
                }
            }
            for (int i = 0; i < total; i++)
            {
                try (Message reply = futures.get(i).get(30, TimeUnit.SECONDS))
                {
                    assertThat(reply.header().getInt(0)).isEqualTo(i);
                }
            }
            assertThat(drops).isGreaterThanOrEqualTo(3);
            assertThat(executions).hasSize(total);
            assertThat(executions.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
            // Three resets with hundreds of requests on the wire: some were sent again, each counted once.
            assertThat(session.statistics().requestsSent()).isEqualTo(total);
            assertThat(session.statistics().retransmits()).isPositive()
                .isEqualTo(client.statistics().retransmits());
        }
    }

    @Test
    void keepaliveNoticesASilentPeerAndTheSessionRecovers() throws Exception
    {
        final XioEngine server = server();
        final List<SessionEvent> events = new CopyOnWriteArrayList<>();
        final XioEngine client = engines.start(engines.builder("client")
            .keepalive(Duration.ofMillis(100), Duration.ofMillis(600)));
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        try (TcpProxy proxy = new TcpProxy(portal.uri().port());
             Session session = client.connect("tcp://127.0.0.1:" + proxy.port() + "/echo",
                 SessionOptions.DEFAULT.withConnections(1).withTimeout(Duration.ofSeconds(20))
                     .withListener(events::add)))
        {
            session.request(Outbound.of(utf8("before"))).get(5, TimeUnit.SECONDS).close();
            proxy.silenceAll();
            final XioFuture<Message> during = session.request(Outbound.of(utf8("during")));
            try (Message reply = during.get(15, TimeUnit.SECONDS))
            {
                assertThat(text(reply.header())).isEqualTo("during");
            }
            assertThat(events).anySatisfy(event ->
            {
                assertThat(event.type()).isEqualTo(SessionEvent.Type.RECONNECTING);
                assertThat(event.cause()).hasMessageContaining("keepalive timeout");
            });
        }
    }
}
