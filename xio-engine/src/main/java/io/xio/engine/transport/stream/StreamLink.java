package io.xio.engine.transport.stream;

import io.xio.engine.memory.Slab;
import io.xio.engine.transport.LinkHandler;
import io.xio.engine.transport.SendCompletion;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.TransportLink;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Base of the links that send a byte stream of frames (tcp, local, and rdma's SEND ring): small frames are written
 * into pooled staging slabs, large data is queued by reference, and a flush hands the whole queue to
 * {@link #transmit} as one gather list.
 * Entries are released (staging slabs returned, callbacks run) once {@link #releasedPosition()} passes them.
 * Owner thread only.
 */
public abstract class StreamLink implements TransportLink
{
    private static final int STAGE_SLAB = 64 << 10;
    private static final int INLINE_LIMIT = 16 << 10;

    protected final TransportContext context;
    protected final FrameAssembler assembler;
    protected LinkHandler handler;
    protected boolean closed;

    private Slab stage;
    private int stageStart;
    private int stagePos;
    private int claimLength;

    private ByteBuffer[] entries = new ByteBuffer[64];
    private Slab[] entrySlabs = new Slab[64];
    private SendCompletion[] entryCallbacks = new SendCompletion[64];
    private long[] entryEnds = new long[64];
    // Reusable views of staging slabs, one per entry slot: a cut of the stage costs no new ByteBuffer.
    private ByteBuffer[] views = new ByteBuffer[64];
    private Slab[] viewSlabs = new Slab[64];
    private int entryCount;
    /** Stream position where entry 0 starts. */
    private long entriesStart;
    private int transmitIndex;
    private int releaseIndex;
    private long queuedPosition;
    private boolean flushScheduled;
    /** Inside {@link #flush} or {@link #flushNow}'s hand-over: a send made meanwhile waits for the turn's flush. */
    private boolean flushing;
    private boolean wantWritable;
    private long lastReceive;
    private long arrivals;
    /** Where the peer's reading had got to when we last looked, and when it last moved (or we had nothing). */
    private long progressPosition;
    private long progressNanos;

    protected StreamLink(final TransportContext context)
    {
        this.context = context;
        this.assembler = new FrameAssembler(context.pool(), context.limits(), context.counters(), context::nanoTime);
    }

    @Override
    public void start(final LinkHandler handler)
    {
        this.handler = handler;
    }

    @Override
    public int maxInlineFrame()
    {
        return INLINE_LIMIT;
    }

    @Override
    public MutableDirectBuffer claim(final int length)
    {
        if (closed)
        {
            return null;
        }
        if (stage == null || stage.capacity() - stagePos < length)
        {
            sealStage();
            stage = context.pool().acquire(Math.max(STAGE_SLAB, length));
            stageStart = stagePos = 0;
        }
        claimLength = length;
        return stage.buffer();
    }

    @Override
    public int claimOffset()
    {
        return stagePos;
    }

    @Override
    public void commit()
    {
        noteIdleBacklog();
        stagePos += claimLength;
        queuedPosition += claimLength;
        context.counters().frameSent();
        scheduleFlush();
    }

    @Override
    public void commit(final ByteBuffer[] data, final int count, final SendCompletion completion)
    {
        commit();
        cutStage(null);
        for (int i = 0; i < count; i++)
        {
            final ByteBuffer buffer = data[i];
            queuedPosition += buffer.remaining();
            add(buffer, null, i == count - 1 ? completion : null);
        }
        if (count == 0 && completion != null)
        {
            add(EMPTY, null, completion);
        }
    }

    @Override
    public long lastReceiveNanos()
    {
        return lastReceive;
    }

    @Override
    public long lastWriteProgressNanos()
    {
        return progressNanos;
    }

    @Override
    public long incompleteFrameSince()
    {
        return assembler.partialSince();
    }

    @Override
    public long incompleteFrameBytes()
    {
        return assembler.partialBytes();
    }

    @Override
    public void limitFrames(final int maxLength)
    {
        assembler.limitFrames(maxLength);
    }

    /** A scan of the pending entries: only called when the backlog is over a limit, so rarely. */
    @Override
    public long largestPending()
    {
        long largest = 0;
        for (int i = releaseIndex; i < entryCount; i++)
        {
            largest = Math.max(largest, entryEnds[i] - (i == 0 ? entriesStart : entryEnds[i - 1]));
        }
        return largest;
    }

    /** Gives the staging and receive slabs back while nothing is pending in them: an idle link holds no buffer. */
    @Override
    public void trim()
    {
        if (!closed && stage != null && entryCount == 0 && stageStart == stagePos)
        {
            forgetView(stage);
            stage.release();
            stage = null;
        }
        if (!closed)
        {
            assembler.trim();
        }
    }

    /** Bytes queued while none were pending: the write-stall clock starts now, not at the last progress. */
    private void noteIdleBacklog()
    {
        if (queuedPosition == progressPosition)
        {
            progressNanos = context.nanoTime();
        }
    }

    /** Notes that bytes arrived in this loop turn. */
    protected final void bytesArrived()
    {
        lastReceive = context.nanoTime();
        arrivals++;
    }

    /** How many reads brought bytes so far: changes when one did. */
    protected final long arrivals()
    {
        return arrivals;
    }

    @Override
    public void notifyWhenWritable()
    {
        wantWritable = true;
    }

    @Override
    public long backlog()
    {
        return queuedPosition - releasedPosition();
    }

    @Override
    public int flush()
    {
        flushScheduled = false;
        if (closed)
        {
            return 0;
        }
        final boolean outer = flushing;
        flushing = true;
        try
        {
            final Exception failure = handOver();
            if (failure != null)
            {
                close(failure);
                return 1;
            }
            return releaseSent();
        }
        finally
        {
            flushing = outer;
        }
    }

    /**
     * Hands what is queued over now instead of at the end of the loop's turn, unless a flush is under way (then it
     * waits for the turn's flush). For a frame that is cheap to hand over and that the peer should start on at
     * once. Only the hand-over: releasing what was sent, which runs senders' completions, and closing on a failure
     * wait for the turn's flush (still scheduled), so that no completion runs inside the send that called this.
     */
    protected final void flushNow()
    {
        if (flushing || closed)
        {
            return;
        }
        flushing = true;
        try
        {
            handOver(); // a failure is the turn's flush's to report: it hands over again and closes
        }
        finally
        {
            flushing = false;
        }
    }

    /** Cuts the stage and gives the entries not yet handed over to {@link #transmit}; its failure, or null. */
    private Exception handOver()
    {
        cutStage(null);
        if (transmitIndex < entryCount)
        {
            try
            {
                transmit(entries, transmitIndex, entryCount);
            }
            catch (final Exception ex)
            {
                return ex;
            }
        }
        return null;
    }

    /**
     * Hands entries {@code [from, to)} over, advancing {@link #transmitted(int)} for each one taken whole.
     * Buffers stay referenced until {@link #releasedPosition()} passes their end.
     */
    protected abstract void transmit(ByteBuffer[] buffers, int from, int to) throws Exception;

    /** Stream position up to which the peer (or the kernel) no longer needs our buffers. */
    protected abstract long releasedPosition();

    /** Records that entries before {@code index} were handed over entirely. */
    protected final void transmitted(final int index)
    {
        transmitIndex = index;
    }

    /** Whether entries are waiting to be handed over. */
    protected final boolean hasUntransmitted()
    {
        return transmitIndex < entryCount;
    }

    /** Releases entries the peer is done with and reports a drained backlog; returns how many were released. */
    protected final int releaseSent()
    {
        final long released = releasedPosition();
        if (released != progressPosition)
        {
            progressPosition = released;
            progressNanos = context.nanoTime();
        }
        int count = 0;
        while (releaseIndex < entryCount && entryEnds[releaseIndex] <= released && releaseIndex < transmitIndex)
        {
            releaseEntry(releaseIndex++);
            count++;
        }
        if (releaseIndex == entryCount && entryCount > 0)
        {
            entriesStart = entryEnds[entryCount - 1];
            entryCount = transmitIndex = releaseIndex = 0;
            if (stage != null && stageStart == stagePos && stage.refCount() == 1)
            {
                stageStart = stagePos = 0;
            }
        }
        if (wantWritable && handler != null && backlog() <= context.limits().maxQueuedBytes())
        {
            wantWritable = false;
            handler.onWritable();
        }
        return count;
    }

    private void releaseEntry(final int index)
    {
        entries[index] = null;
        final Slab slab = entrySlabs[index];
        if (slab != null)
        {
            entrySlabs[index] = null;
            forgetView(slab);
            slab.release();
        }
        final SendCompletion callback = entryCallbacks[index];
        if (callback != null)
        {
            entryCallbacks[index] = null;
            callback.onSendComplete(true);
        }
    }

    private void cutStage(final Slab releaseAfter)
    {
        if (stage != null && stagePos > stageStart)
        {
            add(view(stage, stageStart, stagePos), releaseAfter, null);
            stageStart = stagePos;
        }
        else if (releaseAfter != null)
        {
            add(EMPTY, releaseAfter, null);
        }
    }

    private void sealStage()
    {
        if (stage != null)
        {
            final Slab sealed = stage;
            stage = null;
            if (stagePos > stageStart)
            {
                add(view(sealed, stageStart, stagePos), sealed, null);
            }
            else if (entryCount > releaseIndex)
            {
                add(EMPTY, sealed, null);
            }
            else
            {
                sealed.release();
            }
        }
    }

    /** {@code [from, to)} of {@code slab} through the view kept for the next entry slot. */
    private ByteBuffer view(final Slab slab, final int from, final int to)
    {
        growEntries();
        ByteBuffer view = views[entryCount];
        if (viewSlabs[entryCount] != slab)
        {
            view = slab.byteBuffer().duplicate();
            views[entryCount] = view;
            viewSlabs[entryCount] = slab;
        }
        view.clear().limit(to).position(from);
        return view;
    }

    /** A sealed slab goes back to its pool: no view may keep it reachable. */
    private void forgetView(final Slab slab)
    {
        for (int i = 0; i < viewSlabs.length; i++)
        {
            if (viewSlabs[i] == slab)
            {
                viewSlabs[i] = null;
                views[i] = null;
            }
        }
    }

    private void growEntries()
    {
        if (entryCount == entries.length)
        {
            final int size = entryCount * 2;
            entries = Arrays.copyOf(entries, size);
            entrySlabs = Arrays.copyOf(entrySlabs, size);
            entryCallbacks = Arrays.copyOf(entryCallbacks, size);
            entryEnds = Arrays.copyOf(entryEnds, size);
            views = Arrays.copyOf(views, size);
            viewSlabs = Arrays.copyOf(viewSlabs, size);
        }
    }

    private void add(final ByteBuffer buffer, final Slab releaseAfter, final SendCompletion callback)
    {
        growEntries();
        entries[entryCount] = buffer;
        entrySlabs[entryCount] = releaseAfter;
        entryCallbacks[entryCount] = callback;
        entryEnds[entryCount] = queuedPosition;
        entryCount++;
        scheduleFlush();
    }

    private void scheduleFlush()
    {
        if (!flushScheduled)
        {
            flushScheduled = true;
            context.flushLater(this);
        }
    }

    @Override
    public void close(final Throwable cause)
    {
        if (closed)
        {
            return;
        }
        closed = true;
        closeChannel();
        // Nothing queued will be sent: give the buffers back and tell the senders. Buffers handed to a peer that
        // reads them later (an in-JVM pipe) are abandoned to the GC rather than reused.
        final boolean peerMayRead = peerMayStillRead();
        for (int i = releaseIndex; i < entryCount; i++)
        {
            entries[i] = null;
            if (entrySlabs[i] != null)
            {
                dispose(entrySlabs[i], peerMayRead);
                entrySlabs[i] = null;
            }
            final SendCompletion callback = entryCallbacks[i];
            entryCallbacks[i] = null;
            if (callback != null)
            {
                try
                {
                    callback.onSendComplete(false);
                }
                catch (final RuntimeException ex)
                {
                    org.slf4j.LoggerFactory.getLogger(StreamLink.class).warn("send completion failed", ex);
                }
            }
        }
        entryCount = transmitIndex = releaseIndex = 0;
        if (stage != null)
        {
            dispose(stage, peerMayRead);
            stage = null;
        }
        assembler.close();
        if (handler != null)
        {
            handler.onClosed(cause);
        }
    }

    private static void dispose(final Slab slab, final boolean abandon)
    {
        if (abandon)
        {
            slab.abandon();
        }
        else
        {
            slab.release();
        }
    }

    /** Whether buffers already transmitted may still be read by the peer after close (not so for sockets). */
    protected boolean peerMayStillRead()
    {
        return false;
    }

    /** Releases the transport's own resources (socket, pipe end). */
    protected abstract void closeChannel();

    private static final ByteBuffer EMPTY = ByteBuffer.allocateDirect(0);
}
