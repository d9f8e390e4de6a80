package io.xio.benchmarks.compare;

import io.xio.benchmarks.compare.peers.MemoryCopyPeer;
import io.xio.benchmarks.compare.peers.SpinningSocketPeer;
import org.junit.jupiter.api.Test;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The floor peers and the paced call loop, in this JVM with short windows: they run and count what they did. */
class ComparisonPeersTest
{
    private static final Workload.Timing SHORT = new Workload.Timing(10, 10, 200);

    @Test
    void theSpinningSocketEchoesEachCallAndIsAPingPong() throws Exception
    {
        final Peer peer = PeerMain.peer("spin-socket");
        assertThat(peer).isInstanceOf(SpinningSocketPeer.class);
        for (final Workload workload : new Workload[] {Workload.echo(4096, 1, SHORT), Workload.transfer(256 * 1024,
            1, SHORT)})
        {
            try (Peer.Server server = peer.serve("", workload))
            {
                final Measurement m = peer.run("", server.address(), workload);

                assertThat(m.calls()).isPositive();
                assertThat(m.latency().getTotalCount()).isEqualTo(m.calls());
            }
        }
        assertThatThrownBy(() -> peer.run("", "1", Workload.echo(64, 2, SHORT)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 outstanding only");
    }

    @Test
    void theMemoryCopyNeedsNoServerAndCountsCopies() throws Exception
    {
        final Peer peer = PeerMain.peer("memcpy");
        assertThat(peer).isInstanceOf(MemoryCopyPeer.class);
        final Workload workload = Workload.transfer(Workload.MIB, 1, SHORT);
        try (Peer.Server server = peer.serve("", workload))
        {
            final Measurement m = peer.run("", server.address(), workload);

            assertThat(m.calls()).isPositive();
            assertThat(Figures.of(workload, m, 0, 0, 0).get(Figures.MIB_PER_S)).isPositive();
        }
    }

    @Test
    void aPacedBlockingLoopSendsNoFasterThanItsRate() throws Exception
    {
        final Workload paced = Workload.paced(64, 500, SHORT);
        final AtomicLong calls = new AtomicLong();

        final Measurement m = CallLoop.blocking(paced, calls::incrementAndGet, () -> Double.NaN);

        // the unpaced warm-up made far more calls than the 1.2 s paced part could
        assertThat(calls.get()).isGreaterThan(m.calls() + 600);
        assertThat(m.calls()).isPositive().isLessThanOrEqualTo(maxPacedCalls(paced, m));
    }

    @Test
    void aPacedPipelineHandsEachCallToTheStarterAndNoFasterThanItsRate() throws Exception
    {
        final Workload paced = Workload.paced(64, 500, SHORT);
        final ExecutorService loop = Executors.newSingleThreadExecutor();
        try
        {
            final AtomicLong issued = new AtomicLong();
            // completes on the "event loop", as a peer's callback would
            final CallLoop.AsyncCall call = slot ->
            {
                issued.incrementAndGet();
                loop.execute(() -> slot.completed(null));
            };

            final Measurement m = CallLoop.pipelined(paced, call, loop, () -> Double.NaN);

            assertThat(issued.get()).isGreaterThan(m.calls() + 600);
            assertThat(m.calls()).isPositive().isLessThanOrEqualTo(maxPacedCalls(paced, m));
            assertThat(m.latency().getTotalCount()).isEqualTo(m.calls());
        }
        finally
        {
            loop.shutdownNow();
        }
    }

    @Test
    void aLateSendSkipsTheSlotsItMissedInsteadOfBurstingToCatchUp()
    {
        final long period = 2_000_000;
        // on time, or late by less than a period: the next slot of the grid, so wake-up latency does not drift it
        assertThat(CallLoop.Pacer.slotAfter(10 * period, 10 * period, period)).isEqualTo(11 * period);
        assertThat(CallLoop.Pacer.slotAfter(10 * period, 10 * period + 1_900_000, period)).isEqualTo(11 * period);
        // late by two and a half periods: the slot after the wake-up, not one at once
        assertThat(CallLoop.Pacer.slotAfter(10 * period, 12 * period + 1_000_000, period)).isEqualTo(13 * period);
        assertThat(CallLoop.Pacer.slotAfter(10 * period, 9 * period, period)).isEqualTo(10 * period);
    }

    @Test
    void xioStreamsOverTcpAndLocalAndTheProducerHoldsNoMoreThanTheWindowForAOneByOneConsumer() throws Exception
    {
        final Peer peer = PeerMain.peer("xio");
        final Workload fast = Workload.serverStream(64, 1024, SHORT);
        final Workload one = Workload.serverStream(64, 1, SHORT);
        try (Peer.Server server = peer.serve("tcp,held", one))
        {
            final Measurement m = peer.run("tcp,held", server.address(), one);

            assertThat(m.calls()).isPositive();
            // the default window: 1024 messages (64 B messages fill 1 MiB far later)
            assertThat(m.heldPeak()).isPositive().isLessThanOrEqualTo(1024);
        }
        for (final String variant : new String[] {"local", "local,window=8m"})
        {
            try (Peer.Server server = peer.serve(variant, fast))
            {
                final Measurement m = peer.run(variant, server.address(), fast);

                assertThat(m.calls()).isPositive();
                assertThat(m.heldPeak()).isEqualTo(-1);
                assertThat(m.latency().getTotalCount()).isZero();
            }
        }
        final Measurement local = peer.run("local,held", "none", one);
        assertThat(local.heldPeak()).isPositive().isLessThanOrEqualTo(1024);
    }

    @Test
    void grpcRsocketAndAeronStreamToTheirConsumers() throws Exception
    {
        for (final String name : new String[] {"grpc", "rsocket", "aeron"})
        {
            final Peer peer = PeerMain.peer(name);
            for (final Workload workload : new Workload[] {Workload.serverStream(64, 1024, SHORT),
                Workload.serverStream(64, 1, SHORT)})
            {
                try (Peer.Server server = peer.serve("", workload))
                {
                    final Measurement m = peer.run("", server.address(), workload);

                    assertThat(m.calls()).as(name).isPositive();
                }
            }
        }
        assertThatThrownBy(() -> PeerMain.peer("aeron").serve("", Workload.serverStream(Workload.MIB, 16, SHORT)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 524288 B");
        assertThatThrownBy(() -> PeerMain.peer("rsocket").serve("", Workload.echo(64, 1, SHORT)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("server streams only");
    }

    private static long maxPacedCalls(final Workload paced, final Measurement m)
    {
        return (long)Math.ceil(paced.callsPerSecond() * (m.nanos() / 1e9)) + 1;
    }
}
