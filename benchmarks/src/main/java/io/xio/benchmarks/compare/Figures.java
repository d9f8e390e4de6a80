package io.xio.benchmarks.compare;

import org.HdrHistogram.Histogram;

/**
 * The figures of one run of one case, as the report shows them; NaN where a figure does not apply (a
 * percentile qperf does not report, allocation outside the JVM). Immutable.
 */
record Figures(double[] values, Histogram latency)
{
    static final int P50_US = 0;
    static final int P99_US = 1;
    static final int P999_US = 2;
    static final int CALLS_PER_S = 3;
    static final int MIB_PER_S = 4;
    static final int CPU_S_PER_GIB = 5;
    static final int ALLOC_B_PER_CALL = 6;
    static final int FRAMES_PER_WRITE = 7;
    static final int CPU_US_PER_CALL = 8;
    static final int CLIENT_ALLOC_B_PER_CALL = 9;
    static final int SERVER_ALLOC_B_PER_CALL = 10;
    static final int WARMUP_S = 11;
    /** CPU time of the server JVM over the window, as a percentage of one core (100: one core busy throughout). */
    static final int SERVER_CPU_PCT = 12;
    static final int CLIENT_CPU_PCT = 13;
    /** The busier side's CPU percentage: what a bound on "CPU per side" compares. */
    static final int MAX_SIDE_CPU_PCT = 14;
    /** A stream's most messages offered by the producer and not yet taken by the consumer; NaN where not watched. */
    static final int HELD_PEAK = 15;
    static final int COUNT = 16;

    static final double GIB = 1024.0 * 1024 * 1024;

    /**
     * From a client's measurement plus what the harness saw of both processes over the same window: each side's
     * CPU seconds (negative where unknown) and the server's allocated bytes (negative where unknown).
     */
    static Figures of(final Workload workload, final Measurement m, final double serverCpuSeconds,
        final double clientCpuSeconds, final long serverAllocated)
    {
        final boolean cpuKnown = serverCpuSeconds >= 0 && clientCpuSeconds >= 0;
        final double cpuSeconds = cpuKnown ? serverCpuSeconds + clientCpuSeconds : -1;
        final double windowSeconds = m.nanos() / 1e9;
        final double[] v = new double[COUNT];
        final Histogram h = m.latency();
        v[P50_US] = h.getValueAtPercentile(50) / 1000.0;
        v[P99_US] = h.getValueAtPercentile(99) / 1000.0;
        v[P999_US] = h.getValueAtPercentile(99.9) / 1000.0;
        v[CALLS_PER_S] = m.callsPerSecond();
        final double bytes = (double)m.calls() * workload.payloadBytes();
        v[MIB_PER_S] = bytes / (1024.0 * 1024) / windowSeconds;
        v[CPU_S_PER_GIB] = cpuSeconds < 0 ? Double.NaN : cpuSeconds / (bytes / GIB);
        v[CPU_US_PER_CALL] = cpuSeconds < 0 ? Double.NaN : cpuSeconds * 1e6 / m.calls();
        v[ALLOC_B_PER_CALL] = m.allocatedBytes() < 0 || serverAllocated < 0 ? Double.NaN :
            (double)(m.allocatedBytes() + serverAllocated) / m.calls();
        v[CLIENT_ALLOC_B_PER_CALL] = m.allocatedBytes() < 0 ? Double.NaN : (double)m.allocatedBytes() / m.calls();
        v[SERVER_ALLOC_B_PER_CALL] = serverAllocated < 0 ? Double.NaN : (double)serverAllocated / m.calls();
        v[FRAMES_PER_WRITE] = m.framesPerWrite();
        v[WARMUP_S] = m.warmupNanos() / 1e9;
        v[SERVER_CPU_PCT] = cpuKnown ? 100 * serverCpuSeconds / windowSeconds : Double.NaN;
        v[CLIENT_CPU_PCT] = cpuKnown ? 100 * clientCpuSeconds / windowSeconds : Double.NaN;
        v[MAX_SIDE_CPU_PCT] = Math.max(v[SERVER_CPU_PCT], v[CLIENT_CPU_PCT]);
        v[HELD_PEAK] = m.heldPeak() < 0 ? Double.NaN : m.heldPeak();
        return new Figures(v, h);
    }

    double get(final int index)
    {
        return values[index];
    }

    /** How a bound on the figure itself reads in the goals table: " B" after bytes per call, " %" after CPU. */
    static String unit(final int index)
    {
        return switch (index)
        {
            case ALLOC_B_PER_CALL, CLIENT_ALLOC_B_PER_CALL, SERVER_ALLOC_B_PER_CALL -> " B";
            case SERVER_CPU_PCT, CLIENT_CPU_PCT, MAX_SIDE_CPU_PCT -> " %";
            case P50_US, P99_US, P999_US, CPU_US_PER_CALL -> " µs";
            case CALLS_PER_S -> " calls/s";
            case MIB_PER_S -> " MiB/s";
            case HELD_PEAK -> " messages";
            default -> "";
        };
    }
}
