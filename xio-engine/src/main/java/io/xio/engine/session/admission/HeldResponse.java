package io.xio.engine.session.admission;

import io.xio.engine.Outbound;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A response too large to copy into the deduplication window, kept by reference (the handler's buffers, not a copy)
 * for a retransmit until the requester acknowledges it (RESPONSE_ACK), a newer id takes its slot, or the session
 * ends. Its buffers are released, and its bytes given back to the budget, once the window's hold and every send of
 * it are done: holds are counted, so any thread may send it, drop it or end the session.
 */
public final class HeldResponse implements AutoCloseable
{
    final long id;
    public final int status;
    private final Outbound response;
    private final long size;
    private final ByteBudget budget;
    /** The window's hold (the first) and one per send a link still reads; none left: released. */
    private final AtomicInteger holds = new AtomicInteger(1);

    /** {@code size} bytes of {@code budget} must have been taken for it. */
    public HeldResponse(final long id, final int status, final Outbound response, final long size,
        final ByteBudget budget)
    {
        this.id = id;
        this.status = status;
        this.response = response;
        this.size = size;
        this.budget = budget;
    }

    /**
     * The response for one more send, which lets go of its hold when released (as a link's completion does); null
     * when the response was released already.
     */
    public Outbound share()
    {
        int current;
        do
        {
            current = holds.get();
            if (current == 0)
            {
                return null;
            }
        }
        while (!holds.compareAndSet(current, current + 1));
        final ByteBuffer[] segments = new ByteBuffer[response.segmentCount()];
        for (int i = 0; i < segments.length; i++)
        {
            segments[i] = response.segment(i);
        }
        return Outbound.of(response.header(), segments).metadata(response.metadata()).releaseAfterSend(this);
    }

    /** One hold let go: a send's, or the window's. */
    @Override
    public void close()
    {
        if (holds.decrementAndGet() != 0)
        {
            return;
        }
        budget.giveBack(size);
        try
        {
            response.released();
        }
        catch (final RuntimeException ex)
        {
            // on a context's thread this must not look like the peer's fault: the application's resource failed
            LoggerFactory.getLogger(HeldResponse.class).warn("releasing the kept response to {} failed", id, ex);
        }
    }
}
