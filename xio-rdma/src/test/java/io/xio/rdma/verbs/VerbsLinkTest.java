package io.xio.rdma.verbs;

import io.xio.engine.ConnectionException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The link over fake queue pairs: the stream, credits, the receive ring and failures, end to end. */
class VerbsLinkTest
{
    private static final int MESSAGE = SendRing.SLOT - Wire.HEADER;

    private static List<byte[]> frames(final int count, final int dataLength)
    {
        final List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            frames.add(Frames.frame(i, dataLength + i % 7));
        }
        return frames;
    }

    private static List<FakeQueuePair.Work> dataMessages(final FakeQueuePair qp)
    {
        return qp.sends().stream()
            .filter(work -> !work.creditOnly() && (work.headerFlags() & Wire.FLAG_HELLO) == 0).toList();
    }

    @Test
    void framesCrossInOrderAndOneTurnsMessagesLeaveAsOneChain() throws IOException
    {
        final Loopback loop = new Loopback(true);
        loop.pump();
        final int chains = loop.qpA.sendChains.size();
        final List<byte[]> sent = frames(20, 1500);
        sent.forEach(frame -> Frames.send(loop.a, frame));
        loop.pump();
        assertThat(loop.inB.frames).containsExactlyElementsOf(sent);
        final int bytes = sent.stream().mapToInt(frame -> frame.length).sum();
        assertThat(loop.qpA.sendChains.get(chains)).hasSize((bytes + MESSAGE - 1) / MESSAGE);
        assertThat(loop.contextB.pool().outstanding()).isLessThanOrEqualTo(1); // the assembler's receive slab
    }

    @Test
    void sendingStopsWhenThePeerHasNoReceiveLeftAndGoesOnWhenItsCreditsReturn() throws IOException
    {
        final Loopback loop = new Loopback(true);
        loop.pump(); // the hellos: each end now knows the other's 64 receives
        final List<byte[]> sent = frames(100, 8000);
        sent.forEach(frame -> Frames.send(loop.a, frame));
        loop.contextA.runFlushes(); // the receiver does not run meanwhile

        final List<FakeQueuePair.Work> stalled = dataMessages(loop.qpA);
        assertThat(stalled).hasSize(62); // 64 receives: one took the hello, one is kept for a credit message
        assertThat(loop.qpB.postedReceives).hasSize(1);
        assertThat(loop.a.backlog()).isPositive();
        assertThat(loop.inB.frames).isEmpty();
        assertThat(stalled).filteredOn(work -> (work.headerFlags() & Wire.FLAG_WANT_CREDIT) != 0)
            .containsExactly(stalled.get(61)); // the one sent with two credits left asks for more

        loop.pump();
        assertThat(loop.inB.frames).containsExactlyElementsOf(sent);
        assertThat(loop.a.backlog()).isZero();
        assertThat(dataMessages(loop.qpB)).isEmpty();
        assertThat(loop.qpB.sends()).filteredOn(FakeQueuePair.Work::creditOnly).isNotEmpty();
    }

    @Test
    void aPeerWithTrafficOfItsOwnReturnsCreditsInItsHeaders() throws IOException
    {
        final Loopback loop = new Loopback(true);
        loop.inB.onFrame = frame -> Frames.send(loop.b, frame); // an echo
        loop.pump();
        final List<byte[]> sent = new ArrayList<>();
        for (int round = 0; round < 10; round++)
        {
            final List<byte[]> turn = frames(40, 3000);
            turn.forEach(frame -> Frames.send(loop.a, frame));
            sent.addAll(turn);
            loop.pump();
        }
        assertThat(loop.inA.frames).containsExactlyElementsOf(sent);
        assertThat(dataMessages(loop.qpA).size()).isGreaterThan(2 * ReceiveRing.SLOTS);
        assertThat(loop.qpB.sends()).noneMatch(FakeQueuePair.Work::creditOnly);
    }

    @Test
    void messagesThatArriveBeforeTheLinkStartedWaitForIt() throws IOException
    {
        final Loopback loop = new Loopback(false);
        loop.pump(); // nothing is delivered without a handler, hellos included
        final List<byte[]> sent = frames(3, 100);
        sent.forEach(frame -> Frames.send(loop.a, frame));
        loop.contextA.runFlushes();
        loop.a.start(loop.inA); // the sender starts: its flush goes out at the next turn
        loop.pump();
        assertThat(loop.inB.frames).isEmpty();
        assertThat(loop.qpB.completions).isEmpty();
        loop.b.start(loop.inB);
        assertThat(loop.inB.frames).containsExactlyElementsOf(sent);
    }

    @Test
    void aReceiveCompletingOutOfOrderClosesTheLink() throws IOException
    {
        final FakeQueuePair qp = new FakeQueuePair("x");
        final VerbsLink link = Loopback.open(new TestContext("x"), qp);
        final Recorder recorder = new Recorder();
        link.established();
        link.start(recorder);
        link.onCompletion(WorkId.receive(1), 0, Wire.HEADER, 0);
        assertThat(recorder.closedBy).isInstanceOf(ConnectionException.class)
            .hasMessage("rdma connection rdma://x: receive slot 1 completed before slot 0");
        assertThat(qp.closes).isEqualTo(1);
        assertThat(qp.releases).isEqualTo(1);
        assertThat(qp.liveRegistrations()).isZero();
    }

    @Test
    void aFailedCompletionClosesTheLinkAndSaysWhy() throws IOException
    {
        final Loopback loop = new Loopback(true);
        loop.qpA.link.onCompletion(WorkId.receive(0), 5, 0, 0);
        loop.qpB.link.onCompletion(3, 12, 0, 7);
        assertThat(loop.inA.closedBy).hasMessage("rdma connection rdma://a was torn down (work flushed)");
        assertThat(loop.inB.closedBy).hasMessage("rdma connection rdma://b failed: completion status 12, vendor " +
            "error 7");
    }

    @Test
    void aMessageShorterThanItsHeaderClosesTheLink() throws IOException
    {
        final Loopback loop = new Loopback(true);
        loop.qpB.completions.clear(); // the hello, replaced by something no peer of ours sends
        loop.b.onCompletion(WorkId.receive(0), 0, 4, 0);
        assertThat(loop.inB.closedBy).hasMessage("rdma peer rdma://b sent a message of 4 bytes");
    }

    @Test
    void aHelloWithTooSmallASlotClosesTheLink() throws IOException
    {
        final Loopback loop = new Loopback(true);
        loop.qpB.completions.clear();
        final int offset = ReceiveRing.offset(0);
        final long slot = loop.qpB.receiveChains.get(0).address() + offset;
        new org.agrona.concurrent.UnsafeBuffer(slot, Wire.HELLO_LENGTH).putInt(Wire.HEADER, Wire.HEADER);
        loop.b.onCompletion(WorkId.receive(0), 0, Wire.HELLO_LENGTH, 0);
        assertThat(loop.inB.closedBy).hasMessage("rdma peer rdma://b announced receive slots of 8 bytes");
    }

    @Test
    void aSendThatCannotBePostedClosesTheLink() throws IOException
    {
        final Loopback loop = new Loopback(true);
        loop.pump();
        loop.qpA.failSends = new IOException("no room");
        Frames.send(loop.a, Frames.frame(1, 10));
        loop.pump();
        assertThat(loop.inA.closedBy).hasMessage("rdma connection rdma://a cannot post sends")
            .hasRootCauseMessage("no room");
    }

    @Test
    void aDisconnectDeliversWhatArrivedThenCloses() throws IOException
    {
        final Loopback loop = new Loopback(true);
        loop.pump();
        final byte[] frame = Frames.frame(1, 10);
        Frames.send(loop.a, frame);
        loop.contextA.runFlushes();
        loop.b.disconnected("DISCONNECTED");
        assertThat(loop.inB.frames).containsExactly(frame);
        assertThat(loop.inB.closedBy).hasMessage("rdma peer rdma://b disconnected (DISCONNECTED)");
    }

    @Test
    void closingGivesBackEveryRegistrationAndTheQueuePairOnce() throws IOException
    {
        final Loopback loop = new Loopback(true);
        loop.pump();
        assertThat(loop.qpA.liveRegistrations()).isEqualTo(2); // the send and the receive slots
        loop.a.close(null);
        loop.a.close(null);
        assertThat(loop.inA.closed).isTrue();
        assertThat(loop.inA.closedBy).isNull();
        assertThat(loop.qpA.liveRegistrations()).isZero();
        assertThat(loop.qpA.closes).isEqualTo(1);
        assertThat(loop.qpA.releases).isEqualTo(1);
        assertThat(loop.contextA.pool().outstanding()).isZero();
    }
}
