package io.xio.engine.session;

import io.xio.engine.CallOptions;
import io.xio.engine.GoAway;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.SessionDrainingException;
import io.xio.engine.SessionEvent;
import io.xio.engine.SessionOptions;
import io.xio.engine.XioFuture;
import io.xio.engine.XioUri;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.protocol.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.xio.engine.session.PeerFrames.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The client's side of a GOAWAY against a scripted server on a fake clock: new calls refused before they are
 * written, calls written finish (also after a reconnect), waiters for room refused, the session closed once nothing
 * is in flight (receipts counted), and a malformed GOAWAY or one sent to a server closes its connection.
 */
class GoAwayTest
{
    private static final long SESSION = ScriptedEngine.SESSION_ID;

    private final ScriptedEngine client = new ScriptedEngine();
    private final List<SessionEvent> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void close()
    {
        client.close();
    }

    private static Outbound text(final String value)
    {
        return Outbound.of(ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8)));
    }

    private static byte[] response(final long id, final String body)
    {
        return PeerFrames.frame(FrameType.RESPONSE, 0, SESSION, id, Status.OK, utf8(body));
    }

    static byte[] goAway(final List<String> portals, final String reason)
    {
        return PeerFrames.frame(FrameType.GOAWAY, 0, SESSION, 0, 0,
            new SetupCodec.Writer().strings(portals).string(reason).toBytes());
    }

    /** Opens a session whose server takes at most {@code peerMaxInFlight} requests in flight. */
    private Session open(final int peerMaxInFlight)
    {
        final CompletableFuture<Session> opening = client.engine.openSession("wire://server/kv",
            SessionOptions.DEFAULT.withListener(events::add));
        client.turn();
        final ScriptedWire.Link link = client.wire.last();
        link.deliver(PeerFrames.frame(FrameType.SETUP_ACCEPT, 0, SESSION, link.sent(FrameType.SETUP).get(0)
            .requestId(), 0, PeerFrames.sizes(new SetupCodec.Writer().map(Map.of()).i32(peerMaxInFlight).i32(4096)
            .bytes(PeerFrames.SECRET)).toBytes()));
        client.turn();
        return opening.join();
    }

    private long closes(final ScriptedWire.Link link)
    {
        return link.sent(FrameType.CLOSE).stream().filter(f -> f.sessionId() == SESSION).count();
    }

    @Test
    void newCallsFailAtOnceWrittenOnesFinishAndTheSessionClosesAfterTheLast() throws Exception
    {
        final Session session = open(1024);
        final XioFuture<Message> written = session.request(text("written"));
        client.turn();
        final ScriptedWire.Link link = client.wire.last();
        final long id = link.sent(FrameType.REQUEST).get(0).requestId();
        assertThat(session.inFlight()).isEqualTo(1);

        link.deliver(goAway(List.of("wire://elsewhere:7"), "moving"));
        assertThat(session.goAwayReceived()).isEqualTo(new GoAway(List.of(XioUri.parse("wire://elsewhere:7")),
            "moving"));
        assertThat(session.isDraining()).isTrue();
        assertThat(events).filteredOn(e -> e.type() == SessionEvent.Type.GOAWAY).hasSize(1);
        final XioFuture<Message> late = session.request(text("late"));
        assertThat(late).as("refused on the caller's thread").isCompletedExceptionally();
        assertThatThrownBy(late::get).cause().isInstanceOf(SessionDrainingException.class)
            .hasMessageContaining("moving");
        client.turn();
        assertThat(link.sent(FrameType.REQUEST)).as("nothing written after the GOAWAY").hasSize(1);
        assertThat(session.isOpen()).isTrue();
        assertThat(closes(link)).isZero();

        link.deliver(response(id, "answer"));
        client.turn();
        try (Message answer = written.get(1, TimeUnit.SECONDS))
        {
            assertThat(answer.header().remaining()).isEqualTo(6);
        }
        assertThat(closes(link)).as("closed by the client after its last answer").isEqualTo(1);
        assertThat(session.isOpen()).isFalse();
        assertThat(session.inFlight()).isZero();
    }

    @Test
    void aWaiterForRoomIsRefusedAndAnOutstandingReceiptKeepsTheSessionOpen() throws Exception
    {
        final Session session = open(2);
        final XioFuture<Void> oneWay = session.send(text("with receipt"), CallOptions.DEFAULT.withReceipt(true));
        final XioFuture<Message> request = session.request(text("request"));
        client.turn();
        final ScriptedWire.Link link = client.wire.last();
        final List<ScriptedWire.Sent> sent = link.sent(FrameType.REQUEST);
        assertThat(sent).hasSize(2);
        final CompletableFuture<XioFuture<Message>> waiter = new CompletableFuture<>();
        final Thread caller = new Thread(() -> waiter.complete(session.request(text("waits for room"),
            CallOptions.timeout(Duration.ofSeconds(30)).withWaitWhenFull(true))));
        caller.start();
        // It waits in the admission, parked (no thread of the engine's runs here).
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
            caller.getState() == Thread.State.WAITING || caller.getState() == Thread.State.TIMED_WAITING);
        assertThat(waiter).isNotDone();

        link.deliver(goAway(List.of(), ""));
        final XioFuture<Message> refused = waiter.get(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> refused.get(1, TimeUnit.SECONDS)).cause()
            .isInstanceOf(SessionDrainingException.class);

        link.deliver(response(sent.get(1).requestId(), "ok"));
        client.turn();
        request.get(1, TimeUnit.SECONDS).close();
        assertThat(closes(link)).as("the one-way message waits for its receipt").isZero();
        assertThat(session.isOpen()).isTrue();

        link.deliver(PeerFrames.frame(FrameType.RECEIPT, 0, SESSION, sent.get(0).requestId(), 0, new byte[0]));
        client.turn();
        oneWay.get(1, TimeUnit.SECONDS);
        assertThat(closes(link)).isEqualTo(1);
        assertThat(session.isOpen()).isFalse();
    }

    @Test
    void aRequestWrittenBeforeTheGoAwayIsRetransmittedAfterALossAndFinishes() throws Exception
    {
        final Session session = open(1024);
        final XioFuture<Message> written = session.request(text("written"));
        client.turn();
        final ScriptedWire.Link lost = client.wire.last();
        final long id = lost.sent(FrameType.REQUEST).get(0).requestId();
        lost.deliver(goAway(List.of(), "draining"));
        lost.reset();
        client.advance(Duration.ofMillis(7));

        final ScriptedWire.Link again = client.wire.last();
        assertThat(again).isNotSameAs(lost);
        again.deliver(PeerFrames.attachAccept(again.sent(FrameType.ATTACH).get(0).requestId(), SESSION));
        again.deliver(goAway(List.of(), "draining")); // the server sends it again on each attach
        client.turn();
        assertThat(again.sent(FrameType.REQUEST)).extracting(ScriptedWire.Sent::requestId).containsExactly(id);
        assertThat(events).filteredOn(e -> e.type() == SessionEvent.Type.GOAWAY).as("heard once").hasSize(1);
        again.deliver(response(id, "late"));
        client.turn();
        written.get(1, TimeUnit.SECONDS).close();
        assertThat(closes(again)).isEqualTo(1);
        assertThat(session.isOpen()).isFalse();
    }

    @Test
    void theSessionClosesOnlyOnceAConnectionBeingReEstablishedIsBack()
    {
        final CompletableFuture<Session> opening = client.engine.openSession("wire://server/kv",
            SessionOptions.DEFAULT.withConnections(2));
        client.turn();
        final ScriptedWire.Link first = client.wire.last();
        first.deliver(PeerFrames.setupAccept(first.sent(FrameType.SETUP).get(0).requestId(), SESSION));
        client.turn();
        final ScriptedWire.Link second = client.wire.last();
        assertThat(second).isNotSameAs(first);
        second.deliver(PeerFrames.attachAccept(second.sent(FrameType.ATTACH).get(0).requestId(), SESSION));
        client.turn();
        final Session session = opening.join();

        // Answers to the server's requests may have been lost with the second connection: the server retransmits
        // them once it is back (or over the first); closing now would fail them at the server.
        second.reset();
        first.deliver(goAway(List.of(), "draining"));
        client.turn();
        assertThat(session.isDraining()).isTrue();
        assertThat(closes(first)).as("no CLOSE while a connection is being re-established").isZero();
        assertThat(session.isOpen()).isTrue();

        client.advance(Duration.ofMillis(7));
        final ScriptedWire.Link again = client.wire.last();
        assertThat(again).isNotSameAs(second);
        again.deliver(PeerFrames.attachAccept(again.sent(FrameType.ATTACH).get(0).requestId(), SESSION));
        client.turn();
        assertThat(closes(first)).as("closed once the connection is back (a CLOSE on each)").isEqualTo(1);
        assertThat(closes(again)).isEqualTo(1);
        assertThat(session.isOpen()).isFalse();
    }

    static Stream<Arguments> malformed()
    {
        final List<String> tooMany = new ArrayList<>(Collections.nCopies(SetupCodec.MAX_GOAWAY_PORTALS + 1,
            "tcp://h:1"));
        return Stream.of(
            Arguments.of("truncated", PeerFrames.frame(FrameType.GOAWAY, 0, SESSION, 0, 0,
                new SetupCodec.Writer().u8(1).u8(0).u8(9).toBytes())),
            Arguments.of("no reason", PeerFrames.frame(FrameType.GOAWAY, 0, SESSION, 0, 0,
                new SetupCodec.Writer().strings(List.of()).toBytes())),
            Arguments.of("too many portals", goAway(tooMany, "")),
            Arguments.of("a reason too long", goAway(List.of(), "x".repeat(SetupCodec.MAX_GOAWAY_REASON_BYTES + 1))),
            Arguments.of("a portal that is no URI", goAway(List.of("no scheme here"), "")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void aMalformedGoAwayClosesItsConnectionAndIsNotHeard(final String what, final byte[] frame)
    {
        final Session session = open(1024);
        final ScriptedWire.Link link = client.wire.last();
        link.deliver(frame);
        assertThat(link.isClosed()).as("closed for the violation").isTrue();
        assertThat(session.isDraining()).isFalse();
        assertThat(session.isOpen()).as("the session reconnects").isTrue();
        assertThat(events).noneMatch(e -> e.type() == SessionEvent.Type.GOAWAY);
    }

    @Test
    void aGoAwaySentToAServerIsAViolation()
    {
        try (ScriptedServer server = new ScriptedServer())
        {
            final long session = server.openSession(1, "echo");
            assertThat(session).isNotZero();
            server.deliver(PeerFrames.frame(FrameType.GOAWAY, 0, session, 0, 0,
                new SetupCodec.Writer().strings(List.of()).string("").toBytes()));
            assertThat(server.connectionClosed()).isTrue();
        }
    }

    @Test
    void aSetupAcceptsConnectionPortalsSpreadTheFurtherConnectionsAndSkipOneUnreachable()
    {
        client.wire.unreachable.add(XioUri.parse("wire://server:1"));
        final CompletableFuture<Session> opening = client.engine.openSession("wire://server/kv",
            SessionOptions.DEFAULT.withConnections(3));
        client.turn();
        final ScriptedWire.Link first = client.wire.last();
        first.deliver(PeerFrames.frame(FrameType.SETUP_ACCEPT, 0, SESSION, first.sent(FrameType.SETUP).get(0)
            .requestId(), 0, PeerFrames.sizes(new SetupCodec.Writer().map(Map.of()).i32(1024).i32(4096)
            .bytes(PeerFrames.SECRET)).strings(List.of("wire://server:1", "wire://server:2")).toBytes()));
        client.turn();
        for (final ScriptedWire.Link link : List.copyOf(client.wire.links))
        {
            for (final ScriptedWire.Sent attach : link.sent(FrameType.ATTACH))
            {
                link.deliver(PeerFrames.attachAccept(attach.requestId(), SESSION));
            }
        }
        client.turn();
        assertThat(opening).isCompleted();
        // The second connection: port 1, unreachable, then port 2; the third: port 2.
        assertThat(client.wire.dialled).containsExactly(XioUri.parse("wire://server"),
            XioUri.parse("wire://server:1"), XioUri.parse("wire://server:2"), XioUri.parse("wire://server:2"));
        assertThat(opening.join().connectionCount()).isEqualTo(3);
    }
}
