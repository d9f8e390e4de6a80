package io.xio.engine.transport.rdma;

import org.agrona.BufferUtil;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The application buffers passed to {@code XioEngine.register}: the rdma transport registers each with a
 * context's protection domain the first time data in it is exposed, and keeps that registration, instead of
 * registering and deregistering per transfer. Buffers stay referenced (and so mapped) for the life of the
 * process. Thread-safe.
 */
public final class RegisteredMemory
{
    private static final ConcurrentSkipListMap<Long, ByteBuffer> REGIONS = new ConcurrentSkipListMap<>();

    private RegisteredMemory()
    {
    }

    public static void add(final ByteBuffer buffer)
    {
        REGIONS.putIfAbsent(BufferUtil.address(buffer), buffer);
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
