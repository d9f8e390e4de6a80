package io.xio.engine.session;

import io.xio.engine.CallOptions;
import io.xio.engine.Limits;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.RequestCancelledException;
import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.XioFuture;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.protocol.Status;
import io.xio.engine.session.call.Lane;
import io.xio.engine.session.call.LaneState;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static io.xio.engine.session.PeerFrames.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** This side's calls on a lane, against a scripted server on a fake clock: deadlines, loss, cancels, fences. */
class OutboundCallsTest
{
    private static final long SESSION = ScriptedEngine.SESSION_ID;

    private final ScriptedEngine client = new ScriptedEngine();

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

    /** The last id of the range a CANCEL names. */
    private static long lastOf(final ScriptedWire.Sent cancel)
    {
        return new SetupCodec.Reader(new UnsafeBuffer(cancel.header()), 0, cancel.header().length).i64();
    }

    private List<XioFuture<Message>> requests(final Session session, final int count)
    {
        final List<XioFuture<Message>> calls = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            calls.add(session.request(text("q" + i)));
        }
        client.turn();
        return calls;
    }

    @Test
    void aRequestPastItsDeadlineFailsAndThePeerIsToldToCancelIt()
    {
        final Session session = client.openSession();
        final XioFuture<Message> call = session.request(text("slow"), CallOptions.timeout(Duration.ofMillis(100)));
        client.turn();
        final ScriptedWire.Link link = client.wire.last();
        final long id = link.sent(FrameType.REQUEST).get(0).requestId();
        client.advance(Duration.ofMillis(98));
        assertThat(call).isNotDone();
        assertThat(link.sent(FrameType.CANCEL)).isEmpty();
        client.advance(Duration.ofMillis(4));
        assertThatThrownBy(call::get).cause().isInstanceOf(XioTimeoutException.class)
            .satisfies(late -> assertThat(((XioTimeoutException)late).mayHaveRun()).as("written").isTrue());
        final ScriptedWire.Sent cancel = link.sent(FrameType.CANCEL).get(0);
        assertThat(cancel.requestId()).isEqualTo(id);
        assertThat(new SetupCodec.Reader(new UnsafeBuffer(cancel.header()), 0, cancel.header().length).i64())
            .as("the range ends at the same id").isEqualTo(id);

        link.deliver(response(id, "too late"));
        client.turn();
        assertThat(session.statistics().inFlight()).as("the late answer is dropped, the permit was returned")
            .isZero();
    }

    @Test
    void requestsInFlightWhenTheConnectionBreaksAreRetransmittedAfterTheReconnectInIdOrder() throws Exception
    {
        final Session session = client.openSession();
        final XioFuture<Message> first = session.request(text("one"));
        final XioFuture<Message> second = session.request(text("two"));
        client.turn();
        final ScriptedWire.Link lost = client.wire.last();
        assertThat(lost.sent(FrameType.REQUEST)).hasSize(2);
        lost.reset();
        client.advance(Duration.ofMillis(7));

        final ScriptedWire.Link again = client.wire.last();
        assertThat(again).isNotSameAs(lost);
        assertThat(again.sent(FrameType.REQUEST)).as("nothing is sent before the attach is accepted").isEmpty();
        again.deliver(PeerFrames.attachAccept(again.sent(FrameType.ATTACH).get(0).requestId(), SESSION));
        client.turn();
        final var resent = again.sent(FrameType.REQUEST);
        assertThat(resent).hasSize(2);
        assertThat(resent.get(0).requestId()).isLessThan(resent.get(1).requestId());
        assertThat(resent).allMatch(f -> (f.flags() & FrameFlags.RETRANSMIT) != 0);
        assertThat(resent.get(0).headerText()).isEqualTo("one");
        assertThat(session.statistics().retransmits()).isEqualTo(2);

        again.deliver(response(resent.get(1).requestId(), "2"));
        again.deliver(response(resent.get(0).requestId(), "1"));
        client.turn();
        try (Message one = first.get(); Message two = second.get())
        {
            assertThat(StandardCharsets.UTF_8.decode(one.header()).toString()).isEqualTo("1");
            assertThat(StandardCharsets.UTF_8.decode(two.header()).toString()).isEqualTo("2");
        }
    }

    @Test
    void aRequestWaitingForTheReconnectFailsAtItsDeadlineNamingTheLoss()
    {
        final Session session = client.openSession();
        client.wire.refuseConnects = true;
        client.wire.last().reset();
        client.turn();
        final XioFuture<Message> call = session.request(text("meanwhile"), CallOptions.timeout(Duration.ofMillis(50)));
        client.advance(Duration.ofMillis(55));
        assertThatThrownBy(call::get).isInstanceOf(ExecutionException.class)
            .hasMessageContaining("no connection to wire://server").hasMessageContaining("reset by the test");
    }

    @Test
    void aCancelledCallIsCancelledAtThePeerAndItsOutcomeIsTheCountThePeerReports() throws Exception
    {
        final Session session = client.openSession();
        final XioFuture<Message> call = session.request(text("cancel me"));
        client.turn();
        final ScriptedWire.Link link = client.wire.last();
        final long id = link.sent(FrameType.REQUEST).get(0).requestId();
        call.cancel(false);
        client.turn();
        assertThatThrownBy(call::get).isInstanceOf(RequestCancelledException.class);
        assertThat(link.sent(FrameType.CANCEL).get(0).requestId()).isEqualTo(id);
        assertThat(call.cancelOutcome()).isNotDone();
        link.deliver(PeerFrames.cancelResult(0, SESSION, id, id, 1));
        client.turn();
        assertThat(call.cancelOutcome().get()).as("aborted by the peer").isTrue();
    }

    @Test
    void aRangeCancelNamesTheWrittenRequestsInOneCancelAndReportsThePeersCount() throws Exception
    {
        final Session session = client.openSession();
        final List<XioFuture<Message>> calls = requests(session, 5);
        final ScriptedWire.Link link = client.wire.last();
        final long second = calls.get(1).requestId();
        final long fourth = calls.get(3).requestId();

        final CompletableFuture<Integer> count = session.cancel(second, fourth);
        client.turn();
        final List<ScriptedWire.Sent> cancels = link.sent(FrameType.CANCEL);
        assertThat(cancels).hasSize(1);
        assertThat(cancels.get(0).requestId()).isEqualTo(second);
        assertThat(lastOf(cancels.get(0))).isEqualTo(fourth);
        for (int i = 1; i <= 3; i++)
        {
            assertThatThrownBy(calls.get(i)::get).isInstanceOf(RequestCancelledException.class);
            assertThat(calls.get(i).cancelOutcome()).as("waits for the peer's answer").isNotDone();
        }
        assertThat(calls.get(0)).isNotDone();
        assertThat(calls.get(4)).isNotDone();
        assertThat(count).isNotDone();

        link.deliver(PeerFrames.cancelResult(0, SESSION, second, fourth, 3));
        client.turn();
        assertThat(count.get()).isEqualTo(3);
        for (int i = 1; i <= 3; i++)
        {
            assertThat(calls.get(i).cancelOutcome().get()).as("the count covers every id of the range").isTrue();
        }
        link.deliver(response(calls.get(0).requestId(), "first"));
        link.deliver(response(calls.get(4).requestId(), "fifth"));
        client.turn();
        calls.get(0).get().close();
        calls.get(4).get().close();
    }

    @Test
    void aCountShortOfTheRangeLeavesEachOfItsRequestsNotKnownToBeAborted() throws Exception
    {
        final Session session = client.openSession();
        final List<XioFuture<Message>> calls = requests(session, 3);
        final ScriptedWire.Link link = client.wire.last();
        final CompletableFuture<Integer> count = session.cancelAll();
        client.turn();
        final ScriptedWire.Sent cancel = link.sent(FrameType.CANCEL).get(0);
        assertThat(cancel.requestId()).isEqualTo(calls.get(0).requestId());
        assertThat(lastOf(cancel)).isEqualTo(calls.get(2).requestId());

        link.deliver(PeerFrames.cancelResult(0, SESSION, cancel.requestId(), lastOf(cancel), 2));
        client.turn();
        assertThat(count.get()).isEqualTo(2);
        for (final XioFuture<Message> call : calls)
        {
            assertThat(call.cancelOutcome().get()).as("which two, the count does not say").isFalse();
        }
    }

    @Test
    void requestsNotWrittenYetAreAbortedHereAndThoseOnALostConnectionAreNotToldToThePeer() throws Exception
    {
        final Session session = client.openSession();
        final XioFuture<Message> written = session.request(text("written"));
        client.turn();
        client.wire.refuseConnects = true;
        client.wire.last().reset();
        client.turn();
        final XioFuture<Message> waiting = session.request(text("waiting for the reconnect"));
        client.turn();

        final CompletableFuture<Integer> count = session.cancelAll();
        client.turn();
        assertThat(client.wire.links).allSatisfy(link -> assertThat(link.sent(FrameType.CANCEL)).isEmpty());
        assertThat(count.get()).as("only the one that never left").isEqualTo(1);
        assertThatThrownBy(waiting::get).isInstanceOf(RequestCancelledException.class);
        assertThat(waiting.cancelOutcome().get()).isTrue();
        assertThatThrownBy(written::get).isInstanceOf(RequestCancelledException.class);
        assertThat(written.cancelOutcome().get()).as("the peer may run it").isFalse();
    }

    @Test
    void aConnectionThatDropsBeforeThePeerAnswersCompletesTheCountWithWhatIsKnown() throws Exception
    {
        final Session session = client.openSession();
        final List<XioFuture<Message>> calls = requests(session, 2);
        final CompletableFuture<Integer> count = session.cancelAll();
        client.turn();
        final ScriptedWire.Link link = client.wire.last();
        assertThat(link.sent(FrameType.CANCEL)).hasSize(1);
        assertThat(count).isNotDone();
        client.wire.refuseConnects = true;
        link.reset();
        client.turn();
        assertThat(count.get()).isZero();
        for (final XioFuture<Message> call : calls)
        {
            assertThat(call.cancelOutcome().get()).isFalse();
        }
    }

    @Test
    void aRangeThatIsEmptyOrStartsBelowTheFirstIdIsRefused()
    {
        final Session session = client.openSession();
        assertThatThrownBy(() -> session.cancel(0, 5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> session.cancel(5, 4)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("5..4");
        final CompletableFuture<Integer> none = session.cancel(7, 7);
        client.turn();
        assertThat(none).as("nothing pending there: nothing aborted").isCompletedWithValue(0);
    }

    @Test
    void aRequestHandedToAnotherConnectionBeforeItsLanePassedARangeCancelIsCancelledWhereItArrives()
        throws Exception
    {
        final CompletableFuture<Session> opening = client.engine.openSession("wire://server/kv",
            SessionOptions.DEFAULT.withConnections(2));
        client.turn();
        final ScriptedWire.Link first = client.wire.last();
        first.deliver(PeerFrames.setupAccept(first.sent(FrameType.SETUP).get(0).requestId(), SESSION));
        client.turn();
        final ScriptedWire.Link second = client.wire.last();
        second.deliver(PeerFrames.attachAccept(second.sent(FrameType.ATTACH).get(0).requestId(), SESSION));
        client.turn();
        final Session session = opening.join();
        final List<XioFuture<Message>> calls = requests(session, 2);
        final ScriptedWire.Link holder = first.sent(FrameType.REQUEST).isEmpty() ? second : first;
        final ScriptedWire.Link other = holder == first ? second : first;
        assertThat(holder.sent(FrameType.REQUEST)).hasSize(2);

        final CompletableFuture<Integer> count = session.cancelAll(); // both passes queued, not run yet
        holder.reset(); // its lane hands both requests to the other before either pass runs
        client.turn();
        assertThat(other.sent(FrameType.REQUEST)).as("not retransmitted: cancelled on arrival").isEmpty();
        final List<ScriptedWire.Sent> cancels = other.sent(FrameType.CANCEL);
        assertThat(cancels).hasSize(2);
        for (final XioFuture<Message> call : calls)
        {
            assertThatThrownBy(call::get).isInstanceOf(RequestCancelledException.class);
        }
        assertThat(count).isNotDone();
        for (final ScriptedWire.Sent cancel : cancels)
        {
            other.deliver(PeerFrames.cancelResult(0, SESSION, cancel.requestId(), lastOf(cancel), 1));
        }
        client.turn();
        assertThat(count.get()).isEqualTo(2);
        assertThat(calls.get(0).cancelOutcome().get()).isTrue();
    }

    @Test
    void aCallCancelledAmongThousandsInFlightIsTheOnlyOneCancelledAndTheOthersAreAnswered() throws Exception
    {
        final int count = 4096;
        try (ScriptedEngine many = new ScriptedEngine(Limits.DEFAULT.withMaxInFlight(count)))
        {
            final Session session = many.openSession(count, 2 * count);
            final List<XioFuture<Message>> calls = new ArrayList<>();
            for (int i = 0; i < count; i++)
            {
                calls.add(session.request(text("q" + i)));
            }
            many.turn();
            final ScriptedWire.Link link = many.wire.last();
            assertThat(link.sent(FrameType.REQUEST)).hasSize(count);

            final XioFuture<Message> loser = calls.get(count / 2 + 7);
            final long id = loser.requestId();
            assertThat(loser.cancel(false)).isTrue();
            many.turn();
            final List<ScriptedWire.Sent> cancels = link.sent(FrameType.CANCEL);
            assertThat(cancels).hasSize(1);
            assertThat(cancels.get(0).requestId()).isEqualTo(id);
            assertThat(lastOf(cancels.get(0))).isEqualTo(id);
            assertThatThrownBy(loser::get).isInstanceOf(RequestCancelledException.class);
            assertThat(loser.cancelOutcome()).as("waits for the peer's answer").isNotDone();
            link.deliver(PeerFrames.cancelResult(0, SESSION, id, id, 1));
            many.turn();
            assertThat(loser.cancelOutcome().get()).as("aborted by the peer").isTrue();

            for (final XioFuture<Message> call : calls)
            {
                if (call != loser)
                {
                    link.deliver(response(call.requestId(), "r"));
                }
            }
            many.turn();
            for (final XioFuture<Message> call : calls)
            {
                if (call != loser)
                {
                    assertThat(call).as("call %d", call.requestId()).isCompleted();
                    call.get().close();
                }
            }
        }
    }

    @Test
    void aCallCancelledBeforeItsLaneTookItNeverLeftThisSideAndIsKnownToBeAborted() throws Exception
    {
        final Session session = client.openSession();
        // From off the context's thread the lane takes the call on its next turn: the cancel comes first.
        final XioFuture<Message> call = CompletableFuture.supplyAsync(() -> session.request(text("too late"))).get();
        assertThat(call.cancel(false)).isTrue();
        client.turn();
        assertThat(client.wire.last().sent(FrameType.REQUEST)).isEmpty();
        assertThat(client.wire.last().sent(FrameType.CANCEL)).as("nothing to tell the peer").isEmpty();
        assertThatThrownBy(call::get).isInstanceOf(RequestCancelledException.class);
        assertThat(call.cancelOutcome().get()).isTrue();
    }

    @Test
    void aCallCancelledWhileItsLaneHandsItToAnotherConnectionIsCancelledWhereItArrives() throws Exception
    {
        final CompletableFuture<Session> opening = client.engine.openSession("wire://server/kv",
            SessionOptions.DEFAULT.withConnections(2));
        client.turn();
        final ScriptedWire.Link first = client.wire.last();
        first.deliver(PeerFrames.setupAccept(first.sent(FrameType.SETUP).get(0).requestId(), SESSION));
        client.turn();
        final ScriptedWire.Link second = client.wire.last();
        second.deliver(PeerFrames.attachAccept(second.sent(FrameType.ATTACH).get(0).requestId(), SESSION));
        client.turn();
        final Session session = opening.join();
        final List<XioFuture<Message>> calls = requests(session, 2);
        final ScriptedWire.Link holder = first.sent(FrameType.REQUEST).isEmpty() ? second : first;
        final ScriptedWire.Link other = holder == first ? second : first;
        final XioFuture<Message> cancelled = calls.get(0);
        final XioFuture<Message> kept = calls.get(1);

        assertThat(cancelled.cancel(false)).isTrue(); // the lanes' passes queued, not run yet
        holder.reset(); // its lane hands both requests to the other before its pass runs
        client.turn();
        final List<ScriptedWire.Sent> requests = other.sent(FrameType.REQUEST);
        assertThat(requests).as("only the one not cancelled is retransmitted").hasSize(1);
        assertThat(requests.get(0).requestId()).isEqualTo(kept.requestId());
        final List<ScriptedWire.Sent> cancels = other.sent(FrameType.CANCEL);
        assertThat(cancels).hasSize(1);
        assertThat(cancels.get(0).requestId()).isEqualTo(cancelled.requestId());
        assertThat(lastOf(cancels.get(0))).isEqualTo(cancelled.requestId());
        assertThat(cancelled.cancelOutcome()).isNotDone();
        other.deliver(PeerFrames.cancelResult(0, SESSION, cancelled.requestId(), cancelled.requestId(), 1));
        other.deliver(response(kept.requestId(), "kept"));
        client.turn();
        assertThat(cancelled.cancelOutcome().get()).isTrue();
        kept.get().close();
    }

    @Test
    void anOfferedOutputHoldsATimedOutCallUntilThePeerAnswersTheCancel()
    {
        client.wire.oneSided = true;
        final Session session = client.openSession();
        final ByteBuffer output = ByteBuffer.allocateDirect(4096);
        final XioFuture<Message> call = session.request(text("write it here").responseInto(output),
            CallOptions.timeout(Duration.ofMillis(20)));
        client.turn();
        final ScriptedWire.Link link = client.wire.last();
        final ScriptedWire.Sent descriptor = link.sent(FrameType.DATA_DESCRIPTOR).get(0);
        final long id = link.sent(FrameType.REQUEST).get(0).requestId();
        assertThat(descriptor.requestId()).isEqualTo(id);

        client.advance(Duration.ofMillis(25));
        assertThat(link.sent(FrameType.CANCEL)).hasSize(1);
        assertThat(call).as("the peer may still write into the output: the call is held").isNotDone();

        link.deliver(PeerFrames.cancelResult(0, SESSION, id, id, 0));
        client.turn();
        assertThatThrownBy(call::get).hasCauseInstanceOf(XioTimeoutException.class);
    }

    @Test
    void anOfferedOutputIsFencedByTheConnectionsEnd()
    {
        client.wire.oneSided = true;
        final Session session = client.openSession();
        final XioFuture<Message> call = session.request(
            text("write it here").responseInto(ByteBuffer.allocateDirect(4096)),
            CallOptions.timeout(Duration.ofMillis(20)));
        client.turn();
        client.advance(Duration.ofMillis(25));
        assertThat(call).isNotDone();
        client.wire.refuseConnects = true;
        client.wire.last().reset();
        client.turn();
        assertThatThrownBy(call::get).hasCauseInstanceOf(XioTimeoutException.class);
    }

    @Test
    void anAnswerToALaterCancelFencesOnlyTheOutputsOfferedBeforeIt()
    {
        client.wire.oneSided = true;
        final Session session = client.openSession();
        final XioFuture<Message> first = session.request(
            text("a").responseInto(ByteBuffer.allocateDirect(64)), CallOptions.timeout(Duration.ofMillis(20)));
        client.advance(Duration.ofMillis(25)); // first times out: CANCEL 1
        final XioFuture<Message> second = session.request(
            text("b").responseInto(ByteBuffer.allocateDirect(64)), CallOptions.timeout(Duration.ofMillis(20)));
        client.advance(Duration.ofMillis(25)); // second, offered after CANCEL 1, times out: CANCEL 2
        final ScriptedWire.Link link = client.wire.last();
        final var cancels = link.sent(FrameType.CANCEL);
        assertThat(cancels).hasSize(2);
        assertThat(first).isNotDone();
        assertThat(second).isNotDone();

        link.deliver(PeerFrames.cancelResult(0, SESSION, cancels.get(0).requestId(), cancels.get(0).requestId(), 0));
        client.turn();
        assertThat(first).as("offered before the first CANCEL: fenced by its answer").isCompletedExceptionally();
        assertThat(second).as("offered after it: the peer may still write there").isNotDone();

        link.deliver(PeerFrames.cancelResult(0, SESSION, cancels.get(1).requestId(), cancels.get(1).requestId(), 0));
        client.turn();
        assertThat(second).isCompletedExceptionally();
    }

    @Test
    void aSessionClosedWithOutputsOfferedCancelsThemAndStaysOnTheConnectionUntilTheAnswer()
    {
        client.wire.oneSided = true;
        final SessionImpl session = (SessionImpl)client.openSession();
        final XioFuture<Message> call = session.request(text("held").responseInto(ByteBuffer.allocateDirect(64)));
        client.turn();
        final ScriptedWire.Link link = client.wire.last();
        final long id = link.sent(FrameType.REQUEST).get(0).requestId();
        final Lane lane = session.lanes.all()[0];
        session.close();
        client.turn();
        assertThat(lane.state()).isEqualTo(LaneState.CLOSING);
        final ScriptedWire.Sent cancel = link.sent(FrameType.CANCEL).get(0);
        assertThat(cancel.requestId()).isEqualTo(id);
        assertThat(link.sent(FrameType.CLOSE)).hasSize(1);
        assertThat(call).as("held: the peer may still write into its output").isNotDone();

        link.deliver(PeerFrames.cancelResult(0, SESSION, id, id, 1));
        client.turn();
        assertThat(lane.state()).isEqualTo(LaneState.CLOSED);
        assertThatThrownBy(call::get).isInstanceOf(ExecutionException.class);
        assertThat(link.isClosed()).as("nothing uses the connection any more").isTrue();
    }

    @Test
    void aCallbackThatClosesItsSessionWhenTheConnectionDropsLeavesTheOtherSessionsReconnecting()
    {
        client.wire.oneSided = true;
        final Session first = client.openSession();
        final Session second = client.openSecondSession(78);
        final XioFuture<Message> call = first.request(
            text("held").responseInto(ByteBuffer.allocateDirect(64)), CallOptions.timeout(Duration.ofMillis(20)));
        final java.util.List<Object> retried = new java.util.ArrayList<>();
        call.whenComplete((message, failure) ->
        {
            first.close(); // on the context thread, while the lane is handling the loss
            retried.add(second.request(text("again")));
        });
        client.advance(Duration.ofMillis(25));
        assertThat(call).isNotDone();
        final int connects = client.wire.connectTimes.size();
        client.wire.last().reset();
        client.turn();
        assertThat(call).isCompletedExceptionally();
        assertThat(first.isOpen()).isFalse();
        assertThat(retried).hasSize(1);
        assertThat(second.isOpen()).isTrue();
        client.advance(Duration.ofMillis(8));
        assertThat(client.wire.connectTimes.size()).as("the other session reconnects").isGreaterThan(connects);
    }

    @Test
    void aCallbackThatRetriesWhenTheConnectionDropsSeesTheLaneDownAndItsCallWaitsForTheReconnect()
    {
        client.wire.oneSided = true;
        final Session session = client.openSession();
        final XioFuture<Message> call = session.request(
            text("held").responseInto(ByteBuffer.allocateDirect(64)), CallOptions.timeout(Duration.ofMillis(20)));
        final java.util.List<XioFuture<Message>> retried = new java.util.ArrayList<>();
        call.whenComplete((message, failure) -> retried.add(session.request(text("again"))));
        client.advance(Duration.ofMillis(25));
        client.wire.last().reset();
        client.turn();
        assertThat(retried).as("the retry was accepted, not thrown out of the callback").hasSize(1);
        client.advance(Duration.ofMillis(8));
        final ScriptedWire.Link again = client.wire.last();
        again.deliver(PeerFrames.attachAccept(again.sent(FrameType.ATTACH).get(0).requestId(), SESSION));
        client.turn();
        final ScriptedWire.Sent resent = again.sent(FrameType.REQUEST).get(0);
        assertThat(resent.headerText()).isEqualTo("again");
        again.deliver(response(resent.requestId(), "done"));
        client.turn();
        assertThat(retried.get(0)).isCompleted();
        retried.get(0).join().close();
    }

    @Test
    void aResponseWrittenIntoAnOutputNeverOfferedClosesTheConnection()
    {
        final Session session = client.openSession();
        session.request(text("plain"));
        client.turn();
        final ScriptedWire.Link link = client.wire.last();
        final long id = link.sent(FrameType.REQUEST).get(0).requestId();
        link.deliver(PeerFrames.writtenResponse(SESSION, id, 16));
        client.turn();
        assertThat(link.isClosed()).isTrue();
    }
}
