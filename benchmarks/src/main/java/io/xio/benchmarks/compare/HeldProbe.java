package io.xio.benchmarks.compare;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/**
 * Lets a stream's producer see what its consumer took, so that it can tell how many messages it offered that the
 * consumer has not taken yet (at most the consumer's window, if flow control holds): 16 bytes both sides map, of a
 * file in {@code /dev/shm} when they are two JVMs on this machine, else of memory. The consumer writes how many
 * messages it took before it asks for more; the producer, after each message it offered, takes offered minus taken,
 * keeps the highest and writes it back, for the consumer to report. Outside xio's API and its wire: xio gives a
 * producer no count of what its consumer took.
 */
public final class HeldProbe implements AutoCloseable
{
    private static final int TAKEN = 0;
    private static final int PEAK = 8;
    private static final int LENGTH = 16;

    private final UnsafeBuffer buffer;
    private final Path file;
    private final boolean owner;
    /** The producer's: the highest seen. */
    private long peak;

    private HeldProbe(final ByteBuffer memory, final Path file, final boolean owner)
    {
        this.buffer = new UnsafeBuffer(memory);
        this.file = file;
        this.owner = owner;
    }

    /** A probe in this JVM's memory: producer and consumer in one JVM. */
    public static HeldProbe inMemory()
    {
        return new HeldProbe(ByteBuffer.allocateDirect(LENGTH), null, false);
    }

    /** A new probe file the other JVM {@link #open}s by {@link #path()}; the creator deletes it on close. */
    public static HeldProbe create()
    {
        final Path directory = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") :
            Path.of(System.getProperty("java.io.tmpdir"));
        final Path file = directory.resolve("xio-bench-held-" + UUID.randomUUID().toString().substring(0, 8));
        return new HeldProbe(map(file, true), file, true);
    }

    /** The probe file another JVM created. */
    public static HeldProbe open(final Path file)
    {
        return new HeldProbe(map(file, false), file, false);
    }

    private static ByteBuffer map(final Path file, final boolean create)
    {
        try (FileChannel channel = create ? FileChannel.open(file, StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ, StandardOpenOption.WRITE) : FileChannel.open(file, StandardOpenOption.READ,
            StandardOpenOption.WRITE))
        {
            return channel.map(FileChannel.MapMode.READ_WRITE, 0, LENGTH);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot map the probe file " + file, ex);
        }
    }

    /** Where the other JVM finds it; null for one in memory. */
    public Path path()
    {
        return file;
    }

    /** The consumer: it has taken {@code count} messages in all (before it asks for more). */
    public void taken(final long count)
    {
        buffer.putLongOrdered(TAKEN, count);
    }

    /** The consumer: the most the producer ever had offered and not yet taken. */
    public long peak()
    {
        return buffer.getLongVolatile(PEAK);
    }

    /** The producer: it has offered {@code count} messages in all. */
    public void offered(final long count)
    {
        final long held = count - buffer.getLongVolatile(TAKEN);
        if (held > peak)
        {
            peak = held;
            buffer.putLongOrdered(PEAK, held);
        }
    }

    @Override
    public void close()
    {
        if (owner)
        {
            try
            {
                Files.deleteIfExists(file);
            }
            catch (final IOException ignore)
            {
                // a file in /dev/shm or a temporary directory: cleaned up with them
            }
        }
    }
}
