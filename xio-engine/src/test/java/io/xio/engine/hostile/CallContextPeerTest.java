package io.xio.engine.hostile;

import io.xio.engine.Limits;
import io.xio.engine.Portal;
import io.xio.engine.SessionEvent;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.engine.TestEngines.ECHO;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The call context (protocol v2: deadline and metadata before the application header) as a raw peer sends it,
 * written from docs/protocol.md: a v1 peer, an oversized or malformed context each close that one connection with
 * an error naming the problem, and a request whose deadline has passed on arrival is answered DEADLINE_EXCEEDED
 * without running.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CallContextPeerTest
{
    private final TestEngines engines = new TestEngines();
    private final List<SessionEvent> serverEvents = new CopyOnWriteArrayList<>();
    private final List<RawPeer> peers = new ArrayList<>();
    private final AtomicInteger executions = new AtomicInteger();

    @AfterEach
    void close() throws IOException
    {
        for (final RawPeer peer : peers)
        {
            peer.close();
        }
        engines.close();
    }

    private Portal server()
    {
        final XioEngine server = engines.start(engines.builder("server").limits(TestEngines.LIMITS)
            .sessionListener(serverEvents::add));
        server.register("echo", request ->
        {
            executions.incrementAndGet();
            ECHO.onRequest(request);
        });
        return server.bind("tcp://127.0.0.1:0");
    }

    private RawPeer peer(final Portal portal) throws IOException
    {
        final RawPeer peer = new RawPeer(portal.uri().port());
        peers.add(peer);
        return peer;
    }



    private void assertViolation(final String problem)
    {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(serverEvents)
            .anySatisfy(event -> assertThat(event.detail()).contains("protocol violation").contains(problem)));
    }

    private static byte[] utf8(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aVersionOnePeerIsDisconnectedWithAnErrorNamingBothVersions() throws Exception
    {
        final RawPeer old = peer(server());
        old.send(RawPeer.v1(RawPeer.setup(1, "echo")));
        assertThat(old.read(Duration.ofSeconds(5))).as("closed, not answered").isNull();
        assertViolation("unsupported protocol version 1 (this side speaks 2)");
    }

    @Test
    void aRequestWithItsContextAnsweredAndOneBeyondTheMetadataLimitClosesOnlyItsConnection() throws Exception
    {
        final Portal portal = server();
        final RawPeer fair = peer(portal);
        final long fairSession = fair.setUp("echo");
        fair.send(RawPeer.request(fairSession, 1, RawPeer.context(5_000_000_000L, "tenant", "acme"), utf8("hi")));
        final RawPeer.Received answer = fair.answer();
        assertThat(answer.type()).isEqualTo(FrameType.RESPONSE);
        assertThat(answer.status()).isEqualTo(Status.OK);

        final RawPeer greedy = peer(portal);
        final long greedySession = greedy.setUp("echo");
        final int limit = Limits.DEFAULT.maxMetadataBytes();
        greedy.send(RawPeer.request(greedySession, 1, RawPeer.context(0, "pad", "x".repeat(limit)), utf8("hi")));
        assertThat(greedy.closedWithin(Duration.ofSeconds(5))).isTrue();
        assertViolation("exceeds the limit of " + limit + " bytes (maxMetadataBytes)");

        fair.send(RawPeer.request(fairSession, 2, RawPeer.context(5_000_000_000L), utf8("still here")));
        assertThat(fair.answer().status()).isEqualTo(Status.OK);
        assertThat(executions).hasValue(2);
    }

    @Test
    void aMalformedContextClosesItsConnectionUnrun() throws Exception
    {
        final Portal portal = server();
        final RawPeer upper = peer(portal);
        upper.send(RawPeer.request(upper.setUp("echo"), 1, RawPeer.context(0, "Tenant", "acme"), utf8("hi")));
        assertThat(upper.closedWithin(Duration.ofSeconds(5))).isTrue();
        assertViolation("metadata key with the byte 84");

        final RawPeer overrun = peer(portal);
        final byte[] context = RawPeer.context(0, "tenant", "acme");
        context[0] = (byte)(context[0] + 10); // claims more items than the header holds
        overrun.send(RawPeer.request(overrun.setUp("echo"), 1, context, new byte[0]));
        assertThat(overrun.closedWithin(Duration.ofSeconds(5))).isTrue();
        assertViolation("overruns");
        assertThat(executions).hasValue(0);
    }

    @Test
    void aRequestWhoseDeadlineHasPassedOnArrivalIsAnsweredWithoutRunning() throws Exception
    {
        final RawPeer late = peer(server());
        final long session = late.setUp("echo");
        late.send(RawPeer.request(session, 1, RawPeer.context(1), utf8("too late")));
        final RawPeer.Received answer = late.answer();
        assertThat(answer.type()).isEqualTo(FrameType.RESPONSE);
        assertThat(answer.status()).isEqualTo(Status.DEADLINE_EXCEEDED);
        assertThat(executions).hasValue(0);
        late.send(RawPeer.request(session, 2, RawPeer.context(5_000_000_000L), utf8("in time")));
        assertThat(late.answer().status()).isEqualTo(Status.OK);
        assertThat(executions).hasValue(1);
    }

    @Test
    void aRequestQueuedPastItsDeadlineIsAnsweredDeadlineExceededWithoutRunningEvenWithoutACancel() throws Exception
    {
        final java.util.concurrent.ExecutorService worker = java.util.concurrent.Executors.newSingleThreadExecutor();
        try
        {
            final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            final XioEngine server = engines.start(engines.builder("server").limits(TestEngines.LIMITS));
            final io.xio.engine.support.QueueingHandler queue = new io.xio.engine.support.QueueingHandler(worker, 1, 4,
                (request, arrived) ->
                {
                    executions.incrementAndGet();
                    release.await(10, TimeUnit.SECONDS);
                    ECHO.onRequest(request);
                    return true;
                });
            server.register("echo", queue);
            final RawPeer peer = peer(server.bind("tcp://127.0.0.1:0"));
            final long session = peer.setUp("echo");
            peer.send(RawPeer.request(session, 1, RawPeer.context(10_000_000_000L), utf8("slow")));
            await().atMost(Duration.ofSeconds(5)).until(() -> executions.get() == 1);
            peer.send(RawPeer.request(session, 2, RawPeer.context(50_000_000L), utf8("queued")));
            Thread.sleep(200); // the attack's pace: the second request's 50 ms pass while it waits
            release.countDown();
            final List<RawPeer.Received> answers = List.of(peer.answer(), peer.answer());
            assertThat(answers).anySatisfy(a -> assertThat(a.requestId() * 10 + a.status())
                .isEqualTo(10 + Status.OK));
            assertThat(answers).anySatisfy(a -> assertThat(a.requestId() * 10 + a.status())
                .isEqualTo(20 + Status.DEADLINE_EXCEEDED));
            assertThat(executions).hasValue(1);
            assertThat(queue.refusedExpired()).isOne();
        }
        finally
        {
            worker.shutdownNow();
        }
    }

    @Test
    void aSetUpAnnouncingSizesOfZeroClosesItsConnectionBeforeItCostsASessionOfThePeersQuota() throws Exception
    {
        final XioEngine server = engines.start(engines.builder("server")
            .limits(TestEngines.LIMITS.withMaxSessionsPerPeer(2)).sessionListener(serverEvents::add));
        server.register("echo", ECHO);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        for (int i = 0; i < 5; i++)
        {
            final RawPeer liar = peer(portal);
            liar.send(RawPeer.frame(FrameType.SETUP, 0, 0, 1, new io.xio.engine.protocol.SetupCodec.Writer().u8(0)
                .string("echo").map(java.util.Map.of()).i32(1024).i32(2048).i32(0).i32(0).i32(0).i32(0).toBytes()));
            assertThat(liar.read(Duration.ofSeconds(5))).as("closed, not answered").isNull();
        }
        assertViolation("announced limits must be positive");
        final RawPeer fair = peer(portal);
        assertThat(fair.setUp("echo")).as("the quota of 2 sessions is untouched").isNotZero();
    }
}
