package io.xio.engine.transport.stream;

import io.xio.engine.Limits;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.transport.LoopCounters;
import io.xio.engine.memory.BufferPool;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.transport.LinkHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FrameAssemblerTest
{
    private final BufferPool pool = new BufferPool("test");
    private final List<byte[]> delivered = new ArrayList<>();
    private final List<Slab> kept = new ArrayList<>();

    private final LinkHandler collector = new LinkHandler()
    {
        @Override
        public void onFrame(final Slab slab, final int offset, final int length)
        {
            final byte[] copy = new byte[length];
            slab.buffer().getBytes(offset, copy);
            delivered.add(copy);
            if (delivered.size() % 3 == 0)
            {
                kept.add(slab.retain()); // a message the application still holds
            }
        }

        @Override
        public void onWritable()
        {
        }

        @Override
        public void onClosed(final Throwable cause)
        {
        }
    };

    private static byte[] frame(final Random random, final int dataLength)
    {
        final int length = (int)Frame.frameLength(3, 1, dataLength);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length]);
        Frame.writeHeader(buffer, 0, length, FrameType.REQUEST, 0, 7, random.nextLong(), 3, 1, 0);
        buffer.putInt(Frame.HEADER_LENGTH, dataLength, Frame.ORDER);
        final byte[] body = new byte[3 + dataLength];
        random.nextBytes(body);
        buffer.putBytes(Frame.HEADER_LENGTH + 4, body);
        return buffer.byteArray();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 1000, 65536, 300_000})
    void cutsAnyChunkingOfTheStreamIntoTheSameFrames(final int maxChunk)
    {
        final Random random = new Random(maxChunk);
        final List<byte[]> frames = new ArrayList<>();
        final ByteArrayOutputStream stream = new ByteArrayOutputStream();
        final int[] sizes = {0, 1, 100, 65_536 - 40, 65_536, 70_000, 1 << 20, 5, 16 << 10};
        for (int round = 0; round < 3; round++)
        {
            for (final int size : sizes)
            {
                final byte[] frame = frame(random, size);
                frames.add(frame);
                stream.writeBytes(frame);
            }
        }
        final FrameAssembler assembler = new FrameAssembler(pool, Limits.DEFAULT, new LoopCounters());
        final ByteBuffer bytes = ByteBuffer.wrap(stream.toByteArray());
        while (bytes.hasRemaining())
        {
            final int chunk = 1 + random.nextInt(maxChunk);
            final ByteBuffer piece = bytes.slice(bytes.position(), Math.min(chunk, bytes.remaining()));
            bytes.position(bytes.position() + piece.remaining());
            while (piece.hasRemaining())
            {
                assembler.feed(piece, collector);
            }
        }
        assertThat(delivered).hasSameSizeAs(frames);
        for (int i = 0; i < frames.size(); i++)
        {
            assertThat(Arrays.equals(delivered.get(i), frames.get(i))).as("frame %d", i).isTrue();
        }
        kept.forEach(Slab::release);
        assembler.close();
        assertThat(pool.outstanding()).as("every slab back in the pool").isZero();
    }

    @Test
    void aHugeFrameGetsMemoryAsItsBytesArriveNotWhenAnnounced()
    {
        final FrameAssembler assembler = new FrameAssembler(pool, Limits.DEFAULT, new LoopCounters());
        final byte[] frame = frame(new Random(2), 20 << 20);
        final ByteBuffer header = ByteBuffer.wrap(frame, 0, 1024);
        assembler.feed(header, collector);
        assertThat(assembler.writable().capacity()).as("buffer for a 20 MiB frame, 1 KiB in")
            .isLessThanOrEqualTo(FrameAssembler.LARGE_START);
        final ByteBuffer rest = ByteBuffer.wrap(frame, 1024, frame.length - 1024);
        final Random random = new Random(3);
        while (rest.hasRemaining())
        {
            final ByteBuffer piece = rest.slice(rest.position(), Math.min(1 + random.nextInt(1 << 20),
                rest.remaining()));
            rest.position(rest.position() + piece.remaining());
            while (piece.hasRemaining())
            {
                assembler.feed(piece, collector);
            }
        }
        assertThat(delivered).hasSize(1);
        assertThat(Arrays.equals(delivered.get(0), frame)).isTrue();
        assembler.close();
        assertThat(pool.outstanding()).isZero();
    }

    @Test
    void rejectsAnOversizedFrameBeforeReadingItsBody()
    {
        final FrameAssembler assembler = new FrameAssembler(pool, Limits.DEFAULT.withMaxMessageBytes(1024),
            new LoopCounters());
        final byte[] frame = frame(new Random(1), 2000);
        final ByteBuffer header = ByteBuffer.wrap(frame, 0, Frame.HEADER_LENGTH);
        assertThatThrownBy(() -> assembler.feed(header, collector))
            .isInstanceOf(ProtocolViolationException.class)
            .hasMessageContaining("exceeds the limit of 1024 bytes");
        assembler.close();
        assertThat(delivered).isEmpty();
        assertThat(pool.outstanding()).isZero();
    }
}
