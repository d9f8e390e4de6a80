package io.xio.benchmarks.compare;

import org.HdrHistogram.Histogram;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.DataFormatException;

/**
 * What a client JVM measured in one run: calls completed in the window (for a stream, messages taken), the window's
 * length, the latency of each call (none for a stream), the bytes its JVM allocated meanwhile, for xio frames per
 * transport write (coalescing), how long the warm-up before the window took, and for an xio stream whose producer
 * watched it the most messages ever offered and not yet taken by the consumer ({@code heldPeak}, -1 when not observed).
 * Travels to the harness as one {@code RESULT} line on the client's stdout. Immutable after parsing.
 */
public record Measurement(long calls, long nanos, long allocatedBytes, double framesPerWrite, long warmupNanos,
    Histogram latency, long heldPeak)
{
    static final String PREFIX = "RESULT ";

    /** A measurement with nothing held observed (calls, or a stream whose producer did not watch). */
    public Measurement(final long calls, final long nanos, final long allocatedBytes, final double framesPerWrite,
        final long warmupNanos, final Histogram latency)
    {
        this(calls, nanos, allocatedBytes, framesPerWrite, warmupNanos, latency, -1);
    }

    public double callsPerSecond()
    {
        return calls / (nanos / 1e9);
    }

    public String toLine()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(latency.getNeededByteBufferCapacity());
        final int length = latency.encodeIntoCompressedByteBuffer(buffer);
        final String histogram = Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buffer.array(), length));
        return PREFIX + "calls=" + calls + " nanos=" + nanos + " alloc=" + allocatedBytes + " fpw=" + framesPerWrite +
            " warm=" + warmupNanos + " held=" + heldPeak + " hist=" + histogram;
    }

    public static Measurement parse(final String line)
    {
        if (!line.startsWith(PREFIX))
        {
            throw new IllegalArgumentException("not a result line: " + line);
        }
        final Map<String, String> fields = new HashMap<>();
        for (final String field : line.substring(PREFIX.length()).trim().split(" "))
        {
            final int eq = field.indexOf('=');
            fields.put(field.substring(0, eq), field.substring(eq + 1));
        }
        try
        {
            final Histogram histogram = Histogram.decodeFromCompressedByteBuffer(
                ByteBuffer.wrap(Base64.getDecoder().decode(fields.get("hist"))), 0);
            return new Measurement(Long.parseLong(fields.get("calls")), Long.parseLong(fields.get("nanos")),
                Long.parseLong(fields.get("alloc")), Double.parseDouble(fields.get("fpw")), Long.parseLong(fields.get("warm")),
                histogram, Long.parseLong(fields.getOrDefault("held", "-1")));
        }
        catch (final DataFormatException ex)
        {
            throw new IllegalArgumentException("unreadable histogram in result line", ex);
        }
    }
}
