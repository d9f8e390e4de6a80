package io.xio.engine.session.admission;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The sender's side of deduplication: request ids still unfinished must span less than the receiver's
 * {@link DedupWindow}, or a late retransmit would find its slot reused by a newer id. Tracks the lowest
 * unfinished id (the floor) with a ring of finished ids, allocated with the first id (many sessions never send
 * one); lock-free, any thread.
 */
final class IdWindow
{
    private final int mask;
    private volatile int span;
    private final AtomicReference<AtomicLongArray> ring = new AtomicReference<>();
    private final AtomicLong floor = new AtomicLong(1);

    IdWindow(final int size)
    {
        this.span = size;
        this.mask = size - 1;
    }

    private AtomicLongArray ring()
    {
        final AtomicLongArray existing = ring.get();
        if (existing != null)
        {
            return existing;
        }
        final AtomicLongArray fresh = new AtomicLongArray(mask + 1);
        return ring.compareAndSet(null, fresh) ? fresh : ring.get();
    }

    /** Whether {@code id} may be sent now: it is within the window above the oldest unfinished id. */
    boolean admits(final long id)
    {
        return id - floor.get() < span;
    }

    /** Narrows the window to the peer's deduplication window, if that is smaller; before any id is sent. */
    void limit(final int peerWindow)
    {
        span = Math.max(1, Math.min(span, peerWindow));
    }

    long floor()
    {
        return floor.get();
    }

    /** Records that {@code id} needs no more retransmits, and slides the floor past every finished id. */
    void finished(final long id)
    {
        final AtomicLongArray finished = ring();
        finished.set((int)(id & mask), id);
        long low = floor.get();
        while (finished.get((int)(low & mask)) == low)
        {
            if (floor.compareAndSet(low, low + 1))
            {
                low++;
            }
            else
            {
                low = floor.get();
            }
        }
    }
}
