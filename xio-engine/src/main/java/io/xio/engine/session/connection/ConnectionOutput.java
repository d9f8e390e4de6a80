package io.xio.engine.session.connection;

import io.xio.engine.Limits;
import io.xio.engine.Outbound;
import io.xio.engine.PeerRefusal;
import io.xio.engine.context.EventLoop;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameEncoder;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.transport.TransportLink;

import java.util.function.BiConsumer;

/**
 * What this side writes on one connection: frames through its encoder, held to the limits on what may wait
 * unsent for the peer. A peer that lets too much pile up while reading nothing is refused at the next turn (never
 * mid-send); until then, and once the connection closed, sends are refused. Owned by the connection's context
 * thread.
 */
final class ConnectionOutput implements StreamOutput
{
    /** How long a peer over the unsent limit may go without reading anything before it is cut off. */
    static final long UNSENT_GRACE_NANOS = 1_000_000_000L;

    private final TransportLink link;
    private final Limits limits;
    private final EventLoop loop;
    private final BiConsumer<PeerRefusal, String> refuse;
    private final FrameEncoder encoder = new FrameEncoder();
    private boolean open = true;
    /** Too much unsent for the peer: closing at the next turn, sends refused until then. */
    private boolean overflowed;
    private long lastSent;

    /** @param refuse closes the connection, refusing its peer for what it did */
    ConnectionOutput(final TransportLink link, final Limits limits, final EventLoop loop,
        final BiConsumer<PeerRefusal, String> refuse)
    {
        this.link = link;
        this.limits = limits;
        this.loop = loop;
        this.refuse = refuse;
        this.lastSent = loop.nanoTime();
    }

    /** When a frame was last written. */
    long lastSent()
    {
        return lastSent;
    }

    /** Whether the connection is open: until its link closed. */
    boolean isOpen()
    {
        return open;
    }

    /** The connection closed: nothing more is written. */
    void closed()
    {
        open = false;
    }

    /** Whether new frames may be written now (open, and the backlog under the limit). */
    boolean writable()
    {
        if (!open || overflowed)
        {
            return false;
        }
        if (link.backlog() <= limits.maxQueuedBytes())
        {
            return true;
        }
        link.notifyWhenWritable();
        return false;
    }

    /**
     * Before a send: a peer that lets more than the limit pile up and reads nothing for a while is cut off (at the
     * next turn, not mid-send). The largest message waiting does not count (one message of any legal size always
     * fits), nor does a backlog the peer is reading: answers to calls started before the backlog grew may exceed
     * the limit for a moment when they are large; it is a peer that stops reading that must not cost more.
     */
    private void checkUnsent()
    {
        final long limit = limits.maxUnsentBytes();
        final long backlog = link.backlog();
        if (!overflowed && backlog > limit &&
            loop.nanoTime() - link.lastWriteProgressNanos() > UNSENT_GRACE_NANOS &&
            backlog - link.largestPending() > limit)
        {
            overflowed = true;
            loop.execute(() -> refuse.accept(PeerRefusal.UNSENT_LIMIT, link.backlog() + " bytes unsent, over " +
                "the limit of " + limits.maxUnsentBytes() + ": the peer reads too slowly"));
        }
    }

    /**
     * Encodes a message frame, with a call context when {@code remaining} (a REQUEST's deadline, else
     * {@code CallContext.NO_DEADLINE}) or the message's metadata ask for one; returns {@link FrameEncoder#NO_ROOM},
     * {@code QUEUED} or {@code COPIED}.
     */
    int sendMessage(final int type, final int flags, final long sessionId, final long id, final int status,
        final Outbound message, final long remaining, final io.xio.engine.transport.SendCompletion completion,
        final boolean always)
    {
        if (!open || overflowed)
        {
            return FrameEncoder.NO_ROOM;
        }
        checkUnsent();
        lastSent = loop.nanoTime();
        return encoder.encode(link, type, flags, sessionId, id, status, message, remaining, completion, always);
    }

    @Override
    public int sendStream(final int flags, final long sessionId, final long streamId, final int status,
        final long sequence, final Outbound message, final io.xio.engine.transport.SendCompletion completion)
    {
        if (!open || overflowed)
        {
            return FrameEncoder.NO_ROOM;
        }
        checkUnsent();
        lastSent = loop.nanoTime();
        return encoder.encodeStream(link, flags, sessionId, streamId, status, sequence, message, completion, false);
    }

    @Override
    public boolean sendCredit(final int flags, final long sessionId, final long streamId, final long received,
        final long limitSequence, final long limitBytes)
    {
        if (!open || overflowed)
        {
            return false;
        }
        checkUnsent();
        lastSent = loop.nanoTime();
        if (!encoder.encodeCredit(link, flags, sessionId, streamId, received, limitSequence, limitBytes))
        {
            return false;
        }
        link.expedite(); // the sender may be idle for want of it: it should not wait for the rest of our turn
        return true;
    }

    @Override
    public boolean inlines(final long frameLength)
    {
        return frameLength <= link.maxInlineFrame();
    }

    /** Offers {@code output} for the response to request {@code id}; the bytes offered, or -1 (not offered). */
    int exposeOutput(final int flags, final long sessionId, final long id, final java.nio.ByteBuffer output)
    {
        return open ? encoder.exposeOutput(link, flags, sessionId, id, output) : -1;
    }

    /** A RESPONSE whose data goes straight into the requester's region: {@link FrameEncoder#encodeInto}. */
    int sendInto(final int flags, final long sessionId, final long id, final int status, final Outbound message,
        final long address, final int key, final int length, final io.xio.engine.transport.SendCompletion completion)
    {
        if (!open || overflowed)
        {
            return FrameEncoder.NO_ROOM;
        }
        checkUnsent();
        final int result = encoder.encodeInto(link, flags, sessionId, id, status, message, address, key, length,
            completion);
        if (result != FrameEncoder.NOT_WRITABLE)
        {
            lastSent = loop.nanoTime();
        }
        return result;
    }

    /** Answers the CANCEL in {@code cancel}: its range, and how many of its calls were aborted. */
    void sendCancelResult(final Frame cancel, final int aborted)
    {
        final long last = new SetupCodec.Reader(cancel.buffer(), cancel.headerOffset(), cancel.headerLength()).i64();
        sendControl(FrameType.CANCEL_RESULT, cancel.flags() & FrameFlags.FROM_ACCEPTOR, cancel.sessionId(),
            cancel.requestId(), 0, new SetupCodec.Writer().i64(last).i32(aborted).toBytes());
    }

    /** Whether the frame was queued: not on a closed link, or one without room. */
    boolean sendControl(final int type, final int flags, final long sessionId, final long id, final int status,
        final byte[] body)
    {
        if (open && !overflowed)
        {
            checkUnsent();
            lastSent = loop.nanoTime();
            return encoder.encodeControl(link, type, flags, sessionId, id, status, body);
        }
        return false;
    }
}
