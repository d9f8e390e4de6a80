package io.xio.engine.hostile;

import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameType;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A shm client written from {@code docs/protocol.md} (the shm section) alone: it hands a portal a ring file of its
 * own, then writes whatever records a test wants into the client-to-server ring and reads frames back, as an
 * attacker's tool would. Not thread-safe; one test thread drives it.
 */
final class ShmRawPeer implements AutoCloseable
{
    static final int DATA = 1;
    static final int REGION = 2;
    private static final int CAPACITY = 64 << 10;
    private static final int HEADER = 4096;

    private final SocketChannel doorbell;
    private final MappedByteBuffer mapping;
    private final OneToOneRingBuffer out;
    private final OneToOneRingBuffer in;
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private final ByteBuffer bell = ByteBuffer.allocate(64);

    ShmRawPeer(final Path directory, final String portal) throws IOException
    {
        final int ring = CAPACITY + RingBufferDescriptor.TRAILER_LENGTH;
        final Path file = directory.resolve("xio-" + portal + "-" + ProcessHandle.current().pid() + "-1-" +
            Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1) + ".ring");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE))
        {
            channel.write(ByteBuffer.allocate(HEADER + 2 * ring), 0);
            mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, HEADER + 2 * ring);
        }
        final UnsafeBuffer header = new UnsafeBuffer(mapping);
        header.putInt(8, CAPACITY);
        header.putInt(4, 1);
        header.putIntVolatile(0, 0x58494F53);
        out = new OneToOneRingBuffer(new UnsafeBuffer(mapping, HEADER, ring));
        in = new OneToOneRingBuffer(new UnsafeBuffer(mapping, HEADER + ring, ring));
        doorbell = SocketChannel.open(StandardProtocolFamily.UNIX);
        try
        {
            doorbell.connect(UnixDomainSocketAddress.of(directory.resolve("xio-" + portal).resolve("portal.sock")));
            final byte[] name = file.getFileName().toString().getBytes(StandardCharsets.UTF_8);
            doorbell.write(ByteBuffer.allocate(2 + name.length).putShort((short)name.length).put(name).flip());
            final ByteBuffer ack = ByteBuffer.allocate(1);
            doorbell.read(ack);
            if (ack.get(0) != 1)
            {
                throw new IOException("the portal refused the ring");
            }
            doorbell.configureBlocking(false);
        }
        finally
        {
            Files.deleteIfExists(file);
        }
    }

    /** Writes one record of {@code type} into the ring and rings the doorbell. */
    void record(final int type, final byte[] bytes) throws IOException
    {
        if (!out.write(type, new UnsafeBuffer(bytes), 0, bytes.length))
        {
            throw new IOException("ring full");
        }
        doorbell.write(ByteBuffer.wrap(new byte[] {1}));
    }

    void send(final byte[] frame) throws IOException
    {
        record(DATA, frame);
    }

    /**
     * Writes one frame as soon as the ring has room, reading nothing of ours meanwhile (a peer that stopped
     * reading): false once the portal closed the connection instead.
     */
    boolean sendWhenRoom(final byte[] frame) throws IOException
    {
        final UnsafeBuffer bytes = new UnsafeBuffer(frame);
        while (!out.write(DATA, bytes, 0, frame.length))
        {
            if (gone())
            {
                return false;
            }
            Thread.onSpinWait();
        }
        try
        {
            doorbell.write(ByteBuffer.wrap(new byte[] {1}));
        }
        catch (final IOException closed)
        {
            return false;
        }
        return true;
    }

    /** Announces {@code file} as shared region {@code id} of {@code size} bytes. */
    void announce(final int id, final int size, final String file) throws IOException
    {
        final byte[] name = file.getBytes(StandardCharsets.UTF_8);
        record(REGION, ByteBuffer.allocate(8 + name.length).order(ByteOrder.LITTLE_ENDIAN).putInt(id).putInt(size)
            .put(name).array());
    }

    /**
     * A REQUEST whose one data segment of {@code length} bytes is a reference to {@code offset} in region {@code
     * region} (flag DATA_SHARED; the data area: i32 region, i32 0, i64 token, i64 offset).
     */
    static byte[] sharedRequest(final long sessionId, final long id, final int region, final long offset,
        final int length)
    {
        final int frameLength = Frame.HEADER_LENGTH + 4 + 16 + 8;
        return ByteBuffer.allocate(frameLength).order(ByteOrder.LITTLE_ENDIAN).putInt(frameLength).put((byte)2)
            .put((byte)FrameType.REQUEST).putShort((short)(1 << 7)).putLong(sessionId).putLong(id).putInt(0)
            .putShort((short)1).putShort((short)0).putInt(length).putInt(region).putInt(0).putLong(id)
            .putLong(offset).array();
    }

    /** The type and session of the next whole frame within {@code timeout} (KEEPALIVEs skipped), or -1 for none. */
    long[] read(final Duration timeout) throws IOException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline)
        {
            in.read((type, buffer, index, length) ->
            {
                final byte[] bytes = new byte[length];
                buffer.getBytes(index, bytes);
                received.writeBytes(bytes);
            });
            final byte[] all = received.toByteArray();
            if (all.length >= Frame.HEADER_LENGTH)
            {
                final ByteBuffer frame = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
                final int length = frame.getInt(0);
                if (all.length >= length)
                {
                    received.reset();
                    received.write(all, length, all.length - length);
                    if (all[5] != FrameType.KEEPALIVE)
                    {
                        return new long[] {all[5], frame.getLong(8)};
                    }
                    continue;
                }
            }
            if (gone())
            {
                return null;
            }
            Thread.onSpinWait();
        }
        return new long[] {-1, 0};
    }

    /** Sets a session up for {@code resource}: its id. */
    long setUp(final String resource) throws IOException
    {
        send(RawPeer.setup(1, resource));
        final long[] accept = read(Duration.ofSeconds(10));
        if (accept == null || accept[0] != FrameType.SETUP_ACCEPT)
        {
            throw new AssertionError("expected SETUP_ACCEPT, got " + (accept == null ? "a close" : accept[0]));
        }
        return accept[1];
    }

    private boolean gone() throws IOException
    {
        try
        {
            bell.clear();
            return doorbell.read(bell) < 0;
        }
        catch (final IOException reset)
        {
            return true;
        }
    }

    /** Whether the server closes the connection within {@code timeout}: its end of the doorbell socket. */
    boolean closedWithin(final Duration timeout) throws IOException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline)
        {
            if (read(Duration.ofMillis(10)) == null)
            {
                return true;
            }
        }
        return false;
    }

    /** Whether the server closes the doorbell socket within {@code timeout}, reading nothing of the ring meanwhile. */
    boolean goneWithin(final Duration timeout) throws IOException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline)
        {
            if (gone())
            {
                return true;
            }
            Thread.onSpinWait();
        }
        return false;
    }

    @Override
    public void close() throws IOException
    {
        doorbell.close();
        IoUtil.unmap(mapping);
    }
}
