package io.xio.rdma.verbs;

import io.xio.engine.transport.LoopCounters;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SendRingTest
{
    private final FakeQueuePair qp = new FakeQueuePair("ring");
    private final SendRing ring = new SendRing(qp);
    private final LoopCounters counters = new LoopCounters();

    @BeforeEach
    void register() throws IOException
    {
        ring.register();
    }

    private void stage()
    {
        ring.stage(Wire.HEADER);
    }

    @Test
    void sendsAskForACompletionEveryHalfRingAndACompletionFreesAllBefore() throws IOException
    {
        final List<Integer> signaled = new ArrayList<>();
        for (int sequence = 0; sequence < 100; sequence++)
        {
            assertThat(ring.free()).isPositive();
            stage();
            ring.post(false, counters);
            final FakeQueuePair.Work work = qp.sends().get(sequence);
            if (work.signaled())
            {
                signaled.add(sequence);
                ring.completed(WorkId.slot(work.id()));
                assertThat(ring.tail()).isEqualTo(sequence + 1L);
                assertThat(ring.free()).isEqualTo(SendRing.SLOTS);
            }
        }
        assertThat(signaled).containsExactly(31, 63, 95);
    }

    @Test
    void withoutCompletionsTheRingFillsUp() throws IOException
    {
        for (int i = 0; i < SendRing.SLOTS; i++)
        {
            stage();
        }
        ring.post(false, counters);
        assertThat(ring.free()).isZero();
        ring.completed(31);
        assertThat(ring.free()).isEqualTo(32);
    }

    @Test
    void aSignalledReadOrWriteRestartsTheHalfRingCount() throws IOException
    {
        for (int i = 0; i < 10; i++)
        {
            stage();
        }
        assertThat(ring.take(true)).isEqualTo(10);
        for (int i = 0; i < 40; i++)
        {
            stage();
        }
        ring.post(false, counters);
        final List<FakeQueuePair.Work> sends = qp.sends();
        assertThat(sends).filteredOn(FakeQueuePair.Work::signaled).hasSize(1);
        assertThat(sends.get(41).signaled()).isTrue(); // sequence 42, the 32nd after the read's 10
        assertThat(WorkId.slot(sends.get(41).id())).isEqualTo(42);
    }

    @Test
    void aLoopTurnsMessagesLeaveAsOneChainCountedAsOneWrite() throws IOException
    {
        for (int i = 0; i < 5; i++)
        {
            ring.stage(Wire.HEADER + i);
        }
        ring.post(false, counters);
        ring.post(false, counters); // nothing staged: no empty chain
        assertThat(qp.sendChains).hasSize(1);
        assertThat(qp.sendChains.get(0)).extracting(FakeQueuePair.Work::length).containsExactly(8, 9, 10, 11, 12);
        assertThat(qp.sendChains.get(0)).extracting(FakeQueuePair.Work::address)
            .containsExactly(ring.slotAddress(0), ring.slotAddress(1), ring.slotAddress(2), ring.slotAddress(3),
                ring.slotAddress(4));
        assertThat(counters.writes()).isEqualTo(1);
        assertThat(counters.bytesSent()).isEqualTo(50);
    }

    @Test
    void afterCloseStagedSendsAreDropped() throws IOException
    {
        ring.stage(Wire.HEADER);
        ring.stage(Wire.HEADER);
        ring.post(true, counters);
        ring.stage(Wire.HEADER);
        ring.post(false, counters);
        assertThat(qp.sendChains).hasSize(1);
        assertThat(qp.sendChains.get(0)).hasSize(1);
    }

    @Test
    void releaseDeregistersTheSlots()
    {
        ring.release();
        ring.release();
        assertThat(qp.liveRegistrations()).isZero();
    }
}
