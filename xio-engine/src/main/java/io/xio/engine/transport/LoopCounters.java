package io.xio.engine.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Counters of one context, written only by its thread (plain adds published with release stores, no atomic
 * read-modify-write on the data path) and read by any thread for statistics and metrics.
 */
public final class LoopCounters
{
    private static final VarHandle FRAMES_SENT;
    private static final VarHandle WRITES;
    private static final VarHandle BYTES_SENT;
    private static final VarHandle FRAMES_RECEIVED;
    private static final VarHandle BYTES_RECEIVED;
    private static final VarHandle RETRANSMITS;
    private static final VarHandle IDLE_NANOS;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            FRAMES_SENT = lookup.findVarHandle(LoopCounters.class, "framesSent", long.class);
            WRITES = lookup.findVarHandle(LoopCounters.class, "writes", long.class);
            BYTES_SENT = lookup.findVarHandle(LoopCounters.class, "bytesSent", long.class);
            FRAMES_RECEIVED = lookup.findVarHandle(LoopCounters.class, "framesReceived", long.class);
            BYTES_RECEIVED = lookup.findVarHandle(LoopCounters.class, "bytesReceived", long.class);
            RETRANSMITS = lookup.findVarHandle(LoopCounters.class, "retransmits", long.class);
            IDLE_NANOS = lookup.findVarHandle(LoopCounters.class, "idleNanos", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private long framesSent;
    private long writes;
    private long bytesSent;
    private long framesReceived;
    private long bytesReceived;
    private long retransmits;
    private long idleNanos;
    private final long startNanos = System.nanoTime();

    /** Owner thread: one frame committed for sending. */
    public void frameSent()
    {
        FRAMES_SENT.setRelease(this, framesSent + 1);
    }

    /** Owner thread: one write (gathering write, pipe hand-over) of {@code bytes}. */
    public void wrote(final long bytes)
    {
        WRITES.setRelease(this, writes + 1);
        BYTES_SENT.setRelease(this, bytesSent + bytes);
    }

    /** Owner thread: one whole frame received. */
    public void frameReceived(final int length)
    {
        FRAMES_RECEIVED.setRelease(this, framesReceived + 1);
        BYTES_RECEIVED.setRelease(this, bytesReceived + length);
    }

    /** Owner thread: a request sent again after its connection failed. */
    public void retransmitted()
    {
        RETRANSMITS.setRelease(this, retransmits + 1);
    }

    /** Owner thread: the loop found no work for {@code nanos} (spinning or parked). */
    public void idled(final long nanos)
    {
        IDLE_NANOS.setRelease(this, idleNanos + nanos);
    }

    public long framesSent()
    {
        return (long)FRAMES_SENT.getAcquire(this);
    }

    public long writes()
    {
        return (long)WRITES.getAcquire(this);
    }

    public long bytesSent()
    {
        return (long)BYTES_SENT.getAcquire(this);
    }

    public long framesReceived()
    {
        return (long)FRAMES_RECEIVED.getAcquire(this);
    }

    public long bytesReceived()
    {
        return (long)BYTES_RECEIVED.getAcquire(this);
    }

    public long retransmits()
    {
        return (long)RETRANSMITS.getAcquire(this);
    }

    public long idleNanos()
    {
        return (long)IDLE_NANOS.getAcquire(this);
    }

    /** Time since the context started that was not idle. */
    public long busyNanos()
    {
        return Math.max(0, System.nanoTime() - startNanos - idleNanos());
    }
}
