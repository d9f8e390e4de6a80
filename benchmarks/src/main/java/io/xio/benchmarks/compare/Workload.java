package io.xio.benchmarks.compare;

import java.util.Locale;

/**
 * What one run asks of a peer: requests of {@code requestBytes} answered with {@code responseBytes}, with
 * {@code outstanding} calls in flight, measured for {@code measureMillis} after a warm-up of the same traffic
 * that lasts at least {@code warmupMillis} and then until the client's JIT compiler has been quiet for a second,
 * at most {@code warmupMaxMillis}. Server and client JVMs receive it as one argument ({@link #toArg()}). Immutable.
 */
public record Workload(int requestBytes, int responseBytes, int outstanding, long warmupMillis, long warmupMaxMillis,
    long measureMillis)
{
    public static final int KIB = 1024;
    public static final int MIB = 1024 * 1024;
    /** The answer to a transfer: an acknowledgement, no data. */
    public static final int ACK_BYTES = 8;

    public Workload
    {
        if (requestBytes < 1 || responseBytes < 1 || outstanding < 1 || warmupMillis < 0 ||
            warmupMaxMillis < warmupMillis || measureMillis < 1)
        {
            throw new IllegalArgumentException("bad workload: request " + requestBytes + " B, response " +
                responseBytes + " B, outstanding " + outstanding + ", warm-up " + warmupMillis + "-" + warmupMaxMillis +
                " ms, measure " + measureMillis + " ms");
        }
    }

    /** Request and response of the same size. */
    public static Workload echo(final int bytes, final int outstanding, final Timing timing)
    {
        return new Workload(bytes, bytes, outstanding, timing.warmupMillis(), timing.warmupMaxMillis(),
            timing.measureMillis());
    }

    /** Large requests answered by a small acknowledgement: the bandwidth case. */
    public static Workload transfer(final int bytes, final int outstanding, final Timing timing)
    {
        return new Workload(bytes, ACK_BYTES, outstanding, timing.warmupMillis(), timing.warmupMaxMillis(),
            timing.measureMillis());
    }

    /** The durations of a run: shortest and longest warm-up, measured window. */
    public record Timing(long warmupMillis, long warmupMaxMillis, long measureMillis)
    {
    }

    public boolean isEcho()
    {
        return requestBytes == responseBytes;
    }

    public boolean isTransfer()
    {
        return !isEcho();
    }

    /** Kind and size without the durations: runs with the same shape are compared with each other. */
    public String shape()
    {
        final String size = size(requestBytes);
        if (isTransfer())
        {
            return size + " transfers, " + outstanding + " outstanding";
        }
        return size + ", " + outstanding + " outstanding";
    }

    public String toArg()
    {
        return requestBytes + ":" + responseBytes + ":" + outstanding + ":" + warmupMillis + ":" + warmupMaxMillis + ":" +
            measureMillis;
    }

    public static Workload parse(final String arg)
    {
        final String[] parts = arg.split(":");
        if (parts.length != 6)
        {
            throw new IllegalArgumentException(
                "workload must be request:response:outstanding:warmupMs:warmupMaxMs:measureMs, was " + arg);
        }
        return new Workload(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2]),
            Long.parseLong(parts[3]), Long.parseLong(parts[4]), Long.parseLong(parts[5]));
    }

    static String size(final int bytes)
    {
        if (bytes >= MIB && bytes % MIB == 0)
        {
            return bytes / MIB + " MiB";
        }
        if (bytes >= KIB && bytes % KIB == 0)
        {
            return bytes / KIB + " KiB";
        }
        return String.format(Locale.ROOT, "%d B", bytes);
    }
}
