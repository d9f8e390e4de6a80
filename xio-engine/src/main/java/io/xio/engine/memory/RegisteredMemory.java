package io.xio.engine.memory;

import org.agrona.BufferUtil;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The application buffers passed to {@code XioEngine.registerMemory}: the rdma transport registers each with a
 * context's protection domain the first time data in it is exposed, and keeps that registration, instead of
 * registering and deregistering per transfer. Buffers stay referenced (and so mapped) until
 * {@code XioEngine.unregisterMemory}; each context drops its registration of a removed buffer on its next poll
 * ({@link #generation()} tells it to look). Thread-safe.
 */
public final class RegisteredMemory
{
    private static final ConcurrentSkipListMap<Long, ByteBuffer> REGIONS = new ConcurrentSkipListMap<>();
    private static final AtomicLong GENERATION = new AtomicLong();

    private RegisteredMemory()
    {
    }

    /**
     * Registers {@code buffer}; a buffer registered already stays as it was.
     *
     * @throws IllegalArgumentException when it is not a direct buffer
     */
    public static void add(final ByteBuffer buffer)
    {
        if (!buffer.isDirect())
        {
            throw new IllegalArgumentException("only direct buffers can be registered for zero-copy sends; " +
                "allocate with ByteBuffer.allocateDirect");
        }
        REGIONS.putIfAbsent(BufferUtil.address(buffer), buffer);
    }

    /**
     * Forgets {@code buffer}; false when it was not registered.
     *
     * @throws IllegalArgumentException when it is not a direct buffer
     */
    public static boolean remove(final ByteBuffer buffer)
    {
        if (!buffer.isDirect())
        {
            throw new IllegalArgumentException("only direct buffers are registered");
        }
        final long start = BufferUtil.address(buffer);
        final ByteBuffer registered = REGIONS.get(start);
        if (registered == null || registered.capacity() != buffer.capacity() || !REGIONS.remove(start, registered))
        {
            return false;
        }
        GENERATION.incrementAndGet();
        return true;
    }

    /** Changes whenever a buffer is removed: holders of registrations then check theirs with {@link #holds}. */
    public static long generation()
    {
        return GENERATION.get();
    }

    /** Whether a buffer of {@code length} bytes at {@code start} is (still) registered. */
    public static boolean holds(final long start, final int length)
    {
        final ByteBuffer registered = REGIONS.get(start);
        return registered != null && registered.capacity() == length;
    }

    /** The start of the registered buffer that holds all of {@code [address, address + length)}, or -1. */
    public static long regionOf(final long address, final int length)
    {
        final Map.Entry<Long, ByteBuffer> region = REGIONS.floorEntry(address);
        return region != null && address + length <= region.getKey() + region.getValue().capacity() ?
            region.getKey() : -1;
    }

    /** The capacity of the registered buffer starting at {@code start}. */
    public static int length(final long start)
    {
        return REGIONS.get(start).capacity();
    }
}
