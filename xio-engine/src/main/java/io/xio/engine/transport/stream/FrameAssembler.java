package io.xio.engine.transport.stream;

import io.xio.engine.ConnectionException;
import io.xio.engine.Limits;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.memory.BufferPool;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;
import io.xio.engine.transport.LinkHandler;
import io.xio.engine.transport.LoopCounters;
import org.agrona.DirectBuffer;

import java.nio.ByteBuffer;
import java.util.function.LongSupplier;

/**
 * Cuts a byte stream into whole frames inside pooled slabs, so that received messages are views into the
 * slab the bytes were read into (no copy), and checks each frame's header against the limits before any
 * memory is set aside for its body. A frame that does not fit the rest of the receive slab moves, with the
 * bytes already read, to a new slab: small ones to a fresh receive slab, large ones to a slab of their own
 * that the rest of the frame is then read straight into. That slab starts at twice the bytes held (256 KiB at
 * least) and grows fourfold as the bytes arrive, so a peer that merely announces a huge frame gets no huge
 * allocation. Slabs are taken when bytes come and given back by {@link #trim()} when no partial frame is held:
 * an idle connection holds no receive buffer. The partial frame's start time is kept for the minimum-rate check.
 * Owner thread only.
 */
public final class FrameAssembler
{
    static final int RECEIVE_SLAB = 64 << 10;
    static final int LARGE_START = 256 << 10;
    static final int BULK_START = 4 << 20;

    private final BufferPool pool;
    private final Limits limits;
    private final LoopCounters counters;
    private final LongSupplier clock;
    private final Frame frame = new Frame();
    private long delivered;
    private int maxFrameLength = Integer.MAX_VALUE;
    private boolean sharedAllowed;
    private long partialSince;
    private Slab slab;
    private ByteBuffer view;
    private int readPos;
    private int writePos;
    private Slab large;
    private ByteBuffer largeView;
    private int largeFill;
    private int largeLength;
    private boolean closed;

    public FrameAssembler(final BufferPool pool, final Limits limits, final LoopCounters counters)
    {
        this(pool, limits, counters, System::nanoTime);
    }

    /** @param clock the time {@link #partialSince()} is told in */
    public FrameAssembler(final BufferPool pool, final Limits limits, final LoopCounters counters,
        final LongSupplier clock)
    {
        this.pool = pool;
        this.limits = limits;
        this.counters = counters;
        this.clock = clock;
    }

    /** Frames longer than {@code maxLength} are refused from now on, as soon as their header is in. */
    public void limitFrames(final int maxLength)
    {
        maxFrameLength = maxLength;
    }

    /** Bytes held of a frame not complete yet; 0 when none. */
    public long partialBytes()
    {
        return large != null ? largeFill : slab == null ? 0 : writePos - readPos;
    }

    /** Byte {@code index} of the frame not complete yet, 0-255; -1 when fewer bytes of it are held. */
    public int partialByte(final int index)
    {
        if (large != null)
        {
            return index < largeFill ? large.buffer().getByte(index) & 0xFF : -1;
        }
        return slab == null || writePos - readPos <= index ? -1 : slab.buffer().getByte(readPos + index) & 0xFF;
    }

    /** When the first bytes of the frame not complete yet arrived; 0 when there is none. */
    public long partialSince()
    {
        return partialSince;
    }

    /** Where the next bytes go: read into the returned buffer's remaining space, then call {@link #received}. */
    public ByteBuffer writable()
    {
        if (large != null)
        {
            if (largeFill == large.capacity())
            {
                growLarge();
            }
            return largeView.limit(Math.min(largeLength, large.capacity())).position(largeFill);
        }
        if (slab == null)
        {
            replaceSlab(0);
        }
        else if (writePos == slab.capacity())
        {
            if (readPos == writePos && slab.refCount() == 1)
            {
                readPos = writePos = 0;
            }
            else if (writePos - readPos >= Frame.HEADER_LENGTH &&
                frame.wrap(slab.buffer(), readPos).frameLength() > RECEIVE_SLAB)
            {
                // only now: the bytes came, not just the length announced
                moveIncomplete(frame.frameLength(), Math.max(LARGE_START, 2 * (writePos - readPos)));
                return writable();
            }
            else
            {
                replaceSlab(writePos - readPos);
            }
        }
        return view.limit(slab.capacity()).position(writePos);
    }

    /**
     * Where the next bytes go when they come in bulk, already in the peer's memory (an rdma read of an exposed
     * buffer): a frame that will not fit the receive slab moves to a slab of its own now, up to 4 MiB at once, so
     * the bytes are read there in few pieces rather than trickled through the receive slab first.
     */
    public ByteBuffer writableInBulk()
    {
        if (large == null && slab != null && writePos - readPos >= Frame.HEADER_LENGTH)
        {
            final int length = frame.wrap(slab.buffer(), readPos).frameLength();
            if (length > slab.capacity() - readPos && length > RECEIVE_SLAB)
            {
                moveIncomplete(length, Math.min(length, BULK_START));
            }
        }
        return writable();
    }

    /** Copies as much of {@code src} as fits into {@link #writable()}, delivering frames; returns bytes taken. */
    public int feed(final ByteBuffer src, final LinkHandler handler)
    {
        final ByteBuffer dst = writable();
        final int n = Math.min(src.remaining(), dst.remaining());
        final int srcPos = src.position();
        dst.put(dst.position(), src, srcPos, n);
        src.position(srcPos + n);
        received(n, handler);
        return n;
    }

    /** Copies {@code length} bytes from {@code src} in, delivering frames as they complete. */
    public void feed(final DirectBuffer src, final int index, final int length, final LinkHandler handler)
    {
        if (large == null && slab != null && length <= slab.capacity() - writePos && !closed)
        {
            // the common case (an shm ring record of whole small frames): one copy, no buffer view to move
            slab.buffer().putBytes(writePos, src, index, length);
            received(length, handler);
            return;
        }
        int at = index;
        int left = length;
        while (left > 0 && !closed)
        {
            final ByteBuffer dst = writable();
            final int n = Math.min(left, dst.remaining());
            src.getBytes(at, dst, dst.position(), n);
            at += n;
            left -= n;
            received(n, handler);
        }
    }

    /** Accounts for {@code n} bytes read into {@link #writable()} and delivers every frame now complete. */
    public void received(final int n, final LinkHandler handler)
    {
        if (n <= 0)
        {
            return;
        }
        final long before = delivered;
        try
        {
            take(n, handler);
        }
        finally
        {
            if (closed || partialBytes() == 0)
            {
                partialSince = 0;
            }
            else if (partialSince == 0 || delivered != before)
            {
                partialSince = clock.getAsLong();
            }
        }
    }

    private void take(final int n, final LinkHandler handler)
    {
        if (large != null)
        {
            largeFill += n;
            if (largeFill == largeLength)
            {
                final Slab whole = large;
                large = null;
                largeView = null;
                try
                {
                    checkBody(whole, 0);
                    counters.frameReceived(largeLength);
                    delivered++;
                    handler.onFrame(whole, 0, largeLength);
                }
                finally
                {
                    whole.release();
                }
            }
            return;
        }
        writePos += n;
        deliver(handler);
    }

    private void deliver(final LinkHandler handler)
    {
        while (writePos - readPos >= Frame.HEADER_LENGTH)
        {
            frame.wrap(slab.buffer(), readPos);
            final String error = frame.checkHeader(limits);
            if (error != null)
            {
                throw new ProtocolViolationException(error);
            }
            final int length = frame.frameLength();
            if (length > maxFrameLength)
            {
                throw new ProtocolViolationException("frame length " + length + " exceeds the " + maxFrameLength +
                    " bytes a peer may send before it has set up");
            }
            if (length <= writePos - readPos)
            {
                checkBody(slab, readPos);
                counters.frameReceived(length);
                delivered++;
                handler.onFrame(slab, readPos, length);
                if (slab == null)
                {
                    return; // the handler closed the link
                }
                readPos += length;
            }
            else
            {
                return; // the rest of it is read where the slab has room, or moved once the slab is full
            }
        }
        if (readPos == writePos && slab.refCount() == 1)
        {
            readPos = writePos = 0;
        }
    }

    /**
     * Gives the receive slab back when no partial frame is in it: called now and then (not per read, which would
     * cost a buffer view each time), so an idle connection holds no receive buffer. Frames handed on keep the
     * slab alive until they are released.
     */
    public void trim()
    {
        if (slab != null && readPos == writePos && large == null)
        {
            slab.release();
            slab = null;
            view = null;
        }
    }

    /** The start of a frame larger than a receive slab moves to a slab of its own, of {@code start} bytes first. */
    private void moveIncomplete(final int length, final int start)
    {
        final int partial = writePos - readPos;
        large = allocate(Math.min(length, Math.max(start, partial)), length);
        largeView = large.byteBuffer().duplicate();
        large.buffer().putBytes(0, slab.buffer(), readPos, partial);
        largeFill = partial;
        largeLength = length;
        slab.release();
        slab = null;
        view = null;
    }

    private void growLarge()
    {
        final Slab bigger = allocate((int)Math.min(largeLength, (long)large.capacity() * 4), largeLength);
        bigger.buffer().putBytes(0, large.buffer(), 0, largeFill);
        large.release();
        large = bigger;
        largeView = bigger.byteBuffer().duplicate();
    }

    private Slab allocate(final int capacity, final int frameLength)
    {
        try
        {
            return pool.acquire(capacity);
        }
        catch (final OutOfMemoryError ex)
        {
            throw new ConnectionException("no memory for a " + frameLength + "-byte frame (" + ex.getMessage() +
                "); closing this connection only");
        }
    }

    private void replaceSlab(final int carry)
    {
        final Slab next = pool.acquire(RECEIVE_SLAB);
        if (slab != null)
        {
            next.buffer().putBytes(0, slab.buffer(), readPos, carry);
            slab.release();
        }
        slab = next;
        view = next.byteBuffer().duplicate();
        readPos = 0;
        writePos = carry;
    }

    private void checkBody(final Slab in, final int offset)
    {
        final String error = frame.wrap(in.buffer(), offset).checkBody(sharedAllowed);
        if (error != null)
        {
            throw new ProtocolViolationException(error);
        }
    }

    /** Lets {@link io.xio.engine.protocol.FrameFlags#DATA_SHARED} frames through, for the shm link to resolve. */
    public void allowShared()
    {
        sharedAllowed = true;
    }

    /** Gives the slabs back; the assembler must not be used afterwards. */
    public void close()
    {
        closed = true;
        if (slab != null)
        {
            slab.release();
            slab = null;
        }
        if (large != null)
        {
            large.release();
            large = null;
        }
    }
}
