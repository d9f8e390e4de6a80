package io.xio.sample.api;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The checksum both sides compute over a value: the client checks what it read back against what it stored, the
 * server sums its values into {@link BlobStore.Summary#crc()}. Stateless; any thread.
 */
public final class Checksums
{
    private Checksums()
    {
    }

    /** CRC32C of a value's remaining bytes; the buffer's position is left as it was. */
    public static long crc(final ByteBuffer value)
    {
        final CRC32C crc = new CRC32C();
        crc.update(value.duplicate());
        return crc.getValue();
    }
}
