package io.xio.benchmarks.jmh;

import io.xio.engine.Limits;
import io.xio.engine.Outbound;
import io.xio.engine.transport.LoopCounters;
import io.xio.engine.memory.BufferPool;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameEncoder;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.transport.LinkHandler;
import io.xio.engine.transport.SendCompletion;
import io.xio.engine.transport.TransportLink;
import io.xio.engine.transport.stream.FrameAssembler;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The wire codec alone: {@code encode} writes one request frame (64-byte or 4 KiB header plus one data segment
 * of the same size) with the engine's {@link FrameEncoder}; {@code decode} feeds that frame's bytes to a
 * {@link FrameAssembler}, which validates it and hands it over, and reads its fields. Both must allocate nothing
 * ({@code -prof gc}).
 *
 * <p>Run: {@code ./mvnw -q -pl benchmarks -am test-compile -Prun -Dbenchmark.main=io.xio.benchmarks.Jmh
 * -Dbenchmark.args="FrameCodec -prof gc"}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FrameCodecBenchmark
{
    @Param({"64", "4096"})
    public int size;

    private final FrameEncoder encoder = new FrameEncoder();
    private final BufferLink link = new BufferLink();
    private final Reader reader = new Reader();
    private Outbound message;
    private FrameAssembler assembler;
    private UnsafeBuffer encoded;
    private int encodedLength;

    @Setup
    public void setUp()
    {
        message = Outbound.of(ByteBuffer.allocateDirect(size), ByteBuffer.allocateDirect(size));
        final BufferPool pool = new BufferPool("jmh");
        pool.owner(Thread.currentThread());
        assembler = new FrameAssembler(pool, Limits.DEFAULT, new LoopCounters());
        encode();
        encoded = new UnsafeBuffer(new byte[link.committed]);
        encoded.putBytes(0, link.buffer, 0, link.committed);
        encodedLength = link.committed;
    }

    @Benchmark
    public int encode()
    {
        link.committed = 0;
        // 5 s left: every request carries its caller's deadline in a call context (protocol v2)
        encoder.encode(link, FrameType.REQUEST, 0, 7, 42, 0, message, 5_000_000_000L, null, false);
        return link.committed;
    }

    @Benchmark
    public long decode()
    {
        assembler.feed(encoded, 0, encodedLength, reader);
        return reader.sum;
    }

    /** Reads what a lane reads of a request frame. */
    static final class Reader implements LinkHandler
    {
        private final Frame frame = new Frame();
        long sum;

        @Override
        public void onFrame(final Slab slab, final int offset, final int length)
        {
            frame.wrap(slab.buffer(), offset);
            sum += frame.type() + frame.flags() + frame.sessionId() + frame.requestId() + frame.headerLength() +
                frame.segmentCount() + frame.segmentLength(0) + frame.dataOffset();
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

    /** A link that keeps the last frame in one buffer: what the encoder does, without a transport. */
    static final class BufferLink implements TransportLink
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64 << 10));
        int committed;
        private int claimed;

        @Override
        public void start(final LinkHandler handler)
        {
        }

        @Override
        public int maxInlineFrame()
        {
            return 16 << 10;
        }

        @Override
        public MutableDirectBuffer claim(final int length)
        {
            claimed = length;
            return buffer;
        }

        @Override
        public int claimOffset()
        {
            return committed;
        }

        @Override
        public void commit()
        {
            committed += claimed;
        }

        @Override
        public void commit(final ByteBuffer[] data, final int count, final SendCompletion completion)
        {
            commit();
        }

        @Override
        public int flush()
        {
            return 0;
        }

        @Override
        public long lastReceiveNanos()
        {
            return 0;
        }

        @Override
        public long backlog()
        {
            return 0;
        }

        @Override
        public void notifyWhenWritable()
        {
        }

        @Override
        public void close(final Throwable cause)
        {
        }

        @Override
        public String remoteAddress()
        {
            return "jmh";
        }
    }
}
