package io.xio.rdma.verbs;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ReceiveRingTest
{
    private final FakeQueuePair qp = new FakeQueuePair("ring");
    private final ReceiveRing ring = new ReceiveRing(qp);

    @BeforeEach
    void postAll() throws IOException
    {
        assertThat(ring.postAll()).isEqualTo(ReceiveRing.SLOTS);
    }

    @Test
    void everySlotIsPostedInFourChainedQuarters()
    {
        assertThat(qp.receiveChains).hasSize(4);
        final long base = qp.receiveChains.get(0).address();
        for (int batch = 0; batch < 4; batch++)
        {
            final FakeQueuePair.ReceiveChain chain = qp.receiveChains.get(batch);
            assertThat(chain.firstId()).isEqualTo(WorkId.receive(batch * ReceiveRing.BATCH));
            assertThat(chain.address()).isEqualTo(base + (long)batch * ReceiveRing.BATCH * SendRing.SLOT);
            assertThat(chain.count()).isEqualTo(ReceiveRing.BATCH);
            assertThat(chain.slotLength()).isEqualTo(SendRing.SLOT);
        }
        assertThat(qp.receivePosts).containsExactly(0, 1, 2, 3);
        assertThat(qp.postedReceives).hasSize(ReceiveRing.SLOTS);
    }

    @Test
    void aQuarterIsRepostedAsOneChainOnceItsLastSlotWasConsumed() throws IOException
    {
        final List<Integer> reposting = new ArrayList<>();
        for (int round = 0; round < 2; round++)
        {
            for (int slot = 0; slot < ReceiveRing.SLOTS; slot++)
            {
                final int posted = ring.consumed(slot);
                if (posted > 0)
                {
                    assertThat(posted).isEqualTo(ReceiveRing.BATCH);
                    reposting.add(slot);
                }
            }
        }
        assertThat(reposting).containsExactly(15, 31, 47, 63, 15, 31, 47, 63);
        assertThat(qp.receivePosts).containsExactly(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3);
    }

    @Test
    void completionsAreTakenOnlyInTheOrderTheReceivesWerePosted()
    {
        assertThat(ring.arrived(1, 8)).isFalse();
        assertThat(ring.next()).isZero();
        assertThat(ring.waiting()).isFalse();
        assertThat(ring.arrived(0, 8)).isTrue();
        assertThat(ring.arrived(0, 8)).isFalse();
        assertThat(ring.next()).isEqualTo(1);
    }

    @Test
    void messagesWaitInArrivalOrderAcrossTheEndOfTheRing()
    {
        for (int slot = 0; slot < 62; slot++)
        {
            ring.arrived(slot, 8);
            ring.take();
        }
        ring.arrived(62, 100);
        ring.arrived(63, 200);
        ring.arrived(0, 300);
        final List<Integer> taken = new ArrayList<>();
        while (ring.waiting())
        {
            final int slot = ring.take();
            taken.add(slot);
            taken.add(ring.length(slot));
        }
        assertThat(taken).containsExactly(62, 100, 63, 200, 0, 300);
    }
}
