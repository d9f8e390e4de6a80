package io.xio.engine.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.xio.engine.ConnectionException;
import io.xio.engine.Limits;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.memory.BufferPool;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;
import io.xio.engine.transport.LinkHandler;
import io.xio.engine.transport.LoopCounters;
import io.xio.engine.transport.stream.FrameAssembler;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Fuzz target for {@link FrameAssembler}: arbitrary byte streams in arbitrary chunkings, through each of the
 * ways transports feed it, with an application that holds on to messages or ends the link from inside a
 * delivery. The oracle is the stream itself, cut with {@link Frame}'s checks: after every chunk the assembler
 * must have delivered exactly the whole frames the fed bytes hold, each the stream's own bytes and each passing
 * the checks, or have thrown the {@link ProtocolViolationException} the first bad frame earns as soon as its
 * header (or, for its body, its last byte) is in; a {@link ConnectionException} (no memory) is the only other
 * exception allowed. It must never hold a buffer larger than {@value #FIRST_LARGE} bytes or four times the bytes
 * of the frame it is waiting for, nor keep pooled slabs beyond those the application holds and its own two,
 * and once closed every slab is back in the pool.
 *
 * <p>The input is a small program so that a few bytes can make a stream of megabytes (large frames, frames
 * across the 64 KiB receive slabs). Each command is one byte {@code c}, its kind in {@code c & 3}, an
 * argument {@code a = c >>> 2}:
 * <ul>
 *   <li>0: the next {@code a + 1} input bytes are the next chunk of the stream;</li>
 *   <li>1: a little-endian u16 {@code n}, then the next {@code n} input bytes are the next chunk;</li>
 *   <li>2: a u8 {@code b}: the last chunk again, {@code (b + 1) << min(a, 24)} times over, fed in pieces of the
 *       current repeat size (the stream stops at {@value #STREAM_CAP} bytes, {@value #LARGE_STREAM_CAP} in
 *       {@link #largeFrames});</li>
 *   <li>3: settings: {@code a & 3} the way bytes go in (0 {@code feed(ByteBuffer)} as local links do, 1
 *       {@code feed(DirectBuffer, ...)} as shm does, 2 {@code writable()} and {@code received} as tcp does;
 *       3: the application ends the link during the next delivery, by closing it if {@code a & 16} is clear,
 *       else by throwing), {@code a & 4} toggles holding every message delivered, {@code a & 8} releases the
 *       messages held, {@code (a >>> 4) & 3} picks the repeat size: 61, 4093, 65533 or 1 MiB.</li>
 * </ul>
 * {@link SeedCorpus} writes the committed seeds in this form; inputs in {@code FrameAssemblerFuzzTestInputs/stream}
 * and {@code .../largeFrames}; docs/fuzzing.md.
 */
class FrameAssemblerFuzzTest
{
    /** Stream bytes per input of {@link #stream}: four receive slabs and more, fast enough for millions of runs. */
    static final int STREAM_CAP = 192 << 10;
    /** Stream bytes per input of {@link #largeFrames}: past the first large buffer, so that it must grow. */
    static final int LARGE_STREAM_CAP = 12 << 20;
    /** The most a frame's announcement may buy before its bytes arrive (docs/protocol.md §6: 4 MiB). */
    static final int FIRST_LARGE = 4 << 20;
    private static final int[] REPEAT_PIECES = {61, 4093, 65533, 1 << 20};
    /** One pool for the whole run, as a context has: it keeps idle slabs, so runs do not allocate afresh. */
    private static final BufferPool POOL = new BufferPool("fuzz");
    /** The stream's bytes, kept from run to run: zeroing a fresh array each time would cost more than the run. */
    private static byte[] streamSpace = new byte[4096];

    @FuzzTest
    void stream(final byte[] input)
    {
        new Run(input, STREAM_CAP).play();
    }

    /** The same with streams of up to {@value #LARGE_STREAM_CAP} bytes: slower, for frames beyond 4 MiB. */
    @FuzzTest
    void largeFrames(final byte[] input)
    {
        new Run(input, LARGE_STREAM_CAP).play();
    }

    /** How a run ended: frames delivered, their bytes, and the violation or other end, if any. */
    record Outcome(int frames, long bytes, String end)
    {
    }

    /** One input's stream, the assembler it goes into and what the application did with the frames. */
    static final class Run implements LinkHandler
    {
        private final byte[] program;
        private final int cap;
        private final long baseline = POOL.outstanding();
        private final FrameAssembler assembler = new FrameAssembler(POOL, Limits.DEFAULT, new LoopCounters());
        private final Frame frame = new Frame();
        private final List<Slab> held = new ArrayList<>();
        private RuntimeException thrownByApplication; // made only when needed: a stack trace costs a run's time
        private byte[] stream = streamSpace;
        private UnsafeBuffer streamBuffer = new UnsafeBuffer(stream);
        private int streamLength;
        private int delivered;
        private int frames;
        private String end;
        private int pc;
        private int style;
        private int endLinkAt = -1;
        private boolean hold;
        private int repeatPiece = REPEAT_PIECES[0];
        private int lastChunkAt;
        private int lastChunkLength;
        private boolean ended;
        private Slab lastHeld;
        private int distinctHeld;
        private byte[] scratch = new byte[4096];

        Run(final byte[] program, final int cap)
        {
            this.program = program;
            this.cap = cap;
        }

        Outcome play()
        {
            try
            {
                while (pc < program.length && !ended && streamLength < cap)
                {
                    step(program[pc++] & 0xFF);
                }
            }
            finally
            {
                held.forEach(Slab::release);
                held.clear();
                assembler.close();
            }
            assertThat(POOL.outstanding()).as("pooled slabs not given back").isEqualTo(baseline);
            return new Outcome(frames, delivered, end);
        }

        private void step(final int command)
        {
            final int arg = command >>> 2;
            switch (command & 3)
            {
                case 0 -> chunk(Math.min(arg + 1, program.length - pc));
                case 1 ->
                {
                    final int n = pc + 1 < program.length ? (program[pc] & 0xFF) | (program[pc + 1] & 0xFF) << 8 : 0;
                    pc = Math.min(pc + 2, program.length);
                    chunk(Math.min(n, program.length - pc));
                }
                case 2 ->
                {
                    final int times = pc < program.length ? (program[pc++] & 0xFF) + 1 : 1;
                    repeat((long)times << Math.min(arg, 24));
                }
                default -> settings(arg);
            }
        }

        private void settings(final int arg)
        {
            if ((arg & 3) == 3)
            {
                endLinkAt = (arg & 16) == 0 ? 0 : 1;
            }
            else
            {
                style = arg & 3;
                repeatPiece = REPEAT_PIECES[(arg >>> 4) & 3];
            }
            if ((arg & 4) != 0)
            {
                hold = !hold;
            }
            if ((arg & 8) != 0)
            {
                held.forEach(Slab::release);
                held.clear();
                lastHeld = null;
                distinctHeld = 0;
            }
        }

        private void chunk(final int n)
        {
            final int at = append(program, pc, n);
            pc += n;
            lastChunkAt = at;
            lastChunkLength = n;
            feed(at, streamLength - at);
        }

        private void repeat(final long times)
        {
            if (lastChunkLength == 0)
            {
                return;
            }
            final long total = Math.min(times * lastChunkLength, cap - streamLength);
            final byte[] pattern = Arrays.copyOfRange(stream, lastChunkAt, lastChunkAt + lastChunkLength);
            for (long done = 0; done < total && !ended; )
            {
                final int piece = (int)Math.min(repeatPiece, total - done);
                final int at = streamLength;
                ensure(at + piece);
                int phase = (int)(done % pattern.length);
                for (int i = 0; i < piece; )
                {
                    final int n = Math.min(pattern.length - phase, piece - i);
                    System.arraycopy(pattern, phase, stream, at + i, n);
                    i += n;
                    phase = 0;
                }
                streamLength += piece;
                done += piece;
                feed(at, piece);
            }
        }

        private int append(final byte[] src, final int from, final int n)
        {
            final int at = streamLength;
            ensure(at + n);
            System.arraycopy(src, from, stream, at, n);
            streamLength += n;
            return at;
        }

        private void ensure(final int capacity)
        {
            if (capacity > stream.length)
            {
                stream = Arrays.copyOf(stream, Math.max(capacity, stream.length * 2));
                streamBuffer = new UnsafeBuffer(stream);
                streamSpace = stream;
            }
        }

        /** Feeds stream bytes {@code [at, at + n)} the current way, then holds the assembler to the oracle. */
        private void feed(final int at, final int n)
        {
            try
            {
                switch (style)
                {
                    case 0 ->
                    {
                        final ByteBuffer src = ByteBuffer.wrap(stream, at, n);
                        while (src.hasRemaining() && !ended)
                        {
                            assembler.feed(src, this);
                        }
                    }
                    case 1 -> assembler.feed(streamBuffer, at, n, this);
                    default ->
                    {
                        for (int left = n; left > 0 && !ended; )
                        {
                            final ByteBuffer dst = assembler.writable();
                            final int read = Math.min(left, dst.remaining());
                            if (read <= 0)
                            {
                                fail("writable() gave no room to read into");
                            }
                            dst.put(dst.position(), stream, at + n - left, read);
                            left -= read;
                            assembler.received(read, this);
                        }
                    }
                }
            }
            catch (final ProtocolViolationException ex)
            {
                ended = true;
                end = ex.getMessage();
                assertThat(end).as("the violation the stream holds").isEqualTo(firstProblem());
                return;
            }
            catch (final ConnectionException ex)
            {
                ended = true;
                end = ex.getMessage();
                assertThat(end).startsWith("no memory");
                return;
            }
            catch (final IllegalStateException ex)
            {
                if (ex != thrownByApplication)
                {
                    throw ex;
                }
                end = "thrown by the application";
                return; // the link's read loop would close it now, as play() does
            }
            if (!ended)
            {
                final String missed = firstProblem();
                if (missed != null)
                {
                    fail("a problem the assembler let through: " + missed);
                }
                assertBounded();
            }
        }

        /** The first problem in the bytes after the last frame delivered; null if they are only incomplete. */
        private String firstProblem()
        {
            final int pending = streamLength - delivered;
            if (pending < Frame.HEADER_LENGTH)
            {
                return null;
            }
            frame.wrap(streamBuffer, delivered);
            final String header = frame.checkHeader(Limits.DEFAULT);
            if (header != null || frame.frameLength() > pending)
            {
                return header;
            }
            final String body = frame.checkBody();
            return body != null ? body : "a whole, valid " + frame + " was not delivered";
        }

        // Plain comparisons: this runs after every piece fed, millions of times a minute.
        private void assertBounded()
        {
            final int capacity = assembler.writable().capacity();
            final long waitingFor = streamLength - delivered;
            if (capacity > Math.max(FIRST_LARGE, 4 * waitingFor))
            {
                fail("a buffer of " + capacity + " bytes held for " + waitingFor + " bytes of a frame");
            }
            // The assembler reads into one slab at a time, so the slabs held come in runs of the same one.
            final long out = POOL.outstanding() - baseline;
            if (out > distinctHeld + 2)
            {
                fail(out + " slabs out of the pool, the application holding " + distinctHeld);
            }
        }

        @Override
        public void onFrame(final Slab slab, final int offset, final int length)
        {
            if (ended || length < Frame.HEADER_LENGTH || (long)offset + length > slab.capacity() ||
                delivered + length > streamLength)
            {
                fail("a delivery of " + length + " bytes at " + offset + " of a " + slab.capacity() +
                    "-byte slab, " + (streamLength - delivered) + " bytes fed since the last (link ended: " + ended +
                    ")");
            }
            frame.wrap(slab.buffer(), offset);
            final String problem = frame.checkHeader(Limits.DEFAULT);
            if (frame.frameLength() != length || problem != null || frame.checkBody() != null)
            {
                fail("delivered " + frame + " of " + length + " bytes: " + problem + ", " + frame.checkBody());
            }
            if (scratch.length < length)
            {
                scratch = new byte[Math.max(length, 2 * scratch.length)];
            }
            slab.buffer().getBytes(offset, scratch, 0, length);
            if (!Arrays.equals(scratch, 0, length, stream, delivered, delivered + length))
            {
                fail("frame delivered at stream offset " + delivered + " is not the stream's bytes");
            }
            delivered += length;
            frames++;
            if (hold)
            {
                held.add(slab.retain());
                if (slab != lastHeld)
                {
                    lastHeld = slab;
                    distinctHeld++;
                }
            }
            if (endLinkAt == 0)
            {
                ended = true;
                end = "closed by the application";
                assembler.close();
            }
            else if (endLinkAt == 1)
            {
                ended = true;
                thrownByApplication = new IllegalStateException("the application failed");
                throw thrownByApplication;
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
    }
}
