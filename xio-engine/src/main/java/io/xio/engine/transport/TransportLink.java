package io.xio.engine.transport;

import io.xio.engine.Outbound;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteBuffer;

/**
 * One end of a transport connection, owned by one context: only that context's thread may call it.
 *
 * <p>Outbound, the engine claims room for a frame, writes it in place and commits it. Large data segments
 * are handed over by reference with {@link #commit(ByteBuffer[], int, SendCompletion)}: a stream transport writes
 * them straight from the caller's buffers, a transport with a one-sided capability may instead expose them
 * for the peer to read. Frames committed during one loop turn leave together on {@link #flush()} (one
 * gathering write, one ring claim, one chained post): this is where small messages coalesce.
 *
 * <p>One-sided writes (optional, RDMA): a requester {@linkplain #exposeForWrite exposes} its output buffer as a
 * {@link RemoteRegion}, and the responder {@linkplain #commitInto writes} the response's data straight into it
 * ahead of the response frame. Links without the capability keep the defaults, and the data travels in the
 * frame.
 *
 * <p>Inbound, the link hands whole, validated frames to its {@link LinkHandler}.
 */
public interface TransportLink
{
    /** Starts delivering inbound frames and events to the handler. */
    void start(LinkHandler handler);

    /** Frames up to this many bytes may be written whole into a claim; larger ones pass data by reference. */
    int maxInlineFrame();

    /**
     * Claims room for {@code length} bytes at {@link #claimOffset()} of the returned buffer.
     *
     * @return the buffer to write into, or null when the link has no room or credit now; the link calls
     * {@link LinkHandler#onWritable()} when it has
     */
    MutableDirectBuffer claim(int length);

    /** Where the last claim starts in the buffer {@link #claim} returned. */
    int claimOffset();

    /** Commits the last claim. */
    void commit();

    /**
     * Commits the last claim followed on the wire by {@code data[0..count)}, referenced, not copied, until the
     * link calls {@code completion} (may be null), which it does exactly once: after writing, or on close.
     * The buffers' positions and limits must not change meanwhile.
     */
    void commit(ByteBuffer[] data, int count, SendCompletion completion);

    /**
     * Describes {@code buffer}'s remaining bytes as a region the peer may write into over this link.
     *
     * @return false when this link cannot offer that for this buffer (then {@code region} is untouched)
     */
    default boolean exposeForWrite(final ByteBuffer buffer, final RemoteRegion region)
    {
        return false;
    }

    /** Whether {@link #commitInto} can take {@code message}'s data segments, now. */
    default boolean canWriteInto(final Outbound message)
    {
        return false;
    }

    /**
     * Writes {@code data[0..count)} back to back into the peer's {@code region}, then commits the last claim:
     * the peer sees the claimed frame only after the data is in place. The buffers stay referenced until the
     * link calls {@code completion} (may be null), exactly once. Only after {@link #canWriteInto} said yes.
     */
    default void commitInto(final RemoteRegion region, final ByteBuffer[] data, final int count,
        final SendCompletion completion)
    {
        throw new UnsupportedOperationException("this link has no one-sided writes");
    }

    /** Sends what was committed this turn, as far as the link can without blocking. */
    int flush();

    /**
     * Hands what was committed over now rather than at the end of the loop's turn, where that is cheap (no system
     * call while the peer is busy): for a small frame the peer is waiting on (stream credit), which would otherwise
     * wait behind the rest of this turn. The turn's flush still runs. A no-op by default.
     */
    default void expedite()
    {
    }

    /** When bytes last arrived ({@link TransportContext#nanoTime} base): a slow large frame is still a live peer. */
    long lastReceiveNanos();

    /**
     * When the peer last took bytes of the backlog, or bytes were queued while none were pending ({@link
     * TransportContext#nanoTime} base): a backlog that has not moved for long is a peer that does not read.
     * {@code Long.MAX_VALUE} when the link cannot tell.
     */
    default long lastWriteProgressNanos()
    {
        return Long.MAX_VALUE;
    }

    /**
     * Since when (about: sampled at {@code now}, the sweep's time) the oldest of our shared-memory references the
     * peer has not released yet has been lent; 0 when none is.
     */
    default long lentSince(final long now)
    {
        return 0;
    }

    /** Whether the peer left more of our releases of its shared memory unread than we keep (it does not read). */
    default boolean releasesStuck()
    {
        return false;
    }

    /** When the first bytes of a frame not complete yet arrived; 0 when none is arriving. */
    default long incompleteFrameSince()
    {
        return 0;
    }

    /** Bytes received so far of the frame {@link #incompleteFrameSince()} speaks of. */
    default long incompleteFrameBytes()
    {
        return 0;
    }

    /**
     * Frames longer than {@code maxLength} close the link from now on, checked as soon as their header is in (a
     * connection that has not set up may send only small frames); the limits' maximum otherwise.
     */
    default void limitFrames(final int maxLength)
    {
    }

    /** Gives back buffers that nothing pending needs, now and then (an idle connection should cost little). */
    default void trim()
    {
    }

    /** The largest single buffer in the backlog: one large message is not a peer that stopped reading. */
    default long largestPending()
    {
        return 0;
    }

    /** Bytes committed and not yet sent and released. */
    long backlog();

    /**
     * Asks for one {@link LinkHandler#onWritable()} once the backlog is back within the limit: the engine
     * holds frames back until then.
     */
    void notifyWhenWritable();

    /** Closes the link; the handler's {@link LinkHandler#onClosed} follows once. */
    void close(Throwable cause);

    /** The peer's address, for messages and monitoring. */
    String remoteAddress();

    /** What the transport proved about the peer (TLS certificate, local user); its address only by default. */
    default io.xio.engine.PeerIdentity peerIdentity()
    {
        return io.xio.engine.PeerIdentity.of(remoteAddress());
    }
}
