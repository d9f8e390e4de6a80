package io.xio.engine.session.admission;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes that may be held at once, taken and given back by any thread: a session's share of responses kept until
 * acknowledged, within the engine's ({@code parent}). Lock-free; a take that would pass either limit takes nothing.
 */
public final class ByteBudget
{
    private final long limit;
    private final ByteBudget parent;
    private final AtomicLong used = new AtomicLong();

    public ByteBudget(final long limit, final ByteBudget parent)
    {
        this.limit = limit;
        this.parent = parent;
    }

    /** Takes {@code bytes} from this budget and its parent's; false (nothing taken) when either has too few left. */
    public boolean tryTake(final long bytes)
    {
        long current;
        do
        {
            current = used.get();
            if (current + bytes > limit)
            {
                return false;
            }
        }
        while (!used.compareAndSet(current, current + bytes));
        if (parent != null && !parent.tryTake(bytes))
        {
            used.addAndGet(-bytes);
            return false;
        }
        return true;
    }

    /** Takes {@code bytes} from this budget and its parent's even past their limits: what is held already. */
    void takeAnyway(final long bytes)
    {
        used.addAndGet(bytes);
        if (parent != null)
        {
            parent.takeAnyway(bytes);
        }
    }

    /** Gives back what {@link #tryTake} took. */
    void giveBack(final long bytes)
    {
        used.addAndGet(-bytes);
        if (parent != null)
        {
            parent.giveBack(bytes);
        }
    }

    /** Bytes held now. */
    public long used()
    {
        return used.get();
    }
}
