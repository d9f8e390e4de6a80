package io.xio.rdma.verbs;

import io.xio.engine.memory.Slab;
import io.xio.engine.transport.LinkHandler;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** A link handler that keeps a copy of every frame and what the link reported. Test thread only. */
final class Recorder implements LinkHandler
{
    final List<byte[]> frames = new ArrayList<>();
    Throwable closedBy;
    boolean closed;
    Consumer<byte[]> onFrame = frame -> { };

    @Override
    public void onFrame(final Slab slab, final int offset, final int length)
    {
        final byte[] copy = new byte[length];
        slab.buffer().getBytes(offset, copy);
        frames.add(copy);
        onFrame.accept(copy);
    }

    @Override
    public void onWritable()
    {
    }

    @Override
    public void onClosed(final Throwable cause)
    {
        closed = true;
        closedBy = cause;
    }
}
