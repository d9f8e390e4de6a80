package io.xio.engine.transport.shm;

import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * Layout of one shm connection's file: a 4 KiB header (magic, version, ring capacity, each side's features, and
 * per side a "parked" flag and a "waiting for room" flag, each on its own cache line), then the client-to-server
 * ring, then the server-to-client ring (Agrona one-to-one ring buffers). Constants only.
 */
final class ShmLayout
{
    static final int MAGIC = 0x58494F53; // "XIOS"
    static final int VERSION = 1;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int CAPACITY_OFFSET = 8;
    /** What the client supports ({@link #FEATURE_SHARED}); zero from a client that predates the field. */
    static final int CLIENT_FEATURES_OFFSET = 12;
    /** What the server supports, written before its acknowledgement; zero from an older server. */
    static final int SERVER_FEATURES_OFFSET = 16;
    /** Shared-buffer references and the ring records that go with them. */
    static final int FEATURE_SHARED = 1;
    static final int CLIENT_PARKED = 128;
    static final int SERVER_PARKED = 256;
    static final int CLIENT_WAITING = 384;
    static final int SERVER_WAITING = 512;
    static final int HEADER_LENGTH = 4096;

    private ShmLayout()
    {
    }

    static int ringLength(final int capacity)
    {
        return capacity + RingBufferDescriptor.TRAILER_LENGTH;
    }

    static long fileLength(final int capacity)
    {
        return HEADER_LENGTH + 2L * ringLength(capacity);
    }

    static int clientToServerOffset()
    {
        return HEADER_LENGTH;
    }

    static int serverToClientOffset(final int capacity)
    {
        return HEADER_LENGTH + ringLength(capacity);
    }
}
