package io.xio.engine.session;

import io.xio.engine.ConnectionException;
import io.xio.engine.XioUri;
import io.xio.engine.protocol.Frame;
import io.xio.engine.transport.RemoteRegion;
import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.TransportLink;
import io.xio.engine.transport.TransportListener;
import io.xio.engine.transport.stream.StreamLink;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A transport ({@code wire://}) whose far end is the test: it records every frame the engine writes and hands
 * the engine whatever frames the test writes, with no socket and no thread. With manual contexts and a fake
 * clock a test steps a session through connects, losses and timeouts as Aeron's conductor tests do. Used on
 * the test's thread, which runs the engine's context.
 */
final class ScriptedWire implements Transport
{
    final List<Link> links = new ArrayList<>();
    /** When each connect was asked for, on the engine's clock. */
    final List<Long> connectTimes = new ArrayList<>();
    private final org.agrona.concurrent.NanoClock clock;
    boolean refuseConnects;
    /** Where each connect was asked to go, in order. */
    final List<XioUri> dialled = new ArrayList<>();
    /** Endpoints whose connects are refused. */
    final java.util.Set<XioUri> unreachable = new java.util.HashSet<>();
    /** Whether links offer output buffers for one-sided writes, as rdma does. */
    boolean oneSided;
    private TransportContext listening;
    private Consumer<TransportLink> onAccept;

    ScriptedWire(final org.agrona.concurrent.NanoClock clock)
    {
        this.clock = clock;
    }

    @Override
    public String scheme()
    {
        return "wire";
    }

    @Override
    public TransportListener listen(final XioUri address, final TransportContext context,
        final Consumer<TransportLink> onAccept)
    {
        this.listening = context;
        this.onAccept = onAccept;
        return TransportListener.of(address.endpoint(), () -> this.onAccept = null);
    }

    @Override
    public Runnable connect(final XioUri address, final TransportContext context, final ConnectCallback callback)
    {
        connectTimes.add(clock.nanoTime());
        dialled.add(address.endpoint());
        if (refuseConnects || unreachable.contains(address.endpoint()))
        {
            callback.onFailed(new ConnectionException("connection to " + address + " refused by the test"));
        }
        else
        {
            final Link link = new Link(context, "wire://server");
            links.add(link);
            callback.onConnected(link);
        }
        return () -> { };
    }

    /** A client connects to the bound portal: the engine accepts the link. */
    Link accept()
    {
        final Link link = new Link(listening, "wire://client-" + links.size());
        links.add(link);
        onAccept.accept(link);
        return link;
    }

    Link last()
    {
        return links.get(links.size() - 1);
    }

    /** One frame as the engine wrote it. */
    record Sent(int type, int flags, long sessionId, long requestId, int status, byte[] header, List<byte[]> segments)
    {
        String headerText()
        {
            return new String(header, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /** One end of a scripted connection: the engine's; the test plays the other. */
    final class Link extends StreamLink
    {
        private final String remote;
        private final ByteArrayOutputStream written = new ByteArrayOutputStream();
        private final List<Sent> frames = new ArrayList<>();
        private int parsed;
        private long transmitted;
        boolean closedByEngine;

        Link(final TransportContext context, final String remote)
        {
            super(context);
            this.remote = remote;
        }

        @Override
        protected void transmit(final ByteBuffer[] buffers, final int from, final int to)
        {
            for (int i = from; i < to; i++)
            {
                final ByteBuffer buffer = buffers[i];
                final byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                written.write(bytes, 0, bytes.length);
                transmitted += bytes.length;
            }
            transmitted(to);
        }

        @Override
        protected long releasedPosition()
        {
            return transmitted;
        }

        @Override
        protected void closeChannel()
        {
            closedByEngine = true;
        }

        @Override
        public String remoteAddress()
        {
            return remote;
        }

        @Override
        public boolean exposeForWrite(final ByteBuffer buffer, final RemoteRegion region)
        {
            if (!oneSided)
            {
                return false;
            }
            region.set(0x1000, 42, buffer.remaining());
            return true;
        }

        boolean isClosed()
        {
            return closed;
        }

        /** Every frame the engine wrote on this link so far, keepalives left out. */
        List<Sent> sent()
        {
            final byte[] all = written.toByteArray();
            final UnsafeBuffer buffer = new UnsafeBuffer(all);
            final Frame frame = new Frame();
            while (all.length - parsed >= Frame.HEADER_LENGTH)
            {
                frame.wrap(buffer, parsed);
                final int length = frame.frameLength();
                if (all.length - parsed < length)
                {
                    break;
                }
                if ((frame.flags() & io.xio.engine.protocol.FrameFlags.CONTEXT) != 0)
                {
                    final String problem = io.xio.engine.protocol.CallContext.check(frame, 0xFFFF);
                    if (problem != null)
                    {
                        throw new AssertionError("the engine sent a bad call context: " + problem);
                    }
                }
                final byte[] header = new byte[frame.applicationHeaderLength()];
                buffer.getBytes(frame.applicationHeaderOffset(), header);
                final List<byte[]> segments = new ArrayList<>();
                int at = frame.dataOffset();
                for (int i = 0; i < frame.segmentCount(); i++)
                {
                    final byte[] segment = new byte[frame.segmentLength(i)];
                    buffer.getBytes(at, segment);
                    segments.add(segment);
                    at += segment.length;
                }
                if (frame.type() != io.xio.engine.protocol.FrameType.KEEPALIVE)
                {
                    frames.add(new Sent(frame.type(), frame.flags(), frame.sessionId(), frame.requestId(),
                        frame.status(), header, segments));
                }
                parsed += length;
            }
            return frames;
        }

        /** The frames of {@code type} the engine wrote so far. */
        List<Sent> sent(final int type)
        {
            return sent().stream().filter(f -> f.type() == type).toList();
        }

        /** The test's end writes a frame: the engine reads it now (a frame it refuses closes the link). */
        void deliver(final byte[] frame)
        {
            final ByteBuffer in = ByteBuffer.wrap(frame);
            bytesArrived();
            try
            {
                while (in.hasRemaining() && !closed)
                {
                    assembler.feed(in, handler);
                }
            }
            catch (final RuntimeException ex)
            {
                close(ex); // what every link's read loop does with a frame the engine refused
            }
        }

        /** The connection breaks, as a reset would. */
        void reset()
        {
            close(new IOException("connection reset by the test"));
        }
    }
}
