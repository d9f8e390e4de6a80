package io.xio.rdma.verbs;

import org.agrona.BufferUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Large direct buffers go by descriptor and the peer RDMA-READs them: over fake queue pairs. */
class RendezvousTest
{
    private static final int LARGE = 1 << 20;

    private final List<Boolean> sent = new ArrayList<>();
    private Loopback loop;

    @BeforeEach
    void connect() throws IOException
    {
        loop = new Loopback(true);
        loop.pump();
    }

    private static List<FakeQueuePair.Work> descriptors(final FakeQueuePair qp)
    {
        return qp.sends().stream().filter(work -> (work.headerFlags() & Wire.FLAG_RENDEZVOUS) != 0).toList();
    }

    @Test
    void aLargeDirectBufferGoesAsADescriptorThePeerReadsAndOnlyThenIsItReleased()
    {
        final ByteBuffer data = Frames.directData(9, LARGE);
        final long registrations = loop.qpA.liveRegistrations();
        Frames.send(loop.a, 9, data, sent::add);
        loop.contextA.runFlushes();

        final FakeQueuePair.Work descriptor = descriptors(loop.qpA).get(0);
        assertThat(descriptor.length()).isEqualTo(Wire.DESCRIPTOR_LENGTH);
        assertThat(loop.qpA.liveRegistrations()).isEqualTo(registrations + 1);
        final FakeQueuePair.Region exposure = loop.qpA.made.get(loop.qpA.made.size() - 1);
        assertThat(exposure.address).isEqualTo(BufferUtil.address(data));
        assertThat(exposure.length).isEqualTo(LARGE);

        loop.qpB.poll(); // the frame's head, then the descriptor: the reader posts its READ
        assertThat(loop.qpB.reads).hasSize(1);
        final FakeQueuePair.Work read = loop.qpB.reads.get(0);
        assertThat(read.remoteAddress()).isEqualTo(BufferUtil.address(data));
        assertThat(read.rkey()).isEqualTo(exposure.rkey);
        assertThat(read.length()).isEqualTo(LARGE);
        assertThat(read.signaled()).isTrue();
        assertThat(loop.inB.frames).isEmpty();

        loop.qpB.poll(); // the READ's completion delivers the frame and owes the sender a "read done"
        assertThat(loop.inB.frames).containsExactly(Frames.frame(9, LARGE));
        assertThat(sent).isEmpty();
        assertThat(exposure.live).isTrue();

        loop.pump();
        assertThat(sent).containsExactly(true);
        assertThat(exposure.live).isFalse();
        assertThat(loop.qpB.liveRegistrations()).isEqualTo(2); // the read target went with its READ
    }

    @Test
    void messagesBehindADescriptorWaitUntilTheReadIsDone()
    {
        final byte[] small = Frames.frame(2, 100);
        Frames.send(loop.a, 1, Frames.directData(1, LARGE), null);
        Frames.send(loop.a, small);
        loop.contextA.runFlushes();
        loop.qpB.poll();
        assertThat(loop.inB.frames).isEmpty(); // the small frame arrived, but its bytes follow the read's
        loop.pump();
        assertThat(loop.inB.frames).containsExactly(Frames.frame(1, LARGE), small);
    }

    @Test
    void bytesMoreThanTheAssemblerTakesAtOnceAreReadInPieces()
    {
        final int huge = 9 << 20;
        Frames.send(loop.a, 3, Frames.directData(3, huge), sent::add);
        loop.pump();
        assertThat(loop.qpB.reads).hasSizeGreaterThan(1);
        assertThat(loop.qpB.reads.stream().mapToInt(FakeQueuePair.Work::length).sum()).isEqualTo(huge);
        assertThat(loop.inB.frames).containsExactly(Frames.frame(3, huge));
        assertThat(sent).containsExactly(true);
    }

    @Test
    void aBufferInRegisteredApplicationMemoryIsExposedWithoutARegistrationOfItsOwn()
    {
        final ByteBuffer data = Frames.directData(4, LARGE);
        final FakeQueuePair.Region region = loop.qpA.application(data);
        final int made = loop.qpA.made.size();
        Frames.send(loop.a, 4, data, sent::add);
        loop.pump();
        assertThat(loop.qpA.made).hasSize(made);
        assertThat(loop.qpB.reads.get(0).rkey()).isEqualTo(region.rkey);
        assertThat(loop.inB.frames).containsExactly(Frames.frame(4, LARGE));
        assertThat(sent).containsExactly(true);
        assertThat(region.live).isTrue();
    }

    @Test
    void sixteenExposuresAtMostTheRestIsCopied()
    {
        final List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < ExposedBuffers.MAX + 2; i++)
        {
            Frames.send(loop.a, i, Frames.directData(i, ExposedBuffers.MIN), sent::add);
            frames.add(Frames.frame(i, ExposedBuffers.MIN));
        }
        Frames.send(loop.a, 99, Frames.directData(99, ExposedBuffers.MIN - 1), sent::add); // too small to expose
        frames.add(Frames.frame(99, ExposedBuffers.MIN - 1));
        loop.contextA.runFlushes();
        assertThat(descriptors(loop.qpA)).hasSize(ExposedBuffers.MAX);
        loop.pump();
        assertThat(loop.inB.frames).containsExactlyElementsOf(frames);
        assertThat(sent).hasSize(frames.size()).containsOnly(true);
        assertThat(descriptors(loop.qpA)).hasSize(ExposedBuffers.MAX); // the two more were copied
        assertThat(loop.qpA.liveRegistrations()).isEqualTo(2);
    }

    @Test
    void aFailedReadClosesTheReadersLinkAndTheSenderReleasesOnClose()
    {
        loop.qpB.readStatus = 10;
        Frames.send(loop.a, 5, Frames.directData(5, LARGE), sent::add);
        loop.pump();
        assertThat(loop.inB.closedBy).hasMessage("rdma connection rdma://b failed: completion status 10, " +
            "vendor error 7");
        assertThat(loop.qpB.liveRegistrations()).isZero();
        assertThat(sent).isEmpty(); // the peer might still read it
        loop.a.close(null);
        assertThat(sent).containsExactly(false);
        assertThat(loop.qpA.liveRegistrations()).isZero();
    }

    @Test
    void aReadThatCannotBePostedClosesTheLink()
    {
        loop.qpB.failRead = new IOException("no send queue");
        Frames.send(loop.a, 6, Frames.directData(6, LARGE), sent::add);
        loop.pump();
        assertThat(loop.inB.closedBy).hasMessage("rdma connection rdma://b cannot read the peer's data")
            .hasRootCauseMessage("no send queue");
        assertThat(loop.qpB.liveRegistrations()).isZero();
    }
}
