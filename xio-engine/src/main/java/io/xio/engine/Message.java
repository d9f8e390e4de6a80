package io.xio.engine;

import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * A received message (S6): its header and data segments are views into the receive buffer, not copies. The
 * receiver must {@link #close()} it when done (try-with-resources), which returns the buffer to its pool;
 * the views must not be used afterwards. Reading may happen on any thread; close may be called from any
 * thread, once (later calls do nothing).
 */
public final class Message implements AutoCloseable
{
    private static final VarHandle RELEASED;

    static
    {
        try
        {
            RELEASED = MethodHandles.lookup().findVarHandle(Message.class, "released", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final Slab slab;
    private final int headerOffset;
    private final int headerLength;
    private final int[] segmentOffsets;
    private final int[] segmentLengths;
    private final long requestId;
    private final LeakTracker leaks;
    @SuppressWarnings("unused") // accessed through RELEASED
    private volatile int released;

    /** Wraps the message in the frame at {@code frame}; retains the slab. For xio's own use. */
    public Message(final Slab slab, final Frame frame, final LeakTracker leaks)
    {
        this.slab = slab.retain();
        this.requestId = frame.requestId();
        this.headerOffset = frame.headerOffset();
        this.headerLength = frame.headerLength();
        final int count = frame.segmentCount();
        segmentOffsets = new int[count];
        segmentLengths = new int[count];
        int at = frame.dataOffset();
        for (int i = 0; i < count; i++)
        {
            segmentOffsets[i] = at;
            segmentLengths[i] = frame.segmentLength(i);
            at += segmentLengths[i];
        }
        this.leaks = leaks;
        if (leaks != null)
        {
            leaks.track(this);
        }
    }

    /** The id of the request this message is (or answers), unique within its session and direction. */
    public long requestId()
    {
        return requestId;
    }

    /** The application header, a view valid until {@link #close()}. */
    public ByteBuffer header()
    {
        checkOpen();
        return slab.slice(headerOffset, headerLength);
    }

    public int headerLength()
    {
        return headerLength;
    }

    public int segmentCount()
    {
        return segmentLengths.length;
    }

    /** Data segment {@code index}, a view valid until {@link #close()}. */
    public ByteBuffer segment(final int index)
    {
        checkOpen();
        return slab.slice(segmentOffsets[index], segmentLengths[index]);
    }

    public int segmentLength(final int index)
    {
        return segmentLengths[index];
    }

    /** Copies the header into a new array (for small headers; avoids holding the view). */
    public byte[] headerBytes()
    {
        final byte[] bytes = new byte[headerLength];
        slab.buffer().getBytes(headerOffset, bytes);
        return bytes;
    }

    public boolean isReleased()
    {
        return (int)RELEASED.getAcquire(this) != 0;
    }

    /**
     * Lets go of the message without returning its buffer to the pool, for views that code beyond xio's control
     * may still read (work a cancel could not stop): the buffer is never reused, the garbage collector frees it.
     */
    public void abandon()
    {
        if (RELEASED.compareAndSet(this, 0, 1))
        {
            if (leaks != null)
            {
                leaks.untrack(this);
            }
            slab.abandon();
        }
    }

    /** Returns the buffer to its pool. */
    @Override
    public void close()
    {
        if (RELEASED.compareAndSet(this, 0, 1))
        {
            if (leaks != null)
            {
                leaks.untrack(this);
            }
            slab.release();
        }
    }

    private void checkOpen()
    {
        if (isReleased())
        {
            throw new IllegalStateException("message " + requestId + " was already released");
        }
    }
}
