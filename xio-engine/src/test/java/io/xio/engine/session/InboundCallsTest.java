package io.xio.engine.session;

import io.xio.engine.PortalOptions;
import io.xio.engine.InboundRequest;
import io.xio.engine.Outbound;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.protocol.Status;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.engine.session.PeerFrames.utf8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server side of a lane, with the test as the client: the handshake, deduplication of retransmits,
 * cancels, refusals. Handlers run on the test's thread (it runs the context).
 */
class InboundCallsTest
{
    private final ScriptedEngine server = new ScriptedEngine();
    private final AtomicInteger executions = new AtomicInteger();
    private final List<InboundRequest> held = new ArrayList<>();
    private ScriptedWire.Link link;
    private long session;

    @BeforeEach
    void setUp()
    {
        server.engine.register("echo", request ->
        {
            executions.incrementAndGet();
            request.respond(Outbound.of(request.message().header()).releaseAfterSend(request.message()));
        });
        server.engine.register("hold", request ->
        {
            executions.incrementAndGet();
            held.add(request);
        });
        final var bound = server.engine.bindAsync("wire://here", PortalOptions.DEFAULT.withContext(0));
        server.turn();
        assertThat(bound).isCompleted();
    }

    @AfterEach
    void close()
    {
        held.forEach(request -> request.message().close());
        server.close();
    }

    private void connect(final String resource)
    {
        link = server.wire.accept();
        link.deliver(PeerFrames.setup(1, resource));
        server.turn();
        final ScriptedWire.Sent accept = link.sent(FrameType.SETUP_ACCEPT).get(0);
        assertThat(accept.requestId()).as("answers the set-up's token").isEqualTo(1);
        session = accept.sessionId();
    }

    private void request(final long id, final int flags, final String body)
    {
        link.deliver(PeerFrames.frame(FrameType.REQUEST, flags, session, id, 0, utf8(body)));
        server.turn();
    }

    @Test
    void aRetransmitOfAnAnsweredRequestGetsTheKeptAnswerAndDoesNotRunAgain()
    {
        connect("echo");
        request(1, 0, "once");
        request(1, FrameFlags.RETRANSMIT, "once");
        final var responses = link.sent(FrameType.RESPONSE);
        assertThat(executions).hasValue(1);
        assertThat(responses).hasSize(2);
        assertThat(responses).allMatch(f -> f.requestId() == 1 && f.status() == Status.OK &&
            f.headerText().equals("once") && (f.flags() & FrameFlags.FROM_ACCEPTOR) == 0);
    }

    @Test
    void aRetransmitOfARequestStillExecutingIsAnsweredOnceWhenItIsDone()
    {
        connect("hold");
        request(5, 0, "slow");
        request(5, FrameFlags.RETRANSMIT, "slow");
        assertThat(executions).hasValue(1);
        assertThat(link.sent(FrameType.RESPONSE)).isEmpty();
        final InboundRequest call = held.remove(0);
        call.respond(Outbound.of(ByteBuffer.wrap(utf8("done"))).releaseAfterSend(call.message()));
        server.turn();
        assertThat(link.sent(FrameType.RESPONSE)).singleElement()
            .satisfies(f -> assertThat(f.headerText()).isEqualTo("done"));
    }

    @Test
    void aCancelAbortsTheCallsItNamesAndSaysHowMany()
    {
        connect("hold");
        request(1, 0, "a");
        request(2, 0, "b");
        request(3, 0, "c");
        link.deliver(PeerFrames.frame(FrameType.CANCEL, 0, session, 1, 0, new SetupCodec.Writer().i64(2).toBytes()));
        server.turn();
        final ScriptedWire.Sent result = link.sent(FrameType.CANCEL_RESULT).get(0);
        final SetupCodec.Reader body = new SetupCodec.Reader(new UnsafeBuffer(result.header()), 0,
            result.header().length);
        assertThat(body.i64()).isEqualTo(2);
        assertThat(body.i32()).as("aborted").isEqualTo(2);
        assertThat(held.get(0).isCancelled()).isTrue();
        assertThat(held.get(1).isCancelled()).isTrue();
        assertThat(held.get(2).isCancelled()).isFalse();
    }

    @Test
    void aRequestForAnotherSidesIdSpaceClosesTheConnection()
    {
        connect("echo");
        request(1, FrameFlags.FROM_ACCEPTOR, "mine?");
        assertThat(link.isClosed()).isTrue();
        assertThat(executions).hasValue(0);
    }

    @Test
    void aSetUpForAnUnknownResourceIsRejected()
    {
        link = server.wire.accept();
        link.deliver(PeerFrames.setup(9, "nothing-here"));
        server.turn();
        final ScriptedWire.Sent reject = link.sent(FrameType.SETUP_REJECT).get(0);
        assertThat(reject.requestId()).isEqualTo(9);
        assertThat(link.isClosed()).isFalse();
    }

    @Test
    void sessionsLeftWithoutAConnectionExpireThroughOneTimerNotOneEach()
    {
        // One timer each, all due in one tick, once grew the context's timer wheel by tens of megabytes for good.
        link = server.wire.accept();
        for (int i = 1; i <= 500; i++)
        {
            link.deliver(PeerFrames.setup(i, "echo"));
        }
        server.turn();
        assertThat(link.sent(FrameType.SETUP_ACCEPT)).hasSize(500);
        final io.xio.engine.context.EventLoop loop = (io.xio.engine.context.EventLoop)server.engine.contexts().get(0);
        final long before = loop.timerCount();
        link.reset();
        server.turn();
        assertThat(server.engine.sessions()).as("lingering for their client to come back").hasSize(500);
        assertThat(loop.timerCount() - before).isOne();
        server.advance(java.time.Duration.ofSeconds(3));
        assertThat(server.engine.sessions()).as("expired after the reconnect timeout").isEmpty();
        assertThat(loop.timerCount()).isLessThanOrEqualTo(before);
    }

    @Test
    void anAttachToASessionThatDoesNotExistIsRejected()
    {
        link = server.wire.accept();
        link.deliver(PeerFrames.frame(FrameType.ATTACH, 0, 12345, 3, 0, new byte[0]));
        server.turn();
        assertThat(link.sent(FrameType.ATTACH_REJECT)).singleElement()
            .satisfies(f -> assertThat(f.requestId()).isEqualTo(3));
    }

    @Test
    void aResponseAtTheCopyLimitWithTrailersIsStillKeptForARetransmitAndItsTrailersAreSealed()
    {
        connect("hold");
        request(1, 0, "big");
        final InboundRequest call = held.remove(0);
        call.message().close();
        final io.xio.engine.Metadata trailers = new io.xio.engine.Metadata().add("served-by", "here");
        // With its trailers one byte above what is copied: so it is held by reference instead, not lost.
        final int header = server.engine.limits().retainedResponseBytes() - trailers.encodedLength() + 1;
        call.respond(Outbound.of(ByteBuffer.wrap(new byte[header])).metadata(trailers));
        server.turn();
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> trailers.put("served-by", "someone else")))
            .as("what a retransmit resends cannot change any more").isInstanceOf(UnsupportedOperationException.class);
        request(1, FrameFlags.RETRANSMIT, "big");
        final var responses = link.sent(FrameType.RESPONSE);
        assertThat(responses).hasSize(2).allSatisfy(f ->
        {
            assertThat(f.status()).isEqualTo(Status.OK);
            assertThat(f.header()).hasSize(header);
            assertThat(f.flags() & FrameFlags.CONTEXT).as("with its trailers").isNotZero();
        });
        assertThat(executions).hasValue(1);
    }
}
