package io.xio.engine.transport.local;

import io.xio.engine.ConnectionException;
import io.xio.engine.transport.Poller;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.stream.StreamLink;

import java.nio.ByteBuffer;

/**
 * An in-JVM connection end. Frames travel as references through a {@link LocalPipe} and are copied once
 * by the reader into its pooled slabs, so received messages behave exactly as over tcp. Owner context
 * thread only.
 */
final class LocalLink extends StreamLink implements Poller
{
    private final LocalPipe in;
    private final LocalPipe out;
    private final String remote;
    private ByteBuffer current;
    private boolean peerClosedSeen;

    LocalLink(final TransportContext context, final LocalPipe in, final LocalPipe out, final String remote)
    {
        super(context);
        this.in = in;
        this.out = out;
        this.remote = remote;
        in.reader = this;
        out.writer = this;
    }

    @Override
    public void start(final io.xio.engine.transport.LinkHandler handler)
    {
        super.start(handler);
        context.addPoller(this);
    }

    @Override
    public int poll()
    {
        if (closed)
        {
            return 0;
        }
        int work = releaseSent();
        if (hasUntransmitted())
        {
            work += flush();
        }
        long taken = 0;
        try
        {
            for (int i = 0; i < 64; i++)
            {
                if (current == null || !current.hasRemaining())
                {
                    current = in.chunks.poll();
                    if (current == null)
                    {
                        break;
                    }
                }
                taken += assembler.feed(current, handler);
                if (closed)
                {
                    return 1;
                }
                if (!current.hasRemaining())
                {
                    current = null; // the writer reuses the buffer once it sees it consumed: drop it first
                }
            }
        }
        catch (final RuntimeException ex)
        {
            close(ex);
            return 1;
        }
        if (taken > 0)
        {
            bytesArrived();
            in.consumed.addAndGet(taken);
            final LocalLink writer = in.writer;
            if (writer != null)
            {
                writer.context.wakeup();
            }
            work++;
        }
        if (in.closed && current == null && in.chunks.isEmpty() && !peerClosedSeen)
        {
            peerClosedSeen = true;
            close(new ConnectionException("connection closed by peer " + remote));
            return 1;
        }
        return work;
    }

    @Override
    public boolean hasWork()
    {
        // A full pipe is not work: the reader wakes us when it consumed, which moves out.consumed.
        return !in.chunks.isEmpty() || (current != null && current.hasRemaining()) || in.closed ||
            out.consumed.get() != lastReleased;
    }

    private long lastReleased;

    @Override
    protected void transmit(final ByteBuffer[] buffers, final int from, final int to)
    {
        if (out.closed)
        {
            throw new ConnectionException("connection closed by peer " + remote);
        }
        int index = from;
        long bytes = 0;
        while (index < to)
        {
            final ByteBuffer buffer = buffers[index];
            // The entry itself goes over: once offered, the reader may consume it (and move its position) at once.
            final int remaining = buffer.remaining();
            if (remaining > 0 && !out.chunks.offer(buffer))
            {
                break;
            }
            bytes += remaining;
            index++;
        }
        if (bytes > 0)
        {
            context.counters().wrote(bytes);
        }
        transmitted(index);
        final LocalLink reader = out.reader;
        if (reader != null)
        {
            reader.context.wakeup();
        }
    }

    @Override
    protected long releasedPosition()
    {
        lastReleased = out.consumed.get();
        return lastReleased;
    }

    @Override
    protected boolean peerMayStillRead()
    {
        return true;
    }

    @Override
    protected void closeChannel()
    {
        context.removePoller(this);
        current = null;
        out.closed = true;
        in.closed = true;
        final LocalLink reader = out.reader;
        if (reader != null)
        {
            reader.context.wakeup();
        }
    }

    @Override
    public String remoteAddress()
    {
        return remote;
    }
}
