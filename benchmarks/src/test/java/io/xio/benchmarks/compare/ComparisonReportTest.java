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

    private static Figures figures(final double p50Micros)
    {
        final double[] values = new double[Figures.COUNT];
        values[Figures.P50_US] = p50Micros;
        final Histogram latency = new Histogram(3);
        latency.recordValue((long)(p50Micros * 1000));
        return new Figures(values, latency);
    }
}
