package io.xio.engine.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.memory.SharedMemory;
import io.xio.engine.transport.shm.ShmSharedProbe;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Fuzz target for a shm link's control records (docs/protocol.md §6.1.1: type 2 announces a region, type 3 releases
 * tokens) as a receiving {@code ShmShared} parses them. The input is a list of records, each {@code u8 type (mod 4),
 * u16 length, bytes}; a region announcement whose name is "@" names a real shared buffer file of 4096 bytes. Only a
 * {@link ProtocolViolationException} may escape (the connection closes: the rest is not fed), exactly when §6.1.1
 * says; mappings stay within 64 regions and 1 GiB; each of the 16 sends lent completes once, only on its release.
 * Inputs: {@code ShmControlFuzzTestInputs/records}; docs/fuzzing.md.
 */
class ShmControlFuzzTest
{
    static final int LENT = 16;
    static final int REGION_BYTES = 4096;
    private static final Path DIR;
    private static final String FILE;

    static
    {
        try
        {
            DIR = Files.createTempDirectory("xio-shm-fuzz");
            DIR.toFile().deleteOnExit();
            final SharedMemory.Region region = SharedMemory.allocate(DIR, REGION_BYTES);
            region.file().toFile().deleteOnExit();
            FILE = region.file().getFileName().toString();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    @FuzzTest
    void records(final byte[] input) throws IOException
    {
        final ShmSharedProbe probe = new ShmSharedProbe(DIR, LENT);
        final ByteBuffer in = ByteBuffer.wrap(input).order(ByteOrder.LITTLE_ENDIAN);
        final Set<Long> released = new HashSet<>();
        final Set<Integer> ids = new HashSet<>();
        while (in.remaining() >= 3)
        {
            final int type = in.get() & 3;
            final int length = Math.min(in.getShort() & 0xFFFF, in.remaining());
            byte[] record = new byte[length];
            in.get(record);
            if (type == 2 && length == 9 && record[8] == '@')
            {
                final byte[] name = FILE.getBytes(StandardCharsets.UTF_8);
                final byte[] real = new byte[8 + name.length];
                System.arraycopy(record, 0, real, 0, 8);
                System.arraycopy(name, 0, real, 8, name.length);
                record = real;
            }
            // somewhere inside a larger buffer: nothing around the record may be read
            final byte[] padded = new byte[record.length + 11];
            System.arraycopy(record, 0, padded, 3, record.length);
            final String expected = type == 3 ? releaseProblem(record, released) : type == 2 ?
                regionProblem(record, ids) : "unknown";
            final int regionsBefore = probe.regions();
            try
            {
                probe.control(type, new UnsafeBuffer(padded), 3, record.length);
            }
            catch (final ProtocolViolationException closed)
            {
                if (expected == null)
                {
                    fail("record type " + type + " of " + record.length + " bytes refused: " + closed.getMessage());
                }
                return;
            }
            assertThat(expected).as("record type %s of %s bytes accepted", type, record.length)
                .isNotEqualTo("unknown").isNotEqualTo("bad");
            if (type == 2 && expected == null)
            {
                assertThat(probe.regions()).isEqualTo(regionsBefore + 1);
            }
            assertThat(probe.regions()).isLessThanOrEqualTo(64);
            assertThat(probe.mappedBytes()).isLessThanOrEqualTo(1L << 30);
            assertThat(probe.completed()).isEqualTo(released.size());
        }
    }

    /** §6.1.1: {@code i64} tokens, each one sent and not released yet; "bad" when the record must close. */
    private static String releaseProblem(final byte[] record, final Set<Long> released)
    {
        if (record.length % 8 != 0)
        {
            return "bad";
        }
        final ByteBuffer tokens = ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN);
        while (tokens.hasRemaining())
        {
            final long token = tokens.getLong();
            if (token < 1 || token > LENT || !released.add(token))
            {
                return "bad"; // the ones before it completed
            }
        }
        return null;
    }

    /**
     * §6.1.1: {@code i32} id, {@code i32} length, a name; mapped only when the name is a shared buffer's, the file of
     * that length, the id new and at most 64 of them. Null when it is mapped, "bad" when it must close.
     */
    private static String regionProblem(final byte[] record, final Set<Integer> ids)
    {
        if (record.length < 9 || record.length > 8 + 255)
        {
            return "bad";
        }
        final ByteBuffer fields = ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN);
        final int id = fields.getInt(0);
        final int size = fields.getInt(4);
        final String name = new String(record, 8, record.length - 8, StandardCharsets.UTF_8);
        if (!name.equals(FILE) || size != REGION_BYTES || ids.size() >= 64 || !ids.add(id))
        {
            return "bad";
        }
        return null;
    }
}
