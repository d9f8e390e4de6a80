package io.xio.engine;

import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.CallContext;
import io.xio.engine.protocol.Frame;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * A received message: its header and data segments are views into the receive buffer, not copies. The
 * receiver must {@link #close()} it when done (try-with-resources), which returns the buffer to its pool;
 * the views must not be used afterwards. Reading may happen on any thread; close may be called from any thread.
 * {@link #segmentBuffer(int)} with the offsets reads in place without creating a view.
 *
 * <p>Who may close it more than once depends on where it came from. A message from a future or from a service
 * registered with {@link RequestReuse#NEVER} is this object for this message only: closing it again does
 * nothing. On the allocation-free paths xio reuses the object for later messages, so a second close, or any
 * use after the first, may act on a later message: a request of a service registered with
 * {@link RequestReuse#AFTER_ANSWER}, and the response of a call made with {@link CallOptions#withRecycledFuture()}
 * (whose future goes back to its pool with it), must be closed exactly once and neither it nor that future touched
 * afterwards; a response lent to a {@link ResponseListener} is valid during that call only and closed by xio (do
 * not close it). Only xio creates messages.
 *
 * <p>A response to a request that named an output buffer ({@link Outbound#responseInto}) has its data segments
 * in that buffer when they fit ({@link #inOutput()}): the segment views are slices of it and
 * {@link #segmentOffset(int)} gives indexes into it; the header stays in the receive buffer.
 */
public final class Message implements AutoCloseable
{
    private static final VarHandle RELEASED;

    static
    {
        try
        {
            RELEASED = MethodHandles.lookup().findVarHandle(Message.class, "released", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private static final int[] NO_SEGMENTS = new int[0];

    private Slab slab;
    private int contextOffset;
    private Metadata metadata;
    private int headerOffset;
    private int headerLength;
    private int segmentCount;
    // Segment 0 in fields, the others (rarely any) in arrays from index 1 on: a message of one segment has none.
    private int firstOffset;
    private int firstLength;
    private int[] segmentOffsets = NO_SEGMENTS;
    private int[] segmentLengths = NO_SEGMENTS;
    private long requestId;
    private ByteBuffer output;
    /** {@link #output} for {@link #segmentBuffer}, made on the first such read and rewrapped after. */
    private org.agrona.concurrent.UnsafeBuffer outputBuffer;
    /**
     * Where the segments lie in a peer's shared memory and whom to tell at close; null for the usual message, so
     * the fields only shared messages need cost the others one reference.
     */
    private SharedData shared;
    /**
     * Told when this message is released (closed or abandoned), when leak detection is on: the engine's leak
     * tracker, which the session layer told of it when it was delivered; null otherwise.
     */
    private Consumer<Message> untrack;
    private Runnable onClose;
    @SuppressWarnings("unused") // accessed through RELEASED
    private volatile int released;

    /**
     * Wraps the message in the frame at {@code frame}; retains the slab. Made by the session layer only, through a
     * private lookup (its package is not one this exported package may name).
     *
     * @param untrack told when it is released, or null
     */
    Message(final Slab slab, final Frame frame, final Consumer<Message> untrack)
    {
        wrap(slab, frame, untrack, null);
    }

    /** A released message for xio to {@link #wrap} and reuse: the allocation-free paths recycle these. */
    Message()
    {
        released = 1;
    }

    /**
     * Makes this (released) message the one in {@code frame}, retaining the slab; {@code untrack} and
     * {@code onClose} (each may be null) are told of the close or abandon. For xio's own use (the session layer's,
     * through a private lookup): only a message nobody else holds may be rewrapped.
     */
    Message wrap(final Slab slab, final Frame frame, final Consumer<Message> untrack, final Runnable onClose)
    {
        this.slab = slab.retain();
        this.requestId = frame.requestId();
        this.contextOffset = frame.contextLength() == 0 ? -1 : frame.contextOffset();
        this.metadata = null;
        this.headerOffset = frame.applicationHeaderOffset();
        this.headerLength = frame.applicationHeaderLength();
        final int count = frame.segmentCount();
        if (count > 1 && segmentOffsets.length < count)
        {
            segmentOffsets = new int[count];
            segmentLengths = new int[count];
        }
        segmentCount = count;
        int at = frame.dataOffset();
        for (int i = 0; i < count; i++)
        {
            final int length = frame.segmentLength(i);
            place(i, at, length);
            at += length;
        }
        this.output = null;
        this.shared = null;
        if ((frame.flags() & io.xio.engine.protocol.FrameFlags.DATA_SHARED) != 0)
        {
            placeShared(slab, frame);
        }
        this.untrack = untrack;
        this.onClose = onClose;
        RELEASED.setRelease(this, 0);
        return this;
    }

    /** The segments lie in the peer's shared region the shm link resolved (and checked) for this frame. */
    private void placeShared(final Slab slab, final Frame frame)
    {
        final io.xio.engine.memory.SharedPlacement placement = io.xio.engine.memory.SharedPlacement.claim();
        if (placement == null)
        {
            slab.release();
            throw new ProtocolViolationException("a shared-memory data reference arrived where none may be");
        }
        shared = new SharedData(placement.view(), placement.buffer(), placement.releaser(), placement.token());
        final int offsets = frame.dataOffset() + io.xio.engine.protocol.FrameFlags.SHARED_BODY_LENGTH;
        for (int i = 0; i < segmentCount; i++)
        {
            place(i, (int)slab.buffer().getLong(offsets + 8 * i, Frame.ORDER), lengthOf(i));
        }
    }

    /**
     * Whether the data segments are read-only views into the sender's shared memory ({@code
     * XioEngine.allocateShared}, over shm) rather than copies: {@link #segmentOffset(int)} then indexes into that
     * region ({@link #segmentBuffer(int)}), not {@link #buffer()}, and the sender may reuse the bytes only once this
     * message is closed.
     */
    public boolean inShared()
    {
        final SharedData data = shared;
        return data != null && data.view != null;
    }

    /**
     * Says that the data segments lie in {@code buffer} back to back from index {@code at} (the peer wrote them
     * there, or xio copied them in). For xio's own use.
     */
    void placeIn(final ByteBuffer buffer, final int at)
    {
        output = buffer;
        if (shared != null)
        {
            shared.copiedOut(); // still released at close
        }
        int next = at;
        for (int i = 0; i < segmentCount; i++)
        {
            final int length = lengthOf(i);
            place(i, next, length);
            next += length;
        }
    }

    /**
     * Copies the data segments out of the peer's shared region into memory of this process (then {@link #inOutput()}
     * says so), and hands the region back to its sender now rather than at close: for a stream message its receiver
     * holds longer than the sender may lend it. Nothing for a message not {@link #inShared()}. For xio's own use, on a
     * message the application does not hold yet.
     */
    void copyOutOfShared()
    {
        final SharedData data = shared;
        if (data == null || data.view == null)
        {
            return;
        }
        int bytes = 0;
        for (int i = 0; i < segmentCount; i++)
        {
            bytes += lengthOf(i);
        }
        final ByteBuffer copy = ByteBuffer.allocate(bytes);
        int at = 0;
        for (int i = 0; i < segmentCount; i++)
        {
            copy.put(at, data.view, offsetOf(i), lengthOf(i));
            at += lengthOf(i);
        }
        placeIn(copy, 0);
        shared = null;
        data.releaser.release(data.token);
    }

    private void place(final int index, final int offset, final int length)
    {
        if (index == 0)
        {
            firstOffset = offset;
            firstLength = length;
        }
        else
        {
            segmentOffsets[index] = offset;
            segmentLengths[index] = length;
        }
    }

    private int offsetOf(final int index)
    {
        return index == 0 ? firstOffset : segmentOffsets[index];
    }

    private int lengthOf(final int index)
    {
        return index == 0 ? firstLength : segmentLengths[index];
    }

    /**
     * Whether the data segments lie in the request's output buffer rather than in {@link #buffer()}; for a stream
     * message that came by reference ({@link #inShared()}), in a copy xio made of it while it waited for the listener.
     */
    public boolean inOutput()
    {
        return output != null;
    }

    /** The id of the request this message is (or answers), unique within its session and direction. */
    public long requestId()
    {
        return requestId;
    }

    /**
     * The metadata the sender attached ({@link Outbound#metadata(Metadata)}): a request's or one-way message's, or
     * a response's trailers; {@link Metadata#EMPTY} when none. Read-only. Decoded on the first call, which must
     * come before {@link #close()}; what it returns stays valid afterwards.
     */
    public Metadata metadata()
    {
        Metadata decoded = metadata;
        if (decoded == null)
        {
            checkOpen();
            decoded = contextOffset < 0 || !CallContext.hasEntries(slab.buffer(), contextOffset) ? Metadata.EMPTY :
                CallContext.decode(slab.buffer(), contextOffset);
            metadata = decoded;
        }
        return decoded;
    }

    /** The application header, a view valid until {@link #close()}. */
    public ByteBuffer header()
    {
        checkOpen();
        return slab.slice(headerOffset, headerLength);
    }

    public int headerLength()
    {
        return headerLength;
    }

    public int segmentCount()
    {
        return segmentCount;
    }

    /** Data segment {@code index}, a view valid until {@link #close()}. */
    public ByteBuffer segment(final int index)
    {
        checkOpen();
        if (index >= segmentCount)
        {
            throw new IndexOutOfBoundsException("segment " + index + " of " + segmentCount);
        }
        if (output != null)
        {
            return output.slice(offsetOf(index), lengthOf(index));
        }
        return inShared() ? shared.view.slice(offsetOf(index), lengthOf(index))
            : slab.slice(offsetOf(index), lengthOf(index));
    }

    public int segmentLength(final int index)
    {
        if (index >= segmentCount)
        {
            throw new IndexOutOfBoundsException("segment " + index + " of " + segmentCount);
        }
        return lengthOf(index);
    }

    /**
     * The receive buffer the header lies in, for reading it in place without a ByteBuffer view (the
     * allocation-free way) at {@link #headerOffset()}; the data segments too, unless {@link #inOutput()} or
     * {@link #inShared()}: read those from {@link #segmentBuffer(int)}. Valid until {@link #close()}; do not write
     * to it.
     */
    public org.agrona.DirectBuffer buffer()
    {
        checkOpen();
        return slab.buffer();
    }

    /**
     * The buffer data segment {@code index} lies in at {@link #segmentOffset(int)}, for reading it in place without
     * a ByteBuffer view: {@link #buffer()}, the request's output buffer when {@link #inOutput()}, or the sender's
     * region when {@link #inShared()}. Valid until {@link #close()}; do not write to it (a region is mapped
     * read-only: a write would crash the process).
     */
    public org.agrona.DirectBuffer segmentBuffer(final int index)
    {
        checkOpen();
        if (index >= segmentCount)
        {
            throw new IndexOutOfBoundsException("segment " + index + " of " + segmentCount);
        }
        if (output != null)
        {
            if (outputBuffer == null)
            {
                outputBuffer = new org.agrona.concurrent.UnsafeBuffer(output);
            }
            else if (outputBuffer.byteBuffer() != output)
            {
                outputBuffer.wrap(output);
            }
            return outputBuffer;
        }
        return inShared() ? shared.buffer : slab.buffer();
    }

    /** Where the header starts in {@link #buffer()}. */
    public int headerOffset()
    {
        return headerOffset;
    }

    /**
     * Where data segment {@code index} starts in {@link #segmentBuffer(int)}: in {@link #buffer()}, in the output
     * buffer when {@link #inOutput()}, in the sender's region when {@link #inShared()}.
     */
    public int segmentOffset(final int index)
    {
        if (index >= segmentCount)
        {
            throw new IndexOutOfBoundsException("segment " + index + " of " + segmentCount);
        }
        return offsetOf(index);
    }

    /** Copies the header into a new array (for small headers; avoids holding the view). */
    public byte[] headerBytes()
    {
        final byte[] bytes = new byte[headerLength];
        slab.buffer().getBytes(headerOffset, bytes);
        return bytes;
    }

    public boolean isReleased()
    {
        return (int)RELEASED.getAcquire(this) != 0;
    }

    /**
     * Lets go of the message without returning its buffer to the pool, for views that code beyond xio's control
     * may still read (work a cancel could not stop): the buffer is never reused, the garbage collector frees it.
     */
    public void abandon()
    {
        if (RELEASED.compareAndSet(this, 0, 1))
        {
            if (untrack != null)
            {
                untrack.accept(this);
            }
            slab.abandon();
            closed();
        }
    }

    /** Returns the buffer to its pool. */
    @Override
    public void close()
    {
        if (RELEASED.compareAndSet(this, 0, 1))
        {
            if (untrack != null)
            {
                untrack.accept(this);
            }
            slab.release();
            closed();
        }
    }

    private void closed()
    {
        final SharedData data = shared;
        if (data != null)
        {
            shared = null;
            data.releaser.release(data.token);
        }
        final Runnable action = onClose;
        if (action != null)
        {
            action.run();
        }
    }

    private void checkOpen()
    {
        if (isReleased())
        {
            throw new IllegalStateException("message " + requestId + " was already released");
        }
    }

    /** The segments' place in a peer's shared region (read-only) and the release owed at close. */
    private static final class SharedData
    {
        private ByteBuffer view;
        private org.agrona.DirectBuffer buffer;
        private final io.xio.engine.memory.SharedPlacement.Releaser releaser;
        private final long token;

        SharedData(final ByteBuffer view, final org.agrona.DirectBuffer buffer,
            final io.xio.engine.memory.SharedPlacement.Releaser releaser, final long token)
        {
            this.view = view;
            this.buffer = buffer;
            this.releaser = releaser;
            this.token = token;
        }

        /** The segments were copied into an output buffer: they are read there now. */
        void copiedOut()
        {
            view = null;
            buffer = null;
        }
    }
}
