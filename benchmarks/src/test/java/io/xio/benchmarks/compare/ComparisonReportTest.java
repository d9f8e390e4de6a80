package io.xio.benchmarks.compare;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The comparison's bookkeeping without running anything: what children print, what the report concludes. */
class ComparisonReportTest
{
    private static final Workload.Timing TIMING = new Workload.Timing(1, 2, 1000);

    @Test
    void aMeasurementSurvivesItsResultLine()
    {
        final Histogram latency = new Histogram(3);
        latency.recordValue(12_000);
        latency.recordValue(40_000);
        final Measurement sent = new Measurement(2, 1_000_000_000L, 1234, 64.0, 3_000_000_000L, latency);

        final Measurement received = Measurement.parse(sent.toLine());

        assertThat(received.calls()).isEqualTo(2);
        assertThat(received.allocatedBytes()).isEqualTo(1234);
        assertThat(received.framesPerWrite()).isEqualTo(64.0);
        assertThat(received.warmupNanos()).isEqualTo(3_000_000_000L);
        assertThat(received.latency().getValueAtPercentile(100)).isEqualTo(latency.getValueAtPercentile(100));
        assertThat(received.callsPerSecond()).isEqualTo(2.0);
        assertThat(received.heldPeak()).isEqualTo(-1);
        final Measurement held = new Measurement(2, 1_000_000_000L, 0, Double.NaN, 0, latency, 1024);
        assertThat(Measurement.parse(held.toLine()).heldPeak()).isEqualTo(1024);
    }

    @Test
    void aStreamWorkloadTravelsAsOneArgumentAndCountsItsMessagesData()
    {
        final Workload stream = Workload.serverStream(Workload.MIB, 16, TIMING);

        assertThat(Workload.parse(stream.toArg())).isEqualTo(stream);
        assertThat(stream.isStream()).isTrue();
        assertThat(stream.isEcho()).isFalse();
        assertThat(stream.isTransfer()).isFalse();
        assertThat(stream.payloadBytes()).isEqualTo(Workload.MIB);
        assertThat(stream.shape()).isEqualTo("1 MiB server stream, demand 16");
        assertThat(Workload.parse(Workload.echo(64, 1, TIMING).toArg()).isStream()).isFalse();
        assertThatThrownBy(() -> Workload.parse("8:64:1:1:2:1000:0:bogus"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[:stream]");

        // 2000 messages of 1 MiB in 2 s: 1000 MiB/s, whatever the 8-byte open
        final Histogram none = new Histogram(3);
        final Figures figures = Figures.of(stream, new Measurement(2000, 2_000_000_000L, 0, Double.NaN, 0, none, 7),
            0.5, 0.5, 0);
        assertThat(figures.get(Figures.MIB_PER_S)).isCloseTo(1000.0, within(1e-9));
        assertThat(figures.get(Figures.CPU_US_PER_CALL)).isCloseTo(500.0, within(1e-9));
        assertThat(figures.get(Figures.HELD_PEAK)).isEqualTo(7.0);
    }

    @Test
    void aConsumerKeepsItsDemandAskedForByHalvesOrOneByOne()
    {
        final StreamLoop.Demand many = new StreamLoop.Demand(8);
        assertThat(many.initial()).isEqualTo(8);
        assertThat(new int[] {many.taken(), many.taken(), many.taken(), many.taken(), many.taken()})
            .containsExactly(0, 0, 0, 4, 0);
        final StreamLoop.Demand one = new StreamLoop.Demand(1);
        assertThat(new int[] {one.initial(), one.taken(), one.taken()}).containsExactly(1, 1, 1);
        assertThatThrownBy(() -> new StreamLoop.Demand(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void streamGroupsShowMessagesCpuAllocationAndHeldAndTheirRatiosToEachPeer()
    {
        final Workload stream = Workload.serverStream(64, 1024, TIMING);
        final List<Case> cases = List.of(
            new Case("xio-tcp-64-stream", "64 B server stream", "xio", "tcp", stream, "xio tcp stream"),
            new Case("grpc-64-stream", "64 B server stream", "grpc", "", stream, "gRPC stream"),
            new Case("rsocket-64-stream", "64 B server stream", "rsocket", "", stream, "RSocket stream"));
        // two repetitions: xio 10 M and 12 M msgs/s against gRPC's 1 M and 2 M, RSocket's 4 M and 4 M
        final Figures[][] results = {
            {figure(Figures.CALLS_PER_S, 10e6, Figures.ALLOC_B_PER_CALL, 80, Figures.HELD_PEAK, 1024),
                figure(Figures.CALLS_PER_S, 12e6, Figures.ALLOC_B_PER_CALL, 80, Figures.HELD_PEAK, 1000)},
            {figure(Figures.CALLS_PER_S, 1e6), figure(Figures.CALLS_PER_S, 2e6)},
            {figure(Figures.CALLS_PER_S, 4e6), figure(Figures.CALLS_PER_S, 4e6)}};
        final List<Goal> goals = List.of(
            new Goal("5x gRPC", "xio-tcp-64-stream", "grpc-64-stream", Figures.CALLS_PER_S, 5, false),
            new Goal("2x RSocket", "xio-tcp-64-stream", "rsocket-64-stream", Figures.CALLS_PER_S, 2, false),
            new Goal("16 B a message", "xio-tcp-64-stream", null, Figures.ALLOC_B_PER_CALL, 16, true),
            new Goal("held within the window", "xio-tcp-64-stream", null, Figures.HELD_PEAK, 1000, true));

        final String markdown = new Report(cases, results, Map.of(), Map.of(), goals,
            Environment.capture("", true, 2, TIMING), false).markdown();

        assertThat(markdown).contains("| case | msgs/s | MiB/s | CPU µs/msg | CPU s/GiB | alloc B/msg | " +
            "server alloc B/msg | client alloc B/msg | peak held msgs | warm-up s |");
        assertThat(markdown).contains("| xio tcp stream | 12,000,000 [10,000,000-12,000,000] | - | - | - | " +
            "80.0 [80.0-80.0] | - | - | 1024 [1000-1024] | - |");
        assertThat(markdown).contains("messages/s / peer's messages/s at the consumer");
        // per repetition: 10x and 6x gRPC (median of two: the higher), 2.5x and 3x RSocket
        assertThat(markdown).contains("| xio tcp stream | 10.0 [6.00-10.0] | 3.00 [2.50-3.00] |");
        assertThat(markdown)
            .contains("| 5x gRPC | xio tcp stream | gRPC stream | 10.0 [6.00-10.0]x | >= 5.00 | **met** |")
            .contains("| 16 B a message | xio tcp stream | - | 80.0 [80.0-80.0] B | <= 16.0 | **missed** |")
            .contains("| held within the window | xio tcp stream | - | 1024 [1000-1024] messages | <= 1000 | **missed** |");
    }

    @Test
    void aWorkloadTravelsAsOneArgumentAndRejectsNonsense()
    {
        final Workload transfer = Workload.transfer(Workload.MIB, 4, TIMING);

        assertThat(Workload.parse(transfer.toArg())).isEqualTo(transfer);
        assertThat(transfer.isTransfer()).isTrue();
        assertThat(transfer.shape()).isEqualTo("1 MiB transfers, 4 outstanding");
        assertThatThrownBy(() -> Workload.parse("64:64:1"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("request:response:outstanding");
        assertThatThrownBy(() -> Workload.echo(64, 0, TIMING))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outstanding 0");

        final Workload paced = Workload.paced(64, 1000, TIMING);
        assertThat(Workload.parse(paced.toArg())).isEqualTo(paced);
        assertThat(paced.isPaced()).isTrue();
        assertThat(Workload.echo(64, 1, TIMING).isPaced()).isFalse();
        assertThat(paced.shape()).isEqualTo("64 B at 1000 calls/s");
        assertThatThrownBy(() -> new Workload(64, 64, 8, 1, 2, 1000, 1000))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 outstanding only");
    }

    @Test
    void eachSidesCpuIsAShareOfOneCoreOverTheWindow()
    {
        final Histogram latency = new Histogram(3);
        latency.recordValue(20_000);
        // 2 s window, 2000 calls: the server used 0.2 s of CPU, the client 0.5 s
        final Measurement m = new Measurement(2000, 2_000_000_000L, 0, Double.NaN, 0, latency);

        final Figures known = Figures.of(Workload.paced(64, 1000, TIMING), m, 0.2, 0.5, 0);
        final Figures unknown = Figures.of(Workload.paced(64, 1000, TIMING), m, 0.2, -1, 0);

        assertThat(known.get(Figures.SERVER_CPU_PCT)).isCloseTo(10.0, within(1e-9));
        assertThat(known.get(Figures.CLIENT_CPU_PCT)).isCloseTo(25.0, within(1e-9));
        assertThat(known.get(Figures.MAX_SIDE_CPU_PCT)).isCloseTo(25.0, within(1e-9));
        assertThat(known.get(Figures.CPU_US_PER_CALL)).isCloseTo(350.0, within(1e-9));
        assertThat(unknown.get(Figures.MAX_SIDE_CPU_PCT)).isNaN();
        assertThat(unknown.get(Figures.CPU_US_PER_CALL)).isNaN();
    }

    @Test
    void qperfOutputBecomesRoundTripsAndMebibytes()
    {
        final Case latency = new Case("q-lat", "g", "qperf", "tcp_lat", Workload.echo(64, 1, TIMING), "qperf");
        final Figures lat = Qperf.figures(latency, """
            tcp_lat:
                latency        =    30 us
                msg_rate       =  33.3 K/sec
                msg_size       =    64 bytes
            """);
        assertThat(lat.get(Figures.P50_US)).isEqualTo(60.0); // qperf's one-way latency, doubled
        assertThat(lat.get(Figures.CALLS_PER_S)).isCloseTo(1e6 / 60, within(0.01));

        final Case bandwidth = new Case("q-bw", "g", "qperf", "tcp_bw", Workload.transfer(Workload.MIB, 1, TIMING), "qperf");
        final Figures bw = Qperf.figures(bandwidth, """
            tcp_bw:
                bw              =  4.74 GB/sec
                msg_rate        =  4.52 K/sec
                send_cost       =   300 ms/GB
                recv_cost       =   300 ms/GB
            """);
        assertThat(bw.get(Figures.MIB_PER_S)).isCloseTo(4.74e9 / (1 << 20), within(0.01));
        assertThat(bw.get(Figures.CPU_S_PER_GIB)).isCloseTo(0.6 * Figures.GIB / 1e9, within(1e-9));

        assertThatThrownBy(() -> Qperf.figures(latency, "qperf: failed to connect"))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("unreadable qperf output");
    }

    @Test
    void goalsUseTheRatioOfEachRepetitionsPairAndSayMetOrMissed()
    {
        final Workload one = Workload.echo(64, 1, TIMING);
        final List<Case> cases = List.of(
            new Case("ours", "64 B", "xio", "tcp", one, "xio tcp"),
            new Case("peer", "64 B", "raw-socket", "", one, "raw socket"));
        // repetition by repetition: 10/50, 40/50 (a noisy pair), 12/40 -> ratios 0.2, 0.8, 0.3: median 0.3
        final Figures[][] results = {
            {figures(10), figures(40), figures(12)},
            {figures(50), figures(50), figures(40)}};
        final List<Goal> goals = List.of(
            new Goal("p50 at most a quarter of the peer's", "ours", "peer", Figures.P50_US, 0.25, true),
            new Goal("p50 at most half the peer's", "ours", "peer", Figures.P50_US, 0.5, true),
            new Goal("a case that did not run", "absent", "peer", Figures.P50_US, 1, true));

        final String markdown = new Report(cases, results, Map.of(), Map.of(), goals,
            Environment.capture("", true, 3, TIMING), false).markdown();

        assertThat(markdown).contains("| p50 at most a quarter of the peer's | xio tcp | raw socket | 0.30 [0.20-0.80]x | <= 0.25 | **missed** |");
        assertThat(markdown).contains("| p50 at most half the peer's | xio tcp | raw socket | 0.30 [0.20-0.80]x | <= 0.50 | **met** |");
        assertThat(markdown).contains("`absent` (not in this run)");
        assertThat(markdown).contains("| xio tcp | 0.30 [0.20-0.80] |");
    }

    @Test
    void boundsOnCpuAllocationAndCallRatesAreJudgedAndPacedGroupsShowCpuPerSide()
    {
        final Workload paced = Workload.paced(64, 1000, TIMING);
        final Workload many = Workload.echo(64, 64, TIMING);
        final List<Case> cases = List.of(
            new Case("paced-spin", "64 B at 1,000 calls/s", "xio", "tcp,poll=spin", paced, "paced spin"),
            new Case("paced-default", "64 B at 1,000 calls/s", "xio", "tcp", paced, "paced default"),
            new Case("engine", "64 B, 64 outstanding", "xio", "tcp", many, "engine rate"),
            new Case("proxy", "64 B, 64 outstanding", "spring", "", many, "proxy rate"));
        final Figures[][] results = {
            {figure(Figures.MAX_SIDE_CPU_PCT, 100, Figures.P50_US, 10)},
            {figure(Figures.MAX_SIDE_CPU_PCT, 12, Figures.SERVER_CPU_PCT, 12, Figures.CLIENT_CPU_PCT, 7,
                Figures.P50_US, 20)},
            {figure(Figures.CALLS_PER_S, 1_000_000, Figures.ALLOC_B_PER_CALL, 40)},
            {figure(Figures.CALLS_PER_S, 700_000, Figures.ALLOC_B_PER_CALL, 600)}};
        final List<Goal> goals = List.of(
            new Goal("cpu", "paced-default", null, Figures.MAX_SIDE_CPU_PCT, 15, true),
            new Goal("cpu of spin", "paced-spin", null, Figures.MAX_SIDE_CPU_PCT, 15, true),
            new Goal("p50 vs spin", "paced-default", "paced-spin", Figures.P50_US, 1.5, true),
            new Goal("engine alloc", "engine", null, Figures.ALLOC_B_PER_CALL, 64, true),
            new Goal("proxy alloc", "proxy", null, Figures.ALLOC_B_PER_CALL, 512, true),
            new Goal("proxy rate", "proxy", "engine", Figures.CALLS_PER_S, 0.6, false),
            new Goal("proxy rate, higher bar", "proxy", "engine", Figures.CALLS_PER_S, 0.8, false));

        final String markdown = new Report(cases, results, Map.of(), Map.of(), goals,
            Environment.capture("", true, 1, TIMING), false).markdown();

        assertThat(markdown).contains("## Goals: ").doesNotContain("issue 7");
        assertThat(markdown).contains("| cpu | paced default | - | 12.0 % | <= 15.0 | **met** |");
        assertThat(markdown).contains("| cpu of spin | paced spin | - | 100 % | <= 15.0 | **missed** |");
        assertThat(markdown).contains("| p50 vs spin | paced default | paced spin | 2.00x | <= 1.50 | **missed** |");
        assertThat(markdown).contains("| engine alloc | engine rate | - | 40.0 B | <= 64.0 | **met** |");
        assertThat(markdown).contains("| proxy alloc | proxy rate | - | 600 B | <= 512 | **missed** |");
        assertThat(markdown).contains("| proxy rate | proxy rate | engine rate | 0.70x | >= 0.60 | **met** |");
        assertThat(markdown).contains("| proxy rate, higher bar | proxy rate | engine rate | 0.70x | >= 0.80 | **missed** |");
        assertThat(markdown).contains("### 64 B at 1,000 calls/s")
            .contains("| p50 µs | p99 µs | p99.9 µs | calls/s | server CPU % of a core | client CPU % of a core |");
        assertThat(markdown).contains("| paced default | 20.0 | - | - | - | 12.0 | 7.00 |");
    }

    @Test
    void theGoalsNameCasesTheComparisonRuns()
    {
        final List<String> ids = Comparison.fullCases(TIMING).stream().map(Case::id).toList();

        assertThat(Comparison.goals()).allSatisfy(goal ->
        {
            assertThat(ids).contains(goal.oursId());
            if (goal.peerId() != null)
            {
                assertThat(ids).contains(goal.peerId());
            }
        });
        assertThat(ids).doesNotHaveDuplicates();
        assertThat(Comparison.smokeCases(TIMING).stream().map(Case::id))
            .contains("spin-socket-64-lat", "memcpy-1m", "xio-tcp-64-paced-default");
        // every stream case runs in the smoke run too, so that none of their peers rots
        final List<String> streams = Comparison.streamCases(TIMING).stream().map(Case::id).toList();
        assertThat(streams).contains("xio-tcp-64-stream", "xio-shm-64-stream", "xio-local-64-stream", "grpc-64-stream",
            "rsocket-64-stream", "aeron-64-stream", "xio-tcp-1m-stream", "xio-shm-1m-stream-shared", "grpc-1m-stream",
            "rsocket-1m-stream", "xio-tcp-64-stream-one");
        assertThat(ids).containsAll(streams);
        assertThat(Comparison.smokeCases(TIMING).stream().map(Case::id).toList()).containsAll(streams)
            .doesNotHaveDuplicates();
        assertThat(Comparison.streamCases(TIMING)).allSatisfy(c -> assertThat(PeerMain.peer(c.peer())).isNotNull());
        // Aeron's IPC peer takes messages of up to 512 KiB: it has no 1 MiB stream
        assertThat(streams).doesNotContain("aeron-1m-stream");
    }

    /** Figures with the given (index, value) pairs set and every other figure unknown. */
    private static Figures figure(final double... indexValuePairs)
    {
        final double[] values = new double[Figures.COUNT];
        java.util.Arrays.fill(values, Double.NaN);
        for (int i = 0; i < indexValuePairs.length; i += 2)
        {
            values[(int)indexValuePairs[i]] = indexValuePairs[i + 1];
        }
        final Histogram latency = new Histogram(3);
        latency.recordValue(1000);
        return new Figures(values, latency);
    }

    private static Figures figures(final double p50Micros)
    {
        final double[] values = new double[Figures.COUNT];
        values[Figures.P50_US] = p50Micros;
        final Histogram latency = new Histogram(3);
        latency.recordValue((long)(p50Micros * 1000));
        return new Figures(values, latency);
    }
}
