package io.xio.engine.transport;

import io.xio.engine.memory.Slab;

/** What a {@link TransportLink} reports to the engine; called on the link's context thread only. */
public interface LinkHandler
{
    /**
     * One whole frame whose header and segment table passed validation. The slab's bytes are valid for the
     * duration of the call; {@link Slab#retain()} keeps them for longer.
     */
    void onFrame(Slab slab, int offset, int length);

    /** The backlog drained: frames held back for lack of room may be written now. */
    void onWritable();

    /** The link is gone; {@code cause} says why (null for a local, orderly close). Called once. */
    void onClosed(Throwable cause);
}
