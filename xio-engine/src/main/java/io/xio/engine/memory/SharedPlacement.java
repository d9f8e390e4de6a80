package io.xio.engine.memory;

import org.agrona.DirectBuffer;

import java.nio.ByteBuffer;

/**
 * Hands a shm link's resolved shared-memory reference to the message the engine makes of the frame being delivered:
 * the link {@linkplain #offer offers} it around its {@code onFrame} call, the message {@linkplain #claim claims} it
 * on the same thread. Owner context thread only, except {@link Releaser#release}.
 */
public final class SharedPlacement
{
    private static final ThreadLocal<SharedPlacement> CURRENT = new ThreadLocal<>();

    /** Told once when the receiver closed the message whose data lay in the region. Any thread. */
    @FunctionalInterface
    public interface Releaser
    {
        void release(long token);
    }

    private final Releaser releaser;
    private ByteBuffer view;
    private DirectBuffer buffer;
    private long token;
    private boolean claimed;

    public SharedPlacement(final Releaser releaser)
    {
        this.releaser = releaser;
    }

    /**
     * Offers {@code view} (the whole region, read-only) and {@code buffer} (the same bytes, for reads without a view)
     * for the frame about to be delivered on this thread.
     */
    public void offer(final ByteBuffer view, final DirectBuffer buffer, final long token)
    {
        this.view = view;
        this.buffer = buffer;
        this.token = token;
        this.claimed = false;
        CURRENT.set(this);
    }

    /** Ends the offer; false when no message claimed it (the engine dropped the frame). */
    public boolean withdraw()
    {
        CURRENT.set(null);
        view = null;
        buffer = null;
        return claimed;
    }

    /** The offer for the frame being delivered on this thread, now claimed; null when none (not a shm link). */
    public static SharedPlacement claim()
    {
        final SharedPlacement placement = CURRENT.get();
        if (placement == null || placement.claimed)
        {
            return null;
        }
        placement.claimed = true;
        return placement;
    }

    public ByteBuffer view()
    {
        return view;
    }

    public DirectBuffer buffer()
    {
        return buffer;
    }

    public long token()
    {
        return token;
    }

    public Releaser releaser()
    {
        return releaser;
    }
}
