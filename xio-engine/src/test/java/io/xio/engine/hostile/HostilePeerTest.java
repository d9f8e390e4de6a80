package io.xio.engine.hostile;

import io.xio.engine.PortalOptions;
import io.xio.engine.Limits;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.PeerRefusal;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.SessionEvent;
import io.xio.engine.SessionOptions;
import io.xio.engine.SessionRejectedException;
import io.xio.engine.SetupDecision;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.TestEngines.ECHO;
import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What one buggy or hostile peer can do to a server, tried from the outside with raw sockets ({@link RawPeer})
 * against a server built on the public API: it must not reach other clients' sessions, cost more memory than the
 * limits allow, or keep connections it has no right to, and a well-behaved client keeps being served meanwhile.
 * Attackers connect from 127.0.0.2, another host as far as per-peer limits go.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HostilePeerTest
{
    private static final String ATTACKER = "127.0.0.2";
    private final TestEngines engines = new TestEngines();
    private final List<SessionEvent> serverEvents = new CopyOnWriteArrayList<>();
    private final List<RawPeer> peers = new ArrayList<>();

    @AfterEach
    void close() throws IOException
    {
        for (final RawPeer peer : peers)
        {
            peer.close();
        }
        engines.close();
    }

    private XioEngine server(final Limits limits)
    {
        final XioEngine server = engines.start(engines.builder("server").limits(limits)
            .sessionListener(serverEvents::add));
        server.register("echo", ECHO);
        return server;
    }

    private RawPeer attacker(final Portal portal) throws IOException
    {
        return attacker(portal, 0);
    }

    private RawPeer attacker(final Portal portal, final int receiveBuffer) throws IOException
    {
        final RawPeer peer = new RawPeer(ATTACKER, portal.uri().port(), receiveBuffer);
        peers.add(peer);
        return peer;
    }


    private static void stillServes(final Session session, final String what) throws Exception
    {
        try (Message reply = session.request(Outbound.of(utf8(what))).get(5, TimeUnit.SECONDS))
        {
            assertThat(text(reply.header())).isEqualTo(what);
        }
    }

    private static long directBytes()
    {
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if (pool.getName().equals("direct"))
            {
                return pool.getMemoryUsed();
            }
        }
        throw new IllegalStateException("no direct buffer pool bean");
    }

    private static long heapAfterGc()
    {
        for (int i = 0; i < 3; i++)
        {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    @Test
    void anAttachWithoutTheSessionSecretIsRefusedAndNoAnswerOfTheAttackerReachesTheVictim() throws Exception
    {
        final XioEngine server = server(Limits.DEFAULT);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final XioEngine client = engines.start("victim");
        try (Session victim = client.connect(portal.uri().withResource("echo").toString(),
            SessionOptions.DEFAULT.withConnections(1)))
        {
            // The session id travels in clear in every frame: assume the attacker has it.
            final RawPeer bare = attacker(portal);
            bare.send(RawPeer.attach(1, victim.id(), new byte[0]));
            final RawPeer.Received reject = bare.read(Duration.ofSeconds(5));
            assertThat(reject.type()).isEqualTo(FrameType.ATTACH_REJECT);
            assertThat(reject.reader().string()).doesNotContain(Long.toString(victim.id()));
            bare.send(RawPeer.request(victim.id(), 4, "from the attacker".getBytes(StandardCharsets.UTF_8)));
            assertThat(bare.closedWithin(Duration.ofSeconds(5))).as("a request before any set-up closes").isTrue();

            // An attacker with a session of its own and a guessed secret fares no better.
            final RawPeer insider = attacker(portal);
            insider.setUp("echo");
            insider.send(RawPeer.attach(2, victim.id(), "0123456789abcdef".getBytes(StandardCharsets.US_ASCII)));
            final RawPeer.Received guessed = insider.read(Duration.ofSeconds(5));
            assertThat(guessed.type()).isEqualTo(FrameType.ATTACH_REJECT);
            assertThat(guessed.reader().string()).isEqualTo(reject.reader().string())
                .as("a wrong secret and an unknown session look the same from outside");
            insider.send(RawPeer.request(victim.id(), 4, "from the attacker".getBytes(StandardCharsets.UTF_8)));

            for (int i = 1; i <= 8; i++)
            {
                stillServes(victim, "victim's own " + i);
            }
            assertThat(server.refusals().get(PeerRefusal.ATTACH_PROOF)).isEqualTo(2);
            assertThat(server.refusals().get(PeerRefusal.BEFORE_HANDSHAKE)).isEqualTo(1);
        }
    }

    @Test
    void aPeerThatNeverReadsCostsAtMostItsBoundAndIsDisconnected() throws Exception
    {
        final Limits limits = Limits.DEFAULT.withMaxQueuedBytes(1 << 20).withMaxUnsentBytes(4 << 20)
            .withWriteStallTimeout(Duration.ofSeconds(2));
        final XioEngine server = server(limits);
        final ByteBuffer big = ByteBuffer.allocateDirect(256 << 10);
        server.register("big", request ->
        {
            request.message().close();
            request.respond(Outbound.of(utf8("big"), big.duplicate()));
        });
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final XioEngine client = engines.start("client");
        try (Session session = client.connect(portal.uri().withResource("echo").toString()))
        {
            stillServes(session, "warm up");
            final long directBefore = directBytes();
            final RawPeer reader = attacker(portal, 4096);
            final long id = reader.setUp("big");
            long peakDirect = 0;
            boolean cut = false;
            long next = 1;
            final long start = System.nanoTime();
            while (!cut && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20))
            {
                for (int i = 0; i < 10 && !cut; i++)
                {
                    cut = !reader.trySend(RawPeer.request(id, next++, new byte[8]));
                }
                peakDirect = Math.max(peakDirect, directBytes() - directBefore);
                stillServes(session, "meanwhile " + next);
                cut |= server.refusals().get(PeerRefusal.WRITE_STALL) + server.refusals().get(
                    PeerRefusal.UNSENT_LIMIT) > 0;
                Thread.sleep(100);
            }
            System.out.printf("never-reading peer: %d requests sent, peak extra direct memory %.1f MiB, cut off " +
                "after %.1f s%n", next - 1, peakDirect / 1048576.0, (System.nanoTime() - start) / 1e9);
            assertThat(cut).as("the peer that never reads is disconnected").isTrue();
            assertThat(server.refusals().get(PeerRefusal.WRITE_STALL)).isEqualTo(1);
            assertThat(peakDirect).as("what the peer cost: unsent bound plus one message plus buffers")
                .isLessThan(12L << 20);
            stillServes(session, "after");
        }
    }

    @Test
    void framesOtherThanASetUpBeforeOneCloseTheConnectionWithoutAnAnswer() throws Exception
    {
        final XioEngine server = server(Limits.DEFAULT);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final RawPeer canceller = attacker(portal);
        for (int i = 0; i < 200; i++)
        {
            if (!canceller.trySend(RawPeer.cancel(777, 1, 100)))
            {
                break;
            }
        }
        assertThat(canceller.read(Duration.ofSeconds(5))).as("closed, not answered").isNull();
        final RawPeer keeper = attacker(portal);
        keeper.send(RawPeer.keepalive());
        assertThat(keeper.read(Duration.ofSeconds(5))).isNull();
        assertThat(server.refusals().get(PeerRefusal.BEFORE_HANDSHAKE)).isEqualTo(2);
    }

    @Test
    void aSetUpFloodIsBoundedPerConnectionPerPeerAndPerEngine() throws Exception
    {
        final XioEngine server = server(Limits.DEFAULT.withMaxSessionsPerConnection(300)
            .withMaxSessionsPerPeer(500).withMaxSessions(2_000));
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final long heapBefore = heapAfterGc();
        final int[] accepted = new int[2];
        final int[] rejected = new int[2];
        for (int c = 0; c < 2; c++)
        {
            final RawPeer flood = attacker(portal);
            final ByteBuffer all = ByteBuffer.allocate(400 * RawPeer.setup(1, "echo").length);
            for (int i = 1; i <= 400; i++)
            {
                all.put(RawPeer.setup(i, "echo"));
            }
            flood.trySend(all.array());
            RawPeer.Received answer;
            while ((answer = flood.read(Duration.ofSeconds(10))) != null)
            {
                if (answer.type() == FrameType.SETUP_ACCEPT)
                {
                    accepted[c]++;
                }
                else if (answer.type() == FrameType.SETUP_REJECT)
                {
                    rejected[c]++;
                    assertThat(answer.reader().string()).doesNotContain("300").doesNotContain("500");
                }
            }
        }
        final long perSession = (heapAfterGc() - heapBefore) / 500;
        System.out.printf("set-up flood: %d + %d sessions accepted, ~%d heap bytes each%n", accepted[0], accepted[1],
            perSession);
        assertThat(accepted).containsExactly(300, 200);
        assertThat(rejected).as("refused, until the refusals close the connection").containsExactly(16, 16);
        assertThat(server.refusals().get(PeerRefusal.SESSION_LIMIT)).isEqualTo(32);
        assertThat(server.refusals().get(PeerRefusal.FAILED_HANDSHAKES)).isEqualTo(2);
        assertThat(perSession).as("an idle session is cheap").isLessThan(8 << 10);
        // Another host is not refused for what this one did.
        final XioEngine client = engines.start("client");
        try (Session session = client.connect(portal.uri().withResource("echo").toString()))
        {
            stillServes(session, "not refused");
        }
    }

    @Test
    void announcedLengthsCostNothingAndASlowFrameClosesItsConnection() throws Exception
    {
        final XioEngine server = server(Limits.DEFAULT.withIncompleteFrameTimeout(Duration.ofSeconds(1)));
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final long directBefore = directBytes();
        final List<RawPeer> slow = new ArrayList<>();
        for (int i = 0; i < 50; i++)
        {
            final RawPeer peer = attacker(portal);
            final long session = peer.setUp("echo"); // past the handshake, where frames may be large
            final byte[] head = RawPeer.frame(FrameType.REQUEST, 0, session, 1, new byte[0], new byte[0]);
            ByteBuffer.wrap(head).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(0, 16 << 20)
                .putInt(32, (16 << 20) - 36);
            peer.send(head);
            slow.add(peer);
        }
        long peak = 0;
        final long start = System.nanoTime();
        while (server.refusals().get(PeerRefusal.SLOW_FRAME) < 50 && System.nanoTime() - start < 10_000_000_000L)
        {
            for (final RawPeer peer : slow)
            {
                peer.trySend(new byte[1]);
            }
            peak = Math.max(peak, directBytes() - directBefore);
            Thread.sleep(100);
        }
        System.out.printf("50 slow 16 MiB frames: peak extra direct memory %.1f MiB, all closed after %.1f s%n",
            peak / 1048576.0, (System.nanoTime() - start) / 1e9);
        assertThat(server.refusals().get(PeerRefusal.SLOW_FRAME)).isEqualTo(50);
        assertThat(peak).as("buffers grow with the bytes that came, not with the length announced")
            .isLessThan(8L << 20);
        for (final RawPeer peer : slow)
        {
            assertThat(peer.closedWithin(Duration.ofSeconds(2))).isTrue();
        }
    }

    @Test
    void connectionsAreLimitedPerPeerAndThoseThatNeverSetUpAreClosed() throws Exception
    {
        final XioEngine server = server(Limits.DEFAULT.withMaxConnectionsPerPeer(40)
            .withHandshakeTimeout(Duration.ofSeconds(1)));
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final List<RawPeer> all = new ArrayList<>();
        for (int i = 0; i < 60; i++)
        {
            all.add(attacker(portal));
        }
        await().atMost(Duration.ofSeconds(5))
            .until(() -> server.refusals().get(PeerRefusal.CONNECTION_LIMIT) == 20);
        for (int i = 0; i < 20; i++)
        {
            all.get(i).trySend(RawPeer.keepalive()); // a keepalive is not a set-up
        }
        final long start = System.nanoTime();
        await().atMost(Duration.ofSeconds(5)).until(() ->
            server.refusals().get(PeerRefusal.HANDSHAKE_TIMEOUT) + server.refusals().get(
                PeerRefusal.BEFORE_HANDSHAKE) >= 40);
        System.out.printf("connections without a set-up closed after %.1f s%n", (System.nanoTime() - start) / 1e9);
        for (final RawPeer peer : all)
        {
            assertThat(peer.closedWithin(Duration.ofSeconds(2))).isTrue();
        }
        final XioEngine client = engines.start("client");
        try (Session session = client.connect(portal.uri().withResource("echo").toString()))
        {
            stillServes(session, "another host connects");
        }
    }

    @Test
    void aRejectNamesNothingOfTheServerAndEchoesNoInput() throws Exception
    {
        final XioEngine server = server(Limits.DEFAULT);
        server.register("admin", ECHO);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final RawPeer peer = attacker(portal);
        for (final int length : new int[] {10, 60_000, 65_506}) // the last: a SETUP of exactly 64 KiB
        {
            peer.send(RawPeer.setup(length, "x".repeat(length)));
            final RawPeer.Received reject = peer.read(Duration.ofSeconds(5));
            assertThat(reject.type()).as("answered, whatever the length").isEqualTo(FrameType.SETUP_REJECT);
            assertThat(reject.reader().string()).isEqualTo("no such service at this portal");
        }
        final Portal chatty = server.bind("tcp://127.0.0.1:0", PortalOptions.DEFAULT.withAcceptor(request ->
            SetupDecision.reject("you asked for " + request.resource())).withContext(0));
        final RawPeer asker = attacker(chatty);
        asker.send(RawPeer.setup(1, "y".repeat(5_000)));
        final RawPeer.Received bounded = asker.read(Duration.ofSeconds(5));
        assertThat(bounded.type()).isEqualTo(FrameType.SETUP_REJECT);
        assertThat(bounded.reader().string()).startsWith("you asked for yyy").endsWith("...")
            .satisfies(reason -> assertThat(reason.getBytes(StandardCharsets.UTF_8)).hasSize(512));
        final XioEngine client = engines.start("client");
        assertThatThrownBy(() -> client.connect(chatty.uri().withResource("y".repeat(5_000)).toString()))
            .isInstanceOf(SessionRejectedException.class);
    }

    @Test
    void framesForSessionsThatDoNotExistAreNotAnsweredAndProbesAreCutOff() throws Exception
    {
        final XioEngine server = server(Limits.DEFAULT);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final RawPeer canceller = attacker(portal);
        canceller.setUp("echo");
        final ByteBuffer cancels = ByteBuffer.allocate(5_000 * RawPeer.cancel(1, 1, 1).length);
        for (int i = 0; i < 5_000; i++)
        {
            cancels.put(RawPeer.cancel(1_000_000 + i, 1, 1));
        }
        canceller.trySend(RawPeer.cancel(0, 1, 1)); // no session has id 0
        canceller.trySend(cancels.array());
        assertThat(answers(canceller, FrameType.CANCEL_RESULT)).as("no CANCEL_RESULT for a session that never was")
            .isZero();
        assertThat(server.refusals().get(PeerRefusal.UNKNOWN_SESSION)).isEqualTo(1);

        final RawPeer attacher = attacker(portal);
        final ByteBuffer attaches = ByteBuffer.allocate(312 * RawPeer.attach(1, 1, new byte[16]).length);
        for (int i = 1; i <= 312; i++)
        {
            attaches.put(RawPeer.attach(i, 5_000_000 + i, new byte[16]));
        }
        attacher.trySend(attaches.array());
        assertThat(answers(attacher, FrameType.ATTACH_REJECT)).as("a few rejects, then the connection is closed")
            .isEqualTo(16);
        assertThat(server.refusals().get(PeerRefusal.ATTACH_PROOF)).isEqualTo(16);
        assertThat(server.refusals().get(PeerRefusal.FAILED_HANDSHAKES)).isEqualTo(1);
    }

    /** Frames the server sends until it closes the connection. */
    private static int answers(final RawPeer peer, final int type) throws IOException
    {
        int count = 0;
        RawPeer.Received frame;
        while ((frame = peer.read(Duration.ofSeconds(5))) != null)
        {
            count += frame.type() == type ? 1 : 0;
        }
        return count;
    }

    @Test
    void aSetUpTrickledAByteAtATimeIsClosedBeforeItCompletes() throws Exception
    {
        final XioEngine server = server(Limits.DEFAULT);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final RawPeer trickler = attacker(portal);
        final byte[] setup = RawPeer.setup(1, "echo");
        final long start = System.nanoTime();
        boolean taken = true;
        for (int i = 0; i < setup.length - 1 && taken; i++)
        {
            taken = trickler.trySend(new byte[] {setup[i]});
            Thread.sleep(100);
            taken &= server.refusals().get(PeerRefusal.SLOW_FRAME) == 0;
        }
        assertThat(server.refusals().get(PeerRefusal.SLOW_FRAME)).isEqualTo(1);
        assertThat(System.nanoTime() - start).as("closed with the default limits, before the set-up completed")
            .isLessThan(TimeUnit.MILLISECONDS.toNanos(100L * (setup.length - 1)));
        assertThat(trickler.read(Duration.ofSeconds(5))).isNull();
    }

    @Test
    void aStrangerMaySendNoFrameLargerThanASetUp() throws Exception
    {
        final XioEngine server = server(Limits.DEFAULT);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final RawPeer big = attacker(portal);
        final byte[] head = RawPeer.frame(FrameType.SETUP, 0, 0, 1, new byte[0]);
        ByteBuffer.wrap(head).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(0, 64 << 20);
        big.trySend(head);
        big.trySend(new byte[256 << 10]); // as fast as it likes: the header alone got it closed
        assertThat(big.closedWithin(Duration.ofSeconds(5))).isTrue();
    }

    @Test
    void aPeerThatReadsIsNotCutOffForABurstOfLargeAnswersOverTheUnsentBound() throws Exception
    {
        final XioEngine server = server(Limits.DEFAULT.withMaxQueuedBytes(1 << 20).withMaxUnsentBytes(4 << 20));
        final List<io.xio.engine.InboundRequest> held = new CopyOnWriteArrayList<>();
        final ByteBuffer answer = ByteBuffer.allocateDirect(1 << 20);
        server.register("burst", request ->
        {
            request.message().close();
            held.add(request);
            if (held.size() == 100)
            {
                new Thread(() -> held.forEach(call -> call.respond(Outbound.of(utf8("big"), answer.duplicate()))))
                    .start();
            }
        });
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final XioEngine client = engines.start("client");
        try (Session session = client.connect(portal.uri().withResource("burst").toString(),
            SessionOptions.DEFAULT.withConnections(1)))
        {
            final List<io.xio.engine.XioFuture<Message>> calls = new ArrayList<>();
            for (int i = 0; i < 100; i++)
            {
                calls.add(session.request(Outbound.of(utf8("go"))));
            }
            for (final io.xio.engine.XioFuture<Message> call : calls)
            {
                try (Message reply = call.get(30, TimeUnit.SECONDS))
                {
                    assertThat(reply.segment(0).remaining()).isEqualTo(1 << 20);
                }
            }
        }
        assertThat(server.refusals().get(PeerRefusal.UNSENT_LIMIT)).isZero();
    }


    @Test
    void aPeerThatNeverAcknowledgesLargeResponsesPinsAtMostTheRetainedBudget() throws Exception
    {
        final int mib = 1 << 20;
        final Limits limits = Limits.DEFAULT.withMaxRetainedBytesPerSession(4L * mib + 4096)
            .withMaxRetainedBytes(6L * mib + 8192);
        final XioEngine server = engines.start(engines.builder("server").limits(limits)
            .reconnectTimeout(Duration.ofSeconds(1)).sessionListener(serverEvents::add));
        final ByteBuffer big = ByteBuffer.allocateDirect(mib);
        final java.util.concurrent.atomic.AtomicInteger answered = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.concurrent.atomic.AtomicInteger released = new java.util.concurrent.atomic.AtomicInteger();
        server.register("big", request ->
        {
            request.message().close();
            answered.incrementAndGet();
            request.respond(Outbound.of(utf8("big"), big.duplicate()).releaseAfterSend(released::incrementAndGet));
        });
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final RawPeer first = attacker(portal);
        final long a = first.setUp("big");
        final int asked = 16;
        for (int id = 1; id <= asked; id++)
        {
            first.send(RawPeer.request(a, id, new byte[0]));
        }
        int acksAsked = 0;
        for (int i = 0; i < asked; i++)
        {
            final RawPeer.Received response = first.answer();
            assertThat(response.type()).isEqualTo(FrameType.RESPONSE);
            assertThat(response.body()).hasSize(3 + mib);
            acksAsked += (response.flags() & FrameFlags.ACK_REQUESTED) != 0 ? 1 : 0;
        }
        // Never acknowledged: four are held (the session's budget), the rest released once written.
        assertThat(acksAsked).isEqualTo(4);
        await().atMost(Duration.ofSeconds(5)).until(() -> released.get() == asked - 4);
        assertThat(server.refusals().get(PeerRefusal.RETAINED_LIMIT)).isEqualTo(asked - 4);

        // A retransmit of a held one gets it again; of one over the budget, RESPONSE_LOST.
        first.send(RawPeer.frame(FrameType.REQUEST, FrameFlags.RETRANSMIT, a, 1, new byte[0]));
        final RawPeer.Received again = first.answer();
        assertThat(again.requestId()).isEqualTo(1);
        assertThat(again.status()).isZero();
        assertThat(again.flags() & FrameFlags.ACK_REQUESTED).isNotZero();
        assertThat(again.body()).hasSize(3 + mib);
        first.send(RawPeer.frame(FrameType.REQUEST, FrameFlags.RETRANSMIT, a, asked, new byte[0]));
        final RawPeer.Received lost = first.answer();
        assertThat(lost.requestId()).isEqualTo(asked);
        assertThat(lost.status()).isEqualTo(4); // RESPONSE_LOST

        // A second session of the same peer gets what is left of the engine's budget: two.
        final RawPeer second = attacker(portal);
        final long b = second.setUp("big");
        for (int id = 1; id <= 4; id++)
        {
            second.send(RawPeer.request(b, id, new byte[0]));
        }
        int secondAcksAsked = 0;
        for (int i = 0; i < 4; i++)
        {
            secondAcksAsked += (second.answer().flags() & FrameFlags.ACK_REQUESTED) != 0 ? 1 : 0;
        }
        assertThat(secondAcksAsked).isEqualTo(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> released.get() == asked + 4 - 6);

        // Acknowledging lets go at once; an acknowledgement of an id not held (or twice) changes nothing.
        for (int id = 1; id <= asked; id++)
        {
            first.send(RawPeer.frame(FrameType.RESPONSE_ACK, 0, a, id, new byte[0]));
        }
        first.send(RawPeer.frame(FrameType.RESPONSE_ACK, 0, a, 1, new byte[0]));
        await().atMost(Duration.ofSeconds(5)).until(() -> released.get() == asked + 4 - 2);
        first.send(RawPeer.request(a, asked + 1, new byte[0]));
        assertThat(first.answer().flags() & FrameFlags.ACK_REQUESTED).as("room again").isNotZero();

        // The session's end lets go of the rest: the second one's expiry after its connection is gone.
        second.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> released.get() == asked + 4 + 1 - 1);
        assertThat(answered.get()).isEqualTo(asked + 4 + 1);

        // An acknowledgement in the wrong side's id space is a violation, as a RECEIPT's is.
        first.send(RawPeer.frame(FrameType.RESPONSE_ACK, FrameFlags.FROM_ACCEPTOR, a, 1, new byte[0]));
        assertThat(first.closedWithin(Duration.ofSeconds(5))).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> released.get() == answered.get());
    }
}
