package io.xio.engine.transport.shm;

import io.xio.engine.ConnectionException;
import io.xio.engine.transport.LinkHandler;
import io.xio.engine.transport.Poller;
import io.xio.engine.transport.SelectionHandler;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.stream.StreamLink;
import org.agrona.IoUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One end of a shared-memory connection: frames go through a lock-free ring per direction in a mapped file,
 * copied in by the writer and out by the reader. A Unix-domain socket between the two processes is the
 * doorbell, rung only when the peer announced it is parking (so a busy pair makes no system calls and an
 * idle one uses no CPU), and its end-of-file is how a dead peer process is noticed at once. Owner context
 * thread only.
 */
final class ShmLink extends StreamLink implements Poller, SelectionHandler, MessageHandler
{
    private static final int DATA = 1;
    private static final int READS_PER_POLL = 64;

    private final MappedByteBuffer mapping;
    private final UnsafeBuffer shared;
    private final OneToOneRingBuffer in;
    private final OneToOneRingBuffer out;
    private final int myParked;
    private final int peerParked;
    private final int myWaiting;
    private final int peerWaiting;
    private final SocketChannel doorbell;
    private final String remote;
    /** The peer process's user (server side, from the socket's credentials); null on the client side. */
    private final java.nio.file.attribute.UserPrincipal peerUser;
    private final UnsafeBuffer chunk = new UnsafeBuffer(0, 0);
    private final ShmShared regions;
    private MutableDirectBuffer claimed;
    private int claimedLength;
    private final ByteBuffer ring = ByteBuffer.allocateDirect(1);
    private final ByteBuffer drain = ByteBuffer.allocateDirect(64);
    private SelectionKey key;
    private long written;
    private boolean reading;
    /** Whether our parked flag may be set: cleared only then, so a busy link does not write the peer's cache line. */
    private boolean parkAnnounced;
    private boolean unmapped;
    private String peerGone;

    /** @param capacity the ring capacity, validated by the caller (never re-read from memory the peer writes) */
    ShmLink(final TransportContext context, final MappedByteBuffer mapping, final int capacity, final boolean server,
        final SocketChannel doorbell, final String remote,
        final java.nio.file.attribute.UserPrincipal peerUser, final java.nio.file.Path directory,
        final java.nio.file.attribute.UserPrincipal sharedPeer, final java.nio.file.attribute.UserPrincipal ownUser)
    {
        super(context);
        this.mapping = mapping;
        this.shared = new UnsafeBuffer(mapping);
        final UnsafeBuffer toServer = new UnsafeBuffer(mapping, ShmLayout.clientToServerOffset(),
            ShmLayout.ringLength(capacity));
        final UnsafeBuffer toClient = new UnsafeBuffer(mapping, ShmLayout.serverToClientOffset(capacity),
            ShmLayout.ringLength(capacity));
        this.in = new OneToOneRingBuffer(server ? toServer : toClient);
        this.out = new OneToOneRingBuffer(server ? toClient : toServer);
        this.myParked = server ? ShmLayout.SERVER_PARKED : ShmLayout.CLIENT_PARKED;
        this.peerParked = server ? ShmLayout.CLIENT_PARKED : ShmLayout.SERVER_PARKED;
        this.myWaiting = server ? ShmLayout.SERVER_WAITING : ShmLayout.CLIENT_WAITING;
        this.peerWaiting = server ? ShmLayout.CLIENT_WAITING : ShmLayout.SERVER_WAITING;
        this.doorbell = doorbell;
        this.remote = remote;
        this.peerUser = peerUser;
        final int peerFeatures = shared.getIntVolatile(server ? ShmLayout.CLIENT_FEATURES_OFFSET :
            ShmLayout.SERVER_FEATURES_OFFSET);
        this.regions = new ShmShared(this, directory, sharedPeer,
            (peerFeatures & ShmLayout.FEATURE_SHARED) != 0 ? ownUser : null);
    }

    @Override
    public void start(final LinkHandler linkHandler)
    {
        super.start(regions.wrap(linkHandler));
        assembler.allowShared();
        try
        {
            doorbell.configureBlocking(false);
            key = doorbell.register(context.selector(), SelectionKey.OP_READ, this);
        }
        catch (final IOException ex)
        {
            close(new ConnectionException("cannot watch the doorbell of " + remote, ex));
            return;
        }
        context.addPoller(this);
    }

    @Override
    public boolean releasesStuck()
    {
        return regions.releasesStuck();
    }

    @Override
    public long lentSince(final long now)
    {
        return regions.lentSince(now);
    }

    @Override
    public int poll()
    {
        if (closed)
        {
            return 0;
        }
        if (peerGone != null)
        {
            drainAndClose(peerGone);
            return 1;
        }
        if (parkAnnounced)
        {
            parkAnnounced = false;
            shared.putIntOrdered(myParked, 0);
        }
        final int work = read(READS_PER_POLL);
        if (closed)
        {
            return 1;
        }
        if (work > 0)
        {
            bytesArrived();
            VarHandle.fullFence(); // our new head must be visible before we read the peer's waiting flag
            if (shared.getIntVolatile(peerWaiting) != 0)
            {
                shared.putIntOrdered(peerWaiting, 0);
                ring(); // the peer waits for room we just made
            }
        }
        final int released = regions.flushReleases();
        return hasUntransmitted() ? work + released + flush() : work + released;
    }

    /** Reads up to {@code limit} records; a failure (a bad record, memory the peer broke) closes the link. */
    private int read(final int limit)
    {
        reading = true;
        try
        {
            return in.read(this, limit);
        }
        catch (final Exception | InternalError ex)
        {
            // InternalError: a fault reading the mapping, which a peer that truncates its file causes. Any other
            // Error is not the ring's fault: it goes on up and fails the context (see EventLoop).
            close(new ConnectionException("shm connection " + remote + " failed reading its ring: " + ex, ex));
            return 0;
        }
        finally
        {
            reading = false;
            if (closed)
            {
                unmapIfClosed();
            }
        }
    }

    @Override
    public void onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (!closed)
        {
            if (msgTypeId == DATA)
            {
                assembler.feed(buffer, index, length, handler);
            }
            else
            {
                regions.onControl(msgTypeId, buffer, index, length);
            }
        }
    }

    /**
     * Called just before the context parks: announce it, then look once more (the peer checks the flag after
     * a fence). Only a committed record counts: a record a dying peer reserved but never wrote must not keep
     * the loop awake.
     */
    @Override
    public boolean hasWork()
    {
        if (closed)
        {
            return false;
        }
        if (peerGone != null)
        {
            return true;
        }
        parkAnnounced = true;
        shared.putIntVolatile(myParked, 1);
        return committedRecordWaiting() || regions.hasReleases();
    }

    private boolean committedRecordWaiting()
    {
        final AtomicBuffer ringBuffer = in.buffer();
        final int capacity = in.capacity();
        final long head = ringBuffer.getLongVolatile(capacity + RingBufferDescriptor.HEAD_POSITION_OFFSET);
        return ringBuffer.getIntVolatile(RecordDescriptor.lengthOffset((int)head & (capacity - 1))) > 0;
    }

    @Override
    public void onSelected(final SelectionKey selected)
    {
        try
        {
            int n;
            do
            {
                drain.clear();
                n = doorbell.read(drain);
            }
            while (n > 0);
            if (n < 0)
            {
                drainAndClose("closed the connection or died");
                return;
            }
        }
        catch (final IOException ex)
        {
            // A reset rather than an end-of-file when our ring was still unread there: gone all the same.
            drainAndClose("is gone: " + ex.getMessage());
            return;
        }
        poll();
    }

    /** The peer is gone: deliver what it committed before it went, then close. */
    private void drainAndClose(final String why)
    {
        while (!closed && read(READS_PER_POLL) > 0)
        {
            bytesArrived();
        }
        close(new ConnectionException("shm peer " + remote + " " + why));
    }

    @Override
    protected void transmit(final ByteBuffer[] buffers, final int from, final int to)
    {
        int index = from;
        long bytes = 0;
        boolean full = false;
        while (index < to && !full)
        {
            final ByteBuffer buffer = buffers[index];
            while (buffer.hasRemaining())
            {
                final int length = Math.min(buffer.remaining(), out.maxMsgLength());
                chunk.wrap(buffer, buffer.position(), length);
                if (!out.write(DATA, chunk, 0, length))
                {
                    // Ask the reader to ring us when it made room, then look once more.
                    shared.putIntVolatile(myWaiting, 1);
                    if (!out.write(DATA, chunk, 0, length))
                    {
                        full = true;
                        break;
                    }
                    shared.putIntOrdered(myWaiting, 0);
                }
                buffer.position(buffer.position() + length);
                bytes += length;
            }
            if (!full)
            {
                index++;
            }
        }
        written += bytes;
        transmitted(index);
        if (bytes > 0)
        {
            context.counters().wrote(bytes);
            VarHandle.fullFence(); // the records must be visible before we read the peer's parked flag
            if (shared.getIntVolatile(peerParked) != 0)
            {
                ring();
            }
        }
    }

    @Override
    public MutableDirectBuffer claim(final int length)
    {
        claimedLength = length;
        claimed = super.claim(length);
        return claimed;
    }

    @Override
    public void commit(final java.nio.ByteBuffer[] data, final int count,
        final io.xio.engine.transport.SendCompletion completion)
    {
        if (count == 0 || !regions.commit(claimed, claimOffset(), claimedLength, data, count, completion))
        {
            super.commit(data, count, completion);
        }
    }

    /**
     * A ring write and a fence, no system call unless the peer is parked (then the doorbell it waits for anyway):
     * the peer can act on the frame (a credit) while this turn goes on reading. Waiting for the turn's end cost a
     * 64 B stream a third of its rate: a consumer that read the whole window in one turn granted credit only after
     * it, so producer and consumer took turns instead of overlapping.
     */
    @Override
    public void expedite()
    {
        flushNow();
    }

    /** Claims again for the frame {@link ShmShared} rewrites; the claim before it is dropped. */
    MutableDirectBuffer reclaim(final int length)
    {
        return super.claim(length);
    }

    /**
     * Commits the rewritten frame and hands it over at once: a reference is a few bytes for the ring, and the
     * peer can read the data in place while this turn goes on (a caller filling its next shared buffer would
     * otherwise hold the frame back for the whole copy).
     */
    void commitClaim()
    {
        super.commit();
        flushNow();
    }

    /** Writes a control record straight into our ring, ahead of frames not yet flushed; false when full. */
    boolean writeControl(final int type, final org.agrona.DirectBuffer buffer, final int length)
    {
        if (closed || !out.write(type, buffer, 0, length))
        {
            return false;
        }
        VarHandle.fullFence(); // the record must be visible before we read the peer's parked flag
        if (shared.getIntVolatile(peerParked) != 0)
        {
            ring();
        }
        return true;
    }

    void wakeup()
    {
        context.wakeup();
    }

    private void ring()
    {
        try
        {
            ring.clear();
            doorbell.write(ring); // a full socket buffer means the peer has rings pending already
        }
        catch (final IOException ex)
        {
            peerGone = "is gone: " + ex.getMessage(); // closed on the next poll, after draining its ring
        }
    }

    @Override
    protected long releasedPosition()
    {
        return written;
    }

    @Override
    protected void closeChannel()
    {
        regions.failPending();
        context.removePoller(this);
        if (key != null)
        {
            key.cancel();
        }
        try
        {
            doorbell.close();
        }
        catch (final IOException ignore)
        {
            // closing anyway
        }
        unmapIfClosed();
    }

    /** Unmaps once closed, but never under the ring's own read loop, which still writes its position. */
    private void unmapIfClosed()
    {
        if (!reading && !unmapped)
        {
            unmapped = true;
            IoUtil.unmap(mapping);
        }
    }

    @Override
    public String remoteAddress()
    {
        return remote;
    }

    @Override
    public io.xio.engine.PeerIdentity peerIdentity()
    {
        return new io.xio.engine.PeerIdentity(remote, java.util.List.of(), peerUser, null);
    }
}
