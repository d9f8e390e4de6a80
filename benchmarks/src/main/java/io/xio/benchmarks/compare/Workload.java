package io.xio.benchmarks.compare;

import java.util.Locale;

/**
 * What one run asks of a peer: requests of {@code requestBytes} answered with {@code responseBytes}, with
 * {@code outstanding} calls in flight, measured for {@code measureMillis} after {@code warmupMillis} of the same
 * traffic. Server and client JVMs receive it as one argument ({@link #toArg()}). Immutable.
 */
public record Workload(int requestBytes, int responseBytes, int outstanding, long warmupMillis, long measureMillis)
{
    public static final int KIB = 1024;
    public static final int MIB = 1024 * 1024;
    /** The answer to a transfer: an acknowledgement, no data. */
    public static final int ACK_BYTES = 8;

    public Workload
    {
        if (requestBytes < 1 || responseBytes < 1 || outstanding < 1 || warmupMillis < 0 || measureMillis < 1)
        {
            throw new IllegalArgumentException("bad workload: request " + requestBytes + " B, response " +
                responseBytes + " B, outstanding " + outstanding + ", warm-up " + warmupMillis + " ms, measure " +
                measureMillis + " ms");
        }
    }

    /** Request and response of the same size. */
    public static Workload echo(final int bytes, final int outstanding, final long warmupMillis,
        final long measureMillis)
    {
        return new Workload(bytes, bytes, outstanding, warmupMillis, measureMillis);
    }

    /** Large requests answered by a small acknowledgement: the bandwidth case. */
    public static Workload transfer(final int bytes, final int outstanding, final long warmupMillis,
        final long measureMillis)
    {
        return new Workload(bytes, ACK_BYTES, outstanding, warmupMillis, measureMillis);
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
        return requestBytes + ":" + responseBytes + ":" + outstanding + ":" + warmupMillis + ":" + measureMillis;
    }

    public static Workload parse(final String arg)
    {
        final String[] parts = arg.split(":");
        if (parts.length != 5)
        {
            throw new IllegalArgumentException("workload must be request:response:outstanding:warmupMs:measureMs, was " + arg);
        }
        return new Workload(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2]),
            Long.parseLong(parts[3]), Long.parseLong(parts[4]));
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
