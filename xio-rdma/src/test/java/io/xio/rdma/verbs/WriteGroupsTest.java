package io.xio.rdma.verbs;

import io.xio.engine.Outbound;
import io.xio.engine.transport.RemoteRegion;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** One-sided writes of response data into a requester's offered buffer: over fake queue pairs. */
class WriteGroupsTest
{
    private final List<Boolean> written = new ArrayList<>();
    private final RemoteRegion region = new RemoteRegion();
    private final ByteBuffer output = ByteBuffer.allocateDirect(1 << 20);
    private Loopback loop;

    @BeforeEach
    void connect() throws IOException
    {
        loop = new Loopback(true);
        loop.pump();
        loop.qpA.application(output);
        assertThat(loop.a.exposeForWrite(output, region)).isTrue();
    }

    /** What the responder does: the data into the region, then the frame that tells the requester. */
    private void respond(final ByteBuffer... data)
    {
        final byte[] frame = Frames.frame(data.length, 10);
        loop.b.claim(frame.length).putBytes(loop.b.claimOffset(), frame);
        loop.b.commitInto(region, data, data.length, written::add);
    }

    @Test
    void onlyRegisteredApplicationMemoryIsOffered()
    {
        final RemoteRegion other = new RemoteRegion();
        assertThat(loop.a.exposeForWrite(ByteBuffer.allocate(8192), other)).isFalse();
        assertThat(loop.a.exposeForWrite(ByteBuffer.allocateDirect(8192), other)).isFalse();
        assertThat(other.key()).isZero();
        assertThat(region.address()).isEqualTo(BufferUtil.address(output));
        assertThat(region.key()).isEqualTo(loop.qpA.application.get(0).rkey);
        assertThat(region.length()).isEqualTo(output.capacity());
    }

    @Test
    void theDataIsWrittenBeforeTheFrameEachSourceTheWayItCanGo()
    {
        final ByteBuffer small = ByteBuffer.wrap(Frames.data(1, 5000)); // copied into a send slot
        final ByteBuffer large = Frames.directData(2, 20_000); // registered for its write
        final ByteBuffer kept = Frames.directData(3, 10_000); // in registered application memory
        final FakeQueuePair.Region application = loop.qpB.application(kept);
        final int made = loop.qpB.made.size();
        assertThat(loop.b.canWriteInto(Outbound.of(ByteBuffer.allocate(1), small, large, kept))).isTrue();
        respond(small, large, kept);
        loop.contextB.runFlushes();

        assertThat(loop.qpB.log.subList(loop.qpB.log.size() - 2, loop.qpB.log.size()))
            .containsExactly("WRITE x3", "SEND x1");
        final List<FakeQueuePair.Work> writes = loop.qpB.writes();
        assertThat(writes).extracting(FakeQueuePair.Work::signaled).containsExactly(false, false, true);
        assertThat(writes).extracting(FakeQueuePair.Work::remoteAddress).containsExactly(region.address(),
            region.address() + 5000, region.address() + 25_000);
        assertThat(loop.qpB.made).hasSize(made + 1);
        final FakeQueuePair.Region forLarge = loop.qpB.made.get(made);
        assertThat(writes.get(0).lkey()).isEqualTo(loop.qpB.made.get(0).lkey); // the send slots
        assertThat(writes.get(1).lkey()).isEqualTo(forLarge.lkey);
        assertThat(writes.get(1).address()).isEqualTo(BufferUtil.address(large));
        assertThat(writes.get(2).lkey()).isEqualTo(application.lkey);

        final byte[] landed = new byte[35_000];
        output.get(0, landed);
        final ByteBuffer expected = ByteBuffer.allocate(35_000).put(Frames.data(1, 5000)).put(Frames.data(2, 20_000))
            .put(Frames.data(3, 10_000));
        assertThat(landed).isEqualTo(expected.array());
        assertThat(written).isEmpty();
        assertThat(forLarge.live).isTrue();

        loop.pump();
        assertThat(loop.inA.frames).hasSize(1);
        assertThat(written).containsExactly(true);
        assertThat(forLarge.live).isFalse();
    }

    @Test
    void atMostFourGroupsAreInFlightAndACompletedGroupReleasesItsSources()
    {
        final ByteBuffer data = Frames.directData(7, 20_000);
        final Outbound message = Outbound.of(ByteBuffer.allocate(1), data);
        for (int group = 0; group < WriteTracker.MAX_GROUPS; group++)
        {
            assertThat(loop.b.canWriteInto(message)).isTrue();
            respond(data);
        }
        assertThat(loop.b.canWriteInto(message)).isFalse();
        assertThat(loop.qpB.liveRegistrations()).isEqualTo(2 + WriteTracker.MAX_GROUPS);
        loop.contextB.runFlushes();
        loop.qpB.poll(); // the writes' completions
        assertThat(written).containsExactly(true, true, true, true);
        assertThat(loop.qpB.liveRegistrations()).isEqualTo(2);
        assertThat(loop.b.canWriteInto(message)).isTrue();
    }

    @Test
    void dataTooSmallTooManyOrOnTheHeapBeyondASlotGoesInTheFrame() throws IOException
    {
        final ByteBuffer direct = ByteBuffer.allocateDirect(WriteTracker.MIN);
        assertThat(loop.b.canWriteInto(Outbound.of(ByteBuffer.allocate(1), direct))).isTrue();
        assertThat(loop.b.canWriteInto(Outbound.of(ByteBuffer.allocate(1), direct.slice(0, WriteTracker.MIN - 1))))
            .isFalse();
        assertThat(loop.b.canWriteInto(Outbound.of(ByteBuffer.allocate(1), ByteBuffer.allocate(SendRing.SLOT + 1))))
            .isFalse();
        final ByteBuffer[] many = new ByteBuffer[WriteTracker.MAX_WRITES + 1];
        for (int i = 0; i < many.length; i++)
        {
            many[i] = ByteBuffer.allocateDirect(1024);
        }
        assertThat(loop.b.canWriteInto(Outbound.of(ByteBuffer.allocate(1), many))).isFalse();
        final VerbsLink unconnected = Loopback.open(new TestContext("c"), new FakeQueuePair("c"));
        assertThat(unconnected.canWriteInto(Outbound.of(ByteBuffer.allocate(1), direct))).isFalse();
        loop.b.close(null);
        assertThat(loop.b.canWriteInto(Outbound.of(ByteBuffer.allocate(1), direct))).isFalse();
    }

    @Test
    void closingWithWritesInFlightTellsThemNotWritten()
    {
        respond(Frames.directData(8, 20_000));
        loop.b.close(null);
        assertThat(written).containsExactly(false);
        assertThat(loop.qpB.liveRegistrations()).isZero();
    }

    @Test
    void aWriteThatCannotBeSetUpClosesTheLinkThenTellsItsCompletion()
    {
        loop.qpB.failRegister = new IOException("no memory to pin");
        loop.b.commitInto(region, new ByteBuffer[] {Frames.directData(8, 20_000)}, 1, ok ->
        {
            assertThat(loop.inB.closed).isTrue();
            written.add(ok);
        });
        assertThat(loop.inB.closedBy).hasMessage("rdma connection rdma://b cannot write into the peer's buffer")
            .hasRootCauseMessage("no memory to pin");
        assertThat(written).containsExactly(false);
    }
}
