package io.xio.engine.memory;

import org.agrona.BufferUtil;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * Buffers from {@code XioEngine.allocateShared}: direct buffers mapped from a file in the shm directory, which a shm
 * link names to its peer once so that frames can refer to data in them instead of carrying it. The file lives until
 * {@link #free} (the engine frees its own when it closes); the mapping lives as long as the buffer is referenced.
 * Thread-safe.
 */
public final class SharedMemory
{
    /** The file names a peer may announce: nothing else in the directory is mapped for it. */
    public static final Pattern FILE_NAME = Pattern.compile("xio-shared-\\d+-\\d+-[0-9a-f]{16}\\.buf");

    private static final ConcurrentSkipListMap<Long, Region> REGIONS = new ConcurrentSkipListMap<>();
    private static final AtomicInteger IDS = new AtomicInteger();

    private SharedMemory()
    {
    }

    /**
     * One shared buffer: its id (unique in this process), file and mapping.
     *
     * @param id the region's id on the wire
     * @param file where it lives until freed
     * @param buffer the whole mapping
     * @param address where the mapping starts
     */
    public record Region(int id, Path file, ByteBuffer buffer, long address)
    {
        public int capacity()
        {
            return buffer.capacity();
        }
    }

    /** {@code /dev/shm}, or the temp directory where there is none: the shm transport's default too. */
    public static Path defaultDirectory()
    {
        final Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    }

    /**
     * A new zeroed shared buffer of {@code bytes} in {@code directory}, its pages reserved now (a full tmpfs fails);
     * files left there by dead processes of this user go first.
     */
    public static Region allocate(final Path directory, final int bytes)
    {
        if (bytes <= 0)
        {
            throw new IllegalArgumentException("a shared buffer needs at least one byte, asked for " + bytes);
        }
        final int id = IDS.incrementAndGet();
        final Path file = directory.resolve(String.format("xio-shared-%d-%d-%016x.buf", ProcessHandle.current().pid(),
            id, ThreadLocalRandom.current().nextLong()));
        try
        {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            removeStale(directory, Files.getOwner(file, LinkOption.NOFOLLOW_LINKS)); // rare next to zeroing the pages
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS))
            {
                final ByteBuffer zeros = ByteBuffer.allocateDirect(Math.min(bytes, 1 << 20));
                for (long at = 0; at < bytes; at += zeros.capacity())
                {
                    zeros.clear().limit((int)Math.min(zeros.capacity(), bytes - at));
                    while (zeros.hasRemaining())
                    {
                        channel.write(zeros, at + zeros.position());
                    }
                }
                final MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, bytes);
                final Region region = new Region(id, file, mapping, BufferUtil.address(mapping));
                REGIONS.put(region.address(), region);
                return region;
            }
        }
        catch (final IOException ex)
        {
            deleteQuietly(file);
            throw new UncheckedIOException("cannot allocate a shared buffer of " + bytes + " bytes in " + directory +
                ": " + ex.getMessage(), ex);
        }
        catch (final RuntimeException ex)
        {
            deleteQuietly(file);
            throw ex;
        }
    }

    /** Forgets the shared buffer {@code buffer} and deletes its file; null when it was not one (or freed already). */
    public static Region free(final ByteBuffer buffer)
    {
        if (!buffer.isDirect())
        {
            return null;
        }
        final Region region = REGIONS.get(BufferUtil.address(buffer));
        if (region == null || region.capacity() != buffer.capacity() || !REGIONS.remove(region.address(), region))
        {
            return null;
        }
        deleteQuietly(region.file());
        return region;
    }

    /** The live shared buffer holding all of {@code [address, address + length)}, or null. */
    public static Region regionOf(final long address, final int length)
    {
        if (REGIONS.isEmpty())
        {
            return null;
        }
        final Map.Entry<Long, Region> entry = REGIONS.floorEntry(address);
        return entry != null && address + length <= entry.getKey() + entry.getValue().capacity() ?
            entry.getValue() : null;
    }

    /** Deletes the shared-buffer files of this user's processes that are gone (killed before their engine closed). */
    private static void removeStale(final Path directory, final java.nio.file.attribute.UserPrincipal me)
    {
        try (java.nio.file.DirectoryStream<Path> files = Files.newDirectoryStream(directory, "xio-shared-*.buf"))
        {
            for (final Path file : files)
            {
                final String name = file.getFileName().toString();
                if (!FILE_NAME.matcher(name).matches())
                {
                    continue;
                }
                final long pid = Long.parseLong(name.substring("xio-shared-".length(), name.indexOf('-', 11)));
                if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) &&
                    me.equals(Files.getOwner(file, LinkOption.NOFOLLOW_LINKS)))
                {
                    deleteQuietly(file);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // best effort: leftovers stay for the next process to sweep
        }
    }

    private static void deleteQuietly(final Path file)
    {
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ignore)
        {
            // nothing more to do: a stale file is the directory's owner's to remove
        }
    }
}
