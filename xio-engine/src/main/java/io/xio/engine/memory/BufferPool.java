package io.xio.engine.memory;

import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Per-context pool of direct buffers in power-of-two size classes from 4 KiB to 256 MiB. {@link #acquire}
 * is for the owner thread only; slabs may be released from any thread and come back through a lock-free
 * return queue that the owner drains. Each class keeps at most 16 MiB of idle slabs (at least two below
 * 1 MiB, none above 16 MiB), so a burst of large messages does not pin memory for ever.
 */
public final class BufferPool
{
    public static final int MIN_CLASS_SHIFT = 12;
    public static final int MAX_CLASS_SHIFT = 28;
    private static final int CLASS_COUNT = MAX_CLASS_SHIFT - MIN_CLASS_SHIFT + 1;
    private static final long IDLE_BYTES_PER_CLASS = 16L << 20;

    private final String name;
    private final ArrayDeque<Slab>[] free;
    private final int[] maxIdle;
    private final ManyToOneConcurrentArrayQueue<Slab> returns = new ManyToOneConcurrentArrayQueue<>(4096);
    private final AtomicLong outstanding = new AtomicLong();
    private volatile Thread owner;

    @SuppressWarnings("unchecked")
    public BufferPool(final String name)
    {
        this.name = name;
        free = (ArrayDeque<Slab>[])new ArrayDeque<?>[CLASS_COUNT];
        maxIdle = new int[CLASS_COUNT];
        for (int i = 0; i < CLASS_COUNT; i++)
        {
            free[i] = new ArrayDeque<>();
            // Small classes keep a few idle slabs at least; above 16 MiB nothing is kept idle.
            final int shift = i + MIN_CLASS_SHIFT;
            final long idle = IDLE_BYTES_PER_CLASS >> shift;
            maxIdle[i] = (int)(shift <= 20 ? Math.max(2, idle) : idle);
        }
    }

    /** Binds the pool to the thread that runs its context; until then any single thread may use it. */
    public void owner(final Thread thread)
    {
        owner = thread;
    }

    /** A slab of at least {@code minCapacity} bytes with a reference count of one. Owner thread only. */
    public Slab acquire(final int minCapacity)
    {
        final int sizeClass = sizeClass(minCapacity);
        outstanding.incrementAndGet();
        if (sizeClass < 0)
        {
            final Slab slab = new Slab(this, -1, minCapacity);
            slab.reset();
            return slab;
        }
        Slab slab = free[sizeClass].pollFirst();
        if (slab == null)
        {
            drainReturns();
            slab = free[sizeClass].pollFirst();
        }
        if (slab == null)
        {
            slab = new Slab(this, sizeClass, 1 << (sizeClass + MIN_CLASS_SHIFT));
        }
        slab.reset();
        return slab;
    }

    /** Takes back slabs released on other threads. Owner thread only; returns how many came back. */
    public int drainReturns()
    {
        int count = 0;
        Slab slab;
        while ((slab = returns.poll()) != null)
        {
            keep(slab);
            count++;
        }
        return count;
    }

    /** Slabs handed out and not yet released: a leak detector's measure. */
    public long outstanding()
    {
        return outstanding.get();
    }

    public String name()
    {
        return name;
    }

    void forget()
    {
        outstanding.decrementAndGet();
    }

    void recycle(final Slab slab)
    {
        outstanding.decrementAndGet();
        if (slab.sizeClass() < 0)
        {
            return;
        }
        if (owner == Thread.currentThread())
        {
            keep(slab);
        }
        else
        {
            returns.offer(slab); // when full the slab is simply left to the GC
        }
    }

    private void keep(final Slab slab)
    {
        final ArrayDeque<Slab> deque = free[slab.sizeClass()];
        if (deque.size() < maxIdle[slab.sizeClass()])
        {
            deque.addFirst(slab);
        }
    }

    static int sizeClass(final int capacity)
    {
        final int shift = Math.max(MIN_CLASS_SHIFT, 32 - Integer.numberOfLeadingZeros(Math.max(1, capacity) - 1));
        return shift > MAX_CLASS_SHIFT ? -1 : shift - MIN_CLASS_SHIFT;
    }
}
