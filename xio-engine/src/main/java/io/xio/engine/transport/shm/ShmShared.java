package io.xio.engine.transport.shm;

import io.xio.engine.ProtocolViolationException;
import io.xio.engine.memory.SharedMemory;
import io.xio.engine.memory.SharedPlacement;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.transport.LinkHandler;
import io.xio.engine.transport.SendCompletion;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.IntHashSet;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayDeque;

/**
 * A shm link's shared-memory data references ({@code XioEngine.allocateShared}). Sending, a frame whose data lies in
 * one shared buffer carries (region id, token, offsets) instead of the bytes; the region's file is named to the
 * peer once per connection with a {@link #REGION} ring record, and the send completes when the peer's {@link
 * #RELEASE} record says it closed the message. Receiving, it maps what the peer names (bounded in count and bytes,
 * files of the peer's user in the shm directory only), checks every reference against the mapping and hands the
 * message a read-only view; anything out of line closes the connection. A sender names no more regions than the
 * receiver maps ({@link #MAX_REGIONS}, {@link #MAX_BYTES}): data in any further one goes by copy. Owner context
 * thread only, except {@link #release}.
 */
final class ShmShared implements LinkHandler, SharedPlacement.Releaser, ControlledMessageHandler
{
    /** Ring record: i32 region id, i32 length, then the file's name (UTF-8). */
    static final int REGION = 2;
    /** Ring record: i64 tokens of references the receiver is done with. */
    static final int RELEASE = 3;
    /** Regions a peer may make us map per connection. */
    static final int MAX_REGIONS = 64;
    /** Bytes a peer may make us map per connection. */
    static final long MAX_BYTES = 1L << 30;

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ShmShared.class);
    private static final SendCompletion NO_COMPLETION = written -> { };
    private static final int RELEASES_PER_RECORD = 64;
    /** Releases kept beyond the full release ring: more means the peer reads nothing of its ring. */
    static final int MAX_OVERFLOW = 256;

    private final ShmLink link;
    private final Path directory;
    /** Whose files a peer may name; null when its user is unknown (then it may name none). */
    private final UserPrincipal peerUser;
    /**
     * Whether we send references at all: only to a peer that supports them (the ring header's features) and is of our
     * own user, who can open our 0600 files.
     */
    private final boolean send;
    private final Frame frame = new Frame();
    private LinkHandler handler;

    // Receiving
    private final Int2ObjectHashMap<ByteBuffer> mapped = new Int2ObjectHashMap<>();
    /** The same mappings as {@link #mapped}, for {@code Message.segmentBuffer}. */
    private final Int2ObjectHashMap<UnsafeBuffer> mappedBuffers = new Int2ObjectHashMap<>();
    private long mappedBytes;
    private final SharedPlacement placement = new SharedPlacement(this);
    private final ManyToOneRingBuffer released = new ManyToOneRingBuffer(new UnsafeBuffer(
        BufferUtil.allocateDirectAligned((64 << 10) + RingBufferDescriptor.TRAILER_LENGTH, 64)));
    private final ArrayDeque<Long> overflow = new ArrayDeque<>();
    private final UnsafeBuffer releaseRecord = new UnsafeBuffer(new byte[8 * RELEASES_PER_RECORD]);
    private int releaseCount;
    private volatile boolean releasesQueued;
    /** More releases than the ring and the overflow hold: the peer does not read; the connection is to close. */
    private volatile boolean releasesStuck;
    private Thread owner;

    // Sending
    private final IntHashSet announced = new IntHashSet();
    /** The capacity of the regions in {@link #announced}: the peer maps no more than {@link #MAX_BYTES}. */
    private long announcedBytes;
    /** Whether a region was sent by copy for the peer's mapping limits: said once a connection. */
    private boolean capReported;
    private final Long2ObjectHashMap<SendCompletion> pending = new Long2ObjectHashMap<>();
    private long nextToken;
    /** No token below it is pending: where {@link #lentSince} looks for the oldest one. */
    private long oldestToken = 1;
    private long watchedToken;
    private long watchedSince;
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[0]);
    private final UnsafeBuffer announcement = new UnsafeBuffer(new byte[8 + 256]);

    /** @param ownUser our user, or null when the peer does not take references */
    ShmShared(final ShmLink link, final Path directory, final UserPrincipal peerUser, final UserPrincipal ownUser)
    {
        this.link = link;
        this.directory = directory;
        this.peerUser = peerUser;
        this.send = peerUser != null && peerUser.equals(ownUser);
    }

    LinkHandler wrap(final LinkHandler engine)
    {
        this.handler = engine;
        this.owner = Thread.currentThread();
        return this;
    }

    // ---------------------------------------------------------------- receiving

    @Override
    public void onFrame(final Slab slab, final int offset, final int length)
    {
        frame.wrap(slab.buffer(), offset);
        if ((frame.flags() & FrameFlags.DATA_SHARED) == 0)
        {
            handler.onFrame(slab, offset, length);
            return;
        }
        final UnsafeBuffer buffer = slab.buffer();
        final int body = frame.dataOffset();
        final int id = buffer.getInt(body, Frame.ORDER);
        final long reference = buffer.getLong(body + 8, Frame.ORDER);
        final ByteBuffer view = mapped.get(id);
        if (view == null)
        {
            throw new ProtocolViolationException("shared-memory reference to region " + id + ", which the peer " +
                "never announced");
        }
        for (int i = 0; i < frame.segmentCount(); i++)
        {
            final long at = buffer.getLong(body + FrameFlags.SHARED_BODY_LENGTH + 8 * i, Frame.ORDER);
            final int segment = frame.segmentLength(i);
            if (at < 0 || at + segment > view.capacity())
            {
                throw new ProtocolViolationException("shared-memory reference [" + at + ", " + (at + segment) +
                    ") outside region " + id + " of " + view.capacity() + " bytes");
            }
        }
        placement.offer(view, mappedBuffers.get(id), reference);
        try
        {
            handler.onFrame(slab, offset, length);
        }
        finally
        {
            if (!placement.withdraw())
            {
                release(reference); // dropped without a message: the sender may have its bytes back now
            }
        }
    }

    @Override
    public void onWritable()
    {
        handler.onWritable();
    }

    @Override
    public void onClosed(final Throwable cause)
    {
        handler.onClosed(cause);
    }

    /** A control record from the peer's ring. */
    void onControl(final int type, final DirectBuffer buffer, final int index, final int length)
    {
        if (type == REGION)
        {
            onRegion(buffer, index, length);
        }
        else if (type == RELEASE && length % 8 == 0)
        {
            for (int at = index; at < index + length; at += 8)
            {
                final SendCompletion completion = pending.remove(buffer.getLong(at, Frame.ORDER));
                if (completion == null)
                {
                    throw new ProtocolViolationException("shm peer released a shared-memory reference it was " +
                        "never sent");
                }
                completion.onSendComplete(true);
            }
        }
        else
        {
            throw new ProtocolViolationException("unknown shm ring record type " + type + " of " + length + " bytes");
        }
    }

    private void onRegion(final DirectBuffer buffer, final int index, final int length)
    {
        if (length < 9 || length > 8 + 255)
        {
            throw new ProtocolViolationException("malformed shared-memory region announcement of " + length +
                " bytes");
        }
        final int id = buffer.getInt(index, Frame.ORDER);
        final int size = buffer.getInt(index + 4, Frame.ORDER);
        final String name = buffer.getStringWithoutLengthUtf8(index + 8, length - 8);
        if (mapped.containsKey(id))
        {
            throw new ProtocolViolationException("shared-memory region " + id + " announced twice");
        }
        if (mapped.size() >= MAX_REGIONS)
        {
            throw new ProtocolViolationException("shm peer announced more than " + MAX_REGIONS +
                " shared-memory regions");
        }
        if (size <= 0 || mappedBytes + size > MAX_BYTES)
        {
            throw new ProtocolViolationException("shared-memory region of " + size + " bytes would take this " +
                "connection's mappings over " + MAX_BYTES + " bytes");
        }
        if (peerUser == null || !SharedMemory.FILE_NAME.matcher(name).matches())
        {
            throw new ProtocolViolationException("shm peer named '" + name + "' as a shared-memory region");
        }
        final Path file = directory.resolve(name);
        try
        {
            final PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class,
                LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isRegularFile() || !attributes.owner().equals(peerUser) || attributes.size() != size)
            {
                throw new ProtocolViolationException("shared-memory region " + file + " is not a file of " + size +
                    " bytes of the peer " + peerUser.getName());
            }
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))
            {
                if (channel.size() != size)
                {
                    throw new ProtocolViolationException("shared-memory region " + file + " changed size");
                }
                // Never unmapped by us: messages' views may outlive the link; the GC unmaps it after them.
                final MappedByteBuffer view = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
                mapped.put(id, view);
                mappedBuffers.put(id, new UnsafeBuffer(view));
                mappedBytes += size;
            }
        }
        catch (final IOException ex)
        {
            throw new ProtocolViolationException("cannot map the shared-memory region " + file + ": " + ex);
        }
    }

    /** The receiver closed a message whose data lay in the peer's region. Any thread. */
    @Override
    public void release(final long reference)
    {
        // claimed, not written from a shared scratch buffer: closes on several threads at once must not mix tokens
        final int at = released.tryClaim(1, 8);
        if (at > 0)
        {
            released.buffer().putLong(at, reference, Frame.ORDER);
            released.commit(at);
        }
        else
        {
            synchronized (overflow)
            {
                if (overflow.size() < MAX_OVERFLOW)
                {
                    overflow.add(reference);
                }
                else
                {
                    releasesStuck = true; // dropped: the connection closes, which frees the peer's sends anyway
                }
            }
        }
        releasesQueued = true;
        if (Thread.currentThread() != owner)
        {
            link.wakeup();
        }
    }

    boolean hasReleases()
    {
        return releasesQueued;
    }

    /** Whether the peer left more releases unread than we keep: the connection's sweep closes it then. */
    boolean releasesStuck()
    {
        return releasesStuck;
    }

    /** Tells the peer which references we are done with; what does not fit in the ring now waits for the next turn. */
    int flushReleases()
    {
        if (!releasesQueued)
        {
            return 0;
        }
        releasesQueued = false;
        int work = released.controlledRead(this);
        if (released.size() > 0)
        {
            releasesQueued = true; // stopped at the ring's end or at a full peer ring
        }
        synchronized (overflow)
        {
            while (!overflow.isEmpty() && releaseCount < RELEASES_PER_RECORD)
            {
                releaseRecord.putLong(8 * releaseCount++, overflow.poll(), Frame.ORDER);
                work++;
            }
            if (!overflow.isEmpty())
            {
                releasesQueued = true;
            }
        }
        if (releaseCount > 0 && !link.writeControl(RELEASE, releaseRecord, 8 * releaseCount))
        {
            releasesQueued = true; // the ring is full: keep them for the next turn
            return work;
        }
        releaseCount = 0;
        return work;
    }

    @Override
    public Action onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (releaseCount == RELEASES_PER_RECORD)
        {
            if (!link.writeControl(RELEASE, releaseRecord, 8 * releaseCount))
            {
                releasesQueued = true; // the peer's ring is full: the rest stays in ours
                return Action.ABORT;
            }
            releaseCount = 0;
        }
        releaseRecord.putLong(8 * releaseCount++, buffer.getLong(index, Frame.ORDER), Frame.ORDER);
        return Action.CONTINUE;
    }

    // ---------------------------------------------------------------- sending

    /**
     * Sends the claimed frame ({@code claimLength} bytes at {@code claimOffset} of {@code claimed}) with a reference
     * to {@code data} instead of the bytes, when all of it lies in one shared buffer.
     *
     * @return false when it does not (or the peer cannot be told of the region now): send by copy then
     */
    boolean commit(final MutableDirectBuffer claimed, final int claimOffset, final int claimLength,
        final ByteBuffer[] data, final int count, final SendCompletion completion)
    {
        if (!send)
        {
            return false;
        }
        SharedMemory.Region region = null;
        for (int i = 0; i < count; i++)
        {
            final ByteBuffer segment = data[i];
            if (!segment.isDirect())
            {
                return false;
            }
            final SharedMemory.Region in = SharedMemory.regionOf(BufferUtil.address(segment) + segment.position(),
                segment.remaining());
            if (in == null || region != null && in != region)
            {
                return false;
            }
            region = in;
        }
        if (region == null || !announced.contains(region.id()) && !announce(region))
        {
            return false;
        }
        final int bodyLength = FrameFlags.SHARED_BODY_LENGTH + 8 * count;
        if (scratch.capacity() < claimLength)
        {
            scratch.wrap(new byte[Math.max(claimLength, 256)]);
        }
        scratch.putBytes(0, claimed, claimOffset, claimLength);
        final MutableDirectBuffer buffer = link.reclaim(claimLength + bodyLength);
        if (buffer == null)
        {
            return false;
        }
        final int at = link.claimOffset();
        buffer.putBytes(at, scratch, 0, claimLength);
        buffer.putInt(at + Frame.LENGTH_OFFSET, claimLength + bodyLength, Frame.ORDER);
        final int flags = buffer.getShort(at + Frame.FLAGS_OFFSET, Frame.ORDER) & 0xFFFF;
        buffer.putShort(at + Frame.FLAGS_OFFSET, (short)(flags | FrameFlags.DATA_SHARED), Frame.ORDER);
        final long reference = ++nextToken;
        int body = at + claimLength;
        buffer.putInt(body, region.id(), Frame.ORDER);
        buffer.putInt(body + 4, 0, Frame.ORDER);
        buffer.putLong(body + 8, reference, Frame.ORDER);
        body += FrameFlags.SHARED_BODY_LENGTH;
        for (int i = 0; i < count; i++)
        {
            buffer.putLong(body + 8 * i, BufferUtil.address(data[i]) + data[i].position() - region.address(),
                Frame.ORDER);
        }
        pending.put(reference, completion == null ? NO_COMPLETION : completion);
        link.commitClaim();
        return true;
    }

    /**
     * Names the region's file to the peer, ahead of any frame that refers to it (one ring, in order); not one the
     * peer would refuse to map (it closes the connection then): region ids only grow, and a peer never unmaps.
     */
    private boolean announce(final SharedMemory.Region region)
    {
        if (announced.size() >= MAX_REGIONS || announcedBytes + region.capacity() > MAX_BYTES)
        {
            if (!capReported)
            {
                capReported = true;
                LOG.info("shm connection to {} named {} shared-memory regions of {} bytes, as many as a peer maps: " +
                    "data in any other shared buffer goes by copy on it", link.remoteAddress(), announced.size(),
                    announcedBytes);
            }
            return false;
        }
        final byte[] name = region.file().getFileName().toString().getBytes(StandardCharsets.UTF_8);
        announcement.putInt(0, region.id(), Frame.ORDER);
        announcement.putInt(4, region.capacity(), Frame.ORDER);
        announcement.putBytes(8, name);
        if (!link.writeControl(REGION, announcement, 8 + name.length))
        {
            return false;
        }
        announced.add(region.id());
        announcedBytes += region.capacity();
        return true;
    }

    /**
     * Since when the oldest pending reference has been lent, as first seen by these calls (the sweep's): tokens go
     * out in order, so the oldest is the smallest still pending. 0 when none.
     */
    long lentSince(final long now)
    {
        while (oldestToken <= nextToken && !pending.containsKey(oldestToken))
        {
            oldestToken++;
        }
        if (oldestToken > nextToken)
        {
            return 0;
        }
        if (watchedToken != oldestToken)
        {
            watchedToken = oldestToken;
            watchedSince = now;
        }
        return watchedSince;
    }

    /** For tests: {@code token} as if it had been sent. */
    void pendingForTest(final long token, final SendCompletion completion)
    {
        pending.put(token, completion);
        nextToken = Math.max(nextToken, token);
    }

    int mappedRegions()
    {
        return mapped.size();
    }

    long mappedBytes()
    {
        return mappedBytes;
    }

    /** The link closed: nothing more will be released; the senders hear so. */
    void failPending()
    {
        if (pending.isEmpty())
        {
            return;
        }
        final SendCompletion[] left = pending.values().toArray(new SendCompletion[0]);
        pending.clear();
        for (final SendCompletion completion : left)
        {
            try
            {
                completion.onSendComplete(false);
            }
            catch (final RuntimeException ex)
            {
                LOG.warn("send completion failed", ex);
            }
        }
    }
}
