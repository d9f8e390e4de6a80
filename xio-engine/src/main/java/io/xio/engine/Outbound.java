package io.xio.engine;

import java.nio.ByteBuffer;

/**
 * A message to send: an application header plus zero or more data segments. The bytes between each
 * buffer's position and limit are sent; positions are not changed. Buffers are referenced, not copied, until
 * xio is done with them: for a request or one-way message, until its future completes (it may be
 * retransmitted after a connection failure, and a future never completes while a socket still reads its
 * buffers, even past the deadline); after a cancel, until {@link XioFuture#cancelOutcome()} completes; for a
 * response, until it was written, which {@link #releaseAfterSend} tells. Direct buffers (or regions from
 * {@link XioEngine#registerMemory}) are written without a copy. Not thread-safe while being built.
 *
 * <p>A request may name an output buffer ({@link #responseInto}) for its response's data: the response's
 * data segments then arrive in that buffer, back to back from its position, when they fit between its position
 * and limit. On {@code rdma} the peer RDMA-WRITEs them there straight from its memory when the buffer lies in
 * a region passed to {@link XioEngine#registerMemory}; elsewhere (and for other buffers) xio copies them in on
 * arrival. The output buffer is lent to xio like the request's own buffers: until the future or listener was
 * told (after a cancel, until {@link XioFuture#cancelOutcome()} completes). A call that exposed its buffer to the
 * peer reports a timeout or failure only once the peer can no longer write into it: one round trip after the
 * deadline (the peer confirms the cancel), or when the connection is gone.
 *
 * <p>An outbound may be sent again once xio is done with it (the future or {@link ResponseListener} was told,
 * or the {@link #releaseAfterSend} resource closed): keeping one per buffer avoids an object per call.
 */
public final class Outbound
{
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    private static final ByteBuffer[] NONE = new ByteBuffer[0];

    private final ByteBuffer header;
    private final ByteBuffer[] segments;
    private AutoCloseable releaseAfterSend;
    private ByteBuffer output;
    private Metadata metadata;

    private Outbound(final ByteBuffer header, final ByteBuffer[] segments)
    {
        this.header = header == null ? EMPTY : header;
        this.segments = segments == null ? NONE : segments;
        for (final ByteBuffer segment : this.segments)
        {
            if (segment == null)
            {
                throw new IllegalArgumentException("data segments must not be null");
            }
        }
    }

    /** A message of just a header (no varargs array per call). */
    public static Outbound of(final ByteBuffer header)
    {
        return new Outbound(header, NONE);
    }

    public static Outbound of(final ByteBuffer header, final ByteBuffer... segments)
    {
        return new Outbound(header, segments);
    }

    public static Outbound of(final byte[] header)
    {
        return new Outbound(ByteBuffer.wrap(header), NONE);
    }

    public static Outbound empty()
    {
        return new Outbound(EMPTY, NONE);
    }

    /**
     * Closes {@code resource} once xio no longer needs this message's buffers: e.g. a received
     * {@link Message} whose segments are echoed back without a copy.
     */
    public Outbound releaseAfterSend(final AutoCloseable resource)
    {
        this.releaseAfterSend = resource;
        return this;
    }

    /**
     * Asks for the response's data in {@code buffer}, between its position and limit (neither is changed).
     * Requests only: a one-way message takes no response. Null takes the request back to ordinary segments.
     */
    public Outbound responseInto(final ByteBuffer buffer)
    {
        if (buffer != null && buffer.isReadOnly())
        {
            throw new IllegalArgumentException("the output buffer for a response must be writable");
        }
        this.output = buffer;
        return this;
    }

    /**
     * A new message with this one's header and segments (the same buffers, not copies) and nothing else: to send a
     * call again once xio is done with this message (its attempt failed). Metadata, an output buffer and resources to
     * release are not carried over.
     */
    public Outbound sameData()
    {
        final ByteBuffer[] segments = new ByteBuffer[segmentCount()];
        for (int i = 0; i < segments.length; i++)
        {
            segments[i] = segment(i);
        }
        return of(header(), segments);
    }

    /**
     * Sends {@code value} with this message: a request's or one-way message's metadata, or a response's trailers.
     * It is read when the message is written (and again for a retransmit), so sending the message makes it
     * read-only (a sealed metadata may be sent again with any number of messages). Null sends none. An exactly-once
     * call ({@link CallOptions#exactlyOnce()}) replaces it with a copy carrying the call's idempotency key when it
     * needs one; a later call of this message gets a key of its own.
     */
    public Outbound metadata(final Metadata value)
    {
        this.metadata = value;
        return this;
    }

    /** The metadata given to {@link #metadata(Metadata)}, or null. */
    public Metadata metadata()
    {
        return metadata;
    }

    /** The buffer given to {@link #responseInto}, or null. */
    public ByteBuffer output()
    {
        return output;
    }

    public ByteBuffer header()
    {
        return header;
    }

    public int headerLength()
    {
        return header.remaining();
    }

    public int segmentCount()
    {
        return segments.length;
    }

    public ByteBuffer segment(final int index)
    {
        return segments[index];
    }

    public long dataLength()
    {
        long total = 0;
        for (final ByteBuffer segment : segments)
        {
            total += segment.remaining();
        }
        return total;
    }

    /** Whether {@link #releaseAfterSend} registered something to release. */
    public boolean hasReleaseAfterSend()
    {
        return releaseAfterSend != null;
    }

    /** Runs the release registered with {@link #releaseAfterSend}, once. Called by xio. */
    public void released()
    {
        final AutoCloseable resource = releaseAfterSend;
        releaseAfterSend = null;
        if (resource != null)
        {
            try
            {
                resource.close();
            }
            catch (final Exception ex)
            {
                throw new XioException("releasing a sent message's resource failed", ex);
            }
        }
    }
}
