package io.xio.benchmarks.compare;

import java.util.Locale;

/**
 * What one run asks of a peer: requests of {@code requestBytes} answered with {@code responseBytes}, with
 * {@code outstanding} calls in flight, measured for {@code measureMillis} after a warm-up of the same traffic
 * that lasts at least {@code warmupMillis} and then until the client's JIT compiler has been quiet for a second,
 * at most {@code warmupMaxMillis}. With {@code callsPerSecond} above 0 the client is paced: it warms up unpaced (for
 * the JIT compiler), then issues calls at that fixed rate, one outstanding. A {@code streamed} workload is a server
 * stream instead ({@link #serverStream}): the client opens one stream with a request of {@code requestBytes}, the
 * server sends messages of {@code responseBytes} on it as fast as the client's flow control lets it, and the client
 * keeps {@code outstanding} messages asked for (its demand); a "call" is then one message taken by the client.
 * Server and client JVMs receive it as one argument ({@link #toArg()}). Immutable.
 */
public record Workload(int requestBytes, int responseBytes, int outstanding, long warmupMillis, long warmupMaxMillis,
    long measureMillis, int callsPerSecond, boolean streamed)
{
    public static final int KIB = 1024;
    public static final int MIB = 1024 * 1024;
    /** The answer to a transfer: an acknowledgement, no data. */
    public static final int ACK_BYTES = 8;
    /** The request that opens a server stream. */
    public static final int OPEN_BYTES = 8;

    public Workload
    {
        if (requestBytes < 1 || responseBytes < 1 || outstanding < 1 || warmupMillis < 0 ||
            warmupMaxMillis < warmupMillis || measureMillis < 1 || callsPerSecond < 0 ||
            callsPerSecond > 0 && (outstanding != 1 || streamed))
        {
            throw new IllegalArgumentException("bad workload: request " + requestBytes + " B, response " +
                responseBytes + " B, outstanding " + outstanding + ", warm-up " + warmupMillis + "-" + warmupMaxMillis +
                " ms, measure " + measureMillis + " ms, paced at " + callsPerSecond + " calls/s (1 outstanding only, " +
                "no stream)" + (streamed ? ", streamed" : ""));
        }
    }

    /** Calls, not a stream. */
    public Workload(final int requestBytes, final int responseBytes, final int outstanding, final long warmupMillis,
        final long warmupMaxMillis, final long measureMillis, final int callsPerSecond)
    {
        this(requestBytes, responseBytes, outstanding, warmupMillis, warmupMaxMillis, measureMillis, callsPerSecond,
            false);
    }

    /** Request and response of the same size. */
    public static Workload echo(final int bytes, final int outstanding, final Timing timing)
    {
        return new Workload(bytes, bytes, outstanding, timing.warmupMillis(), timing.warmupMaxMillis(),
            timing.measureMillis(), 0);
    }

    /** Request and response of the same size, one call at a time, issued at {@code callsPerSecond}. */
    public static Workload paced(final int bytes, final int callsPerSecond, final Timing timing)
    {
        if (callsPerSecond < 1)
        {
            throw new IllegalArgumentException("a paced workload needs a rate of at least 1 call/s");
        }
        return new Workload(bytes, bytes, 1, timing.warmupMillis(), timing.warmupMaxMillis(), timing.measureMillis(),
            callsPerSecond);
    }

    /** Large requests answered by a small acknowledgement: the bandwidth case. */
    public static Workload transfer(final int bytes, final int outstanding, final Timing timing)
    {
        return new Workload(bytes, ACK_BYTES, outstanding, timing.warmupMillis(), timing.warmupMaxMillis(),
            timing.measureMillis(), 0);
    }

    /**
     * A server stream of messages of {@code messageBytes}, opened by a request of {@link #OPEN_BYTES}, whose client
     * keeps {@code demand} messages asked for: it asks for {@code demand} at the start and tops up as it takes them
     * (by half of {@code demand} each time half were taken; one by one when {@code demand} is 1).
     */
    public static Workload serverStream(final int messageBytes, final int demand, final Timing timing)
    {
        return new Workload(OPEN_BYTES, messageBytes, demand, timing.warmupMillis(), timing.warmupMaxMillis(),
            timing.measureMillis(), 0, true);
    }

    /** The durations of a run: shortest and longest warm-up, measured window. */
    public record Timing(long warmupMillis, long warmupMaxMillis, long measureMillis)
    {
    }

    public boolean isEcho()
    {
        return !streamed && requestBytes == responseBytes;
    }

    public boolean isTransfer()
    {
        return !streamed && requestBytes != responseBytes;
    }

    /** A server stream ({@link #serverStream}); {@link #outstanding()} is then the client's demand. */
    public boolean isStream()
    {
        return streamed;
    }

    /** Bytes of data one "call" carries: a request's (echo, transfer), or one streamed message's. */
    public int payloadBytes()
    {
        return streamed ? responseBytes : requestBytes;
    }

    /** Calls issued at a fixed rate rather than as fast as answers come back. */
    public boolean isPaced()
    {
        return callsPerSecond > 0;
    }

    /** Kind and size without the durations: runs with the same shape are compared with each other. */
    public String shape()
    {
        final String size = size(requestBytes);
        if (streamed)
        {
            return size(responseBytes) + " server stream, demand " + outstanding;
        }
        if (isTransfer())
        {
            return size + " transfers, " + outstanding + " outstanding";
        }
        return isPaced() ? size + " at " + callsPerSecond + " calls/s" : size + ", " + outstanding + " outstanding";
    }

    public String toArg()
    {
        return requestBytes + ":" + responseBytes + ":" + outstanding + ":" + warmupMillis + ":" + warmupMaxMillis + ":" +
            measureMillis + ":" + callsPerSecond + (streamed ? ":stream" : "");
    }

    public static Workload parse(final String arg)
    {
        final String[] parts = arg.split(":");
        if (parts.length != 7 && !(parts.length == 8 && parts[7].equals("stream")))
        {
            throw new IllegalArgumentException("workload must be " +
                "request:response:outstanding:warmupMs:warmupMaxMs:measureMs:callsPerSecond[:stream], was " + arg);
        }
        return new Workload(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2]),
            Long.parseLong(parts[3]), Long.parseLong(parts[4]), Long.parseLong(parts[5]), Integer.parseInt(parts[6]),
            parts.length == 8);
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
