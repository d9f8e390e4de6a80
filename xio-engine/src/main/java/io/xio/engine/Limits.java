package io.xio.engine;

/**
 * Bounds that keep memory finite and reject hostile input. Every length and count read from the wire is
 * checked against these before it is used.
 *
 * @param maxMessageBytes largest frame accepted or sent (header, application header and data segments)
 * @param maxHeaderBytes largest application header
 * @param maxSegments most data segments in one message
 * @param maxInFlight most requests a session may have awaiting responses (per direction); also the most a
 *                    receiver executes at once for one session
 * @param maxQueuedBytes most bytes a connection may have queued for writing before it stops taking new frames
 * @param dedupWindow how many recent request ids per session the receiver remembers (power of two)
 * @param retainedResponseBytes largest response kept for a resend to a retransmitted request
 */
public record Limits(
    int maxMessageBytes,
    int maxHeaderBytes,
    int maxSegments,
    int maxInFlight,
    int maxQueuedBytes,
    int dedupWindow,
    int retainedResponseBytes)
{
    /**
     * 256 MiB messages, 64 KiB headers, 64 segments, 1024 in flight, 8 MiB queued, 2048 ids remembered, responses
     * up to 16 KiB kept (so at most 32 MiB of kept responses per session).
     */
    public static final Limits DEFAULT = new Limits(256 << 20, 64 << 10, 64, 1024, 8 << 20, 2048, 16 << 10);

    public Limits
    {
        positive("maxMessageBytes", maxMessageBytes);
        positive("maxHeaderBytes", maxHeaderBytes);
        positive("maxSegments", maxSegments);
        positive("maxInFlight", maxInFlight);
        positive("maxQueuedBytes", maxQueuedBytes);
        positive("dedupWindow", dedupWindow);
        if (Integer.bitCount(dedupWindow) != 1)
        {
            throw new IllegalArgumentException("dedupWindow must be a power of two, was " + dedupWindow);
        }
        if (dedupWindow < maxInFlight)
        {
            throw new IllegalArgumentException(
                "dedupWindow (" + dedupWindow + ") must be at least maxInFlight (" + maxInFlight + ")");
        }
        if (retainedResponseBytes < 0)
        {
            throw new IllegalArgumentException("retainedResponseBytes must be >= 0, was " + retainedResponseBytes);
        }
        if (maxSegments > 0xFFFF)
        {
            throw new IllegalArgumentException("maxSegments must be <= 65535, was " + maxSegments);
        }
    }

    public Limits withMaxMessageBytes(final int value)
    {
        return new Limits(value, maxHeaderBytes, maxSegments, maxInFlight, maxQueuedBytes, dedupWindow,
            retainedResponseBytes);
    }

    public Limits withMaxHeaderBytes(final int value)
    {
        return new Limits(maxMessageBytes, value, maxSegments, maxInFlight, maxQueuedBytes, dedupWindow,
            retainedResponseBytes);
    }

    public Limits withMaxInFlight(final int value)
    {
        return new Limits(maxMessageBytes, maxHeaderBytes, maxSegments, value, maxQueuedBytes,
            Math.max(dedupWindow, Integer.highestOneBit(value - 1) << 1), retainedResponseBytes);
    }

    public Limits withMaxQueuedBytes(final int value)
    {
        return new Limits(maxMessageBytes, maxHeaderBytes, maxSegments, maxInFlight, value, dedupWindow,
            retainedResponseBytes);
    }

    private static void positive(final String name, final int value)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
    }
}
