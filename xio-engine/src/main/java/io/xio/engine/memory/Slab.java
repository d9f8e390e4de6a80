package io.xio.engine.memory;

import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * A direct buffer from a {@link BufferPool}, reference counted so that received messages can be views into
 * it. {@link #retain()} and {@link #release()} may be called from any thread; the last release returns the
 * slab to its pool (through the pool's return queue when called off the owner thread).
 */
public final class Slab
{
    private static final VarHandle REF_COUNT;

    static
    {
        try
        {
            REF_COUNT = MethodHandles.lookup().findVarHandle(Slab.class, "refCount", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final BufferPool pool;
    private final int sizeClass;
    private final ByteBuffer byteBuffer;
    private final UnsafeBuffer buffer;
    @SuppressWarnings("unused") // accessed through REF_COUNT
    private volatile int refCount;

    Slab(final BufferPool pool, final int sizeClass, final int capacity)
    {
        this.pool = pool;
        this.sizeClass = sizeClass;
        this.byteBuffer = ByteBuffer.allocateDirect(capacity).order(io.xio.engine.protocol.Frame.ORDER);
        this.buffer = new UnsafeBuffer(byteBuffer);
    }

    /** The whole slab as an Agrona buffer, for flyweights. */
    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    /** The whole slab as a direct ByteBuffer; callers must not change its position or limit. */
    public ByteBuffer byteBuffer()
    {
        return byteBuffer;
    }

    public int capacity()
    {
        return buffer.capacity();
    }

    int sizeClass()
    {
        return sizeClass;
    }

    public BufferPool pool()
    {
        return pool;
    }

    /**
     * A new ByteBuffer view of {@code [offset, offset + length)}, independent position and limit, in the
     * JVM's default big-endian order like any ByteBuffer an application makes.
     */
    public ByteBuffer slice(final int offset, final int length)
    {
        return byteBuffer.slice(offset, length).order(java.nio.ByteOrder.BIG_ENDIAN);
    }

    void reset()
    {
        REF_COUNT.setRelease(this, 1);
    }

    public int refCount()
    {
        return (int)REF_COUNT.getAcquire(this);
    }

    public Slab retain()
    {
        final int previous = (int)REF_COUNT.getAndAdd(this, 1);
        if (previous <= 0)
        {
            REF_COUNT.getAndAdd(this, -1);
            throw new IllegalStateException("slab retained after it was released");
        }
        return this;
    }

    /**
     * Gives up this holder's reference without returning the memory to the pool: for buffers a peer may still
     * read after the link closed. The garbage collector frees it once nobody refers to it.
     */
    public void abandon()
    {
        if ((int)REF_COUNT.getAndAdd(this, -1) == 1)
        {
            pool.forget();
        }
    }

    public void release()
    {
        final int previous = (int)REF_COUNT.getAndAdd(this, -1);
        if (previous == 1)
        {
            pool.recycle(this);
        }
        else if (previous <= 0)
        {
            REF_COUNT.getAndAdd(this, 1);
            throw new IllegalStateException("slab released more often than it was retained");
        }
    }
}
