package io.xio.engine.hostile;

import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Map;

/**
 * A peer written from {@code docs/protocol.md} alone, on a plain blocking socket: it sends whatever bytes a test
 * wants and reads frames back, as an attacker's tool would. Not thread-safe; one test thread drives it.
 */
final class RawPeer implements AutoCloseable
{
    /** A frame read back: the header fields and the body (control body or application header and data). */
    record Received(int type, int flags, long sessionId, long requestId, int status, byte[] body)
    {
        SetupCodec.Reader reader()
        {
            return new SetupCodec.Reader(new UnsafeBuffer(body), 0, body.length);
        }

        /** The {@code i64} at {@code at} of the body: a STREAM_DATA's sequence number at 0, a CREDIT's fields. */
        long i64(final int at)
        {
            return ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN).getLong(at);
        }

        /** Whether this is a STREAM_DATA, with the END flag when {@code end}. */
        boolean isStreamData(final boolean end)
        {
            return type == FrameType.STREAM_DATA && ((flags & FrameFlags.END) != 0) == end;
        }
    }

    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;

    /** Connects to {@code port} on 127.0.0.1 from {@code localAddress} (another loopback address is another host). */
    RawPeer(final String localAddress, final int port, final int receiveBuffer) throws IOException
    {
        socket = new Socket();
        if (receiveBuffer > 0)
        {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.bind(new InetSocketAddress(InetAddress.getByName(localAddress), 0));
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        in = new DataInputStream(socket.getInputStream());
    }

    /** Frames over {@code socket} (connected) through other streams than its own: TLS ({@link TlsStreams}). */
    RawPeer(final Socket socket, final java.io.InputStream in, final OutputStream out)
    {
        this.socket = socket;
        this.out = out;
        this.in = new DataInputStream(in);
    }

    RawPeer(final int port) throws IOException
    {
        this("127.0.0.1", port, 0);
    }

    static byte[] frame(final int type, final int flags, final long sessionId, final long requestId,
        final byte[] header, final byte[]... segments)
    {
        int length = Frame.HEADER_LENGTH + 4 * segments.length + header.length;
        for (final byte[] segment : segments)
        {
            length += segment.length;
        }
        final ByteBuffer frame = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        frame.putInt(length).put((byte)2).put((byte)type).putShort((short)flags).putLong(sessionId)
            .putLong(requestId).putInt(header.length).putShort((short)segments.length).putShort((short)0);
        for (final byte[] segment : segments)
        {
            frame.putInt(segment.length);
        }
        frame.put(header);
        for (final byte[] segment : segments)
        {
            frame.put(segment);
        }
        return frame.array();
    }

    /** {@code frame} as a protocol v1 peer would send it: the same bytes with version 1. */
    static byte[] v1(final byte[] frame)
    {
        final byte[] old = frame.clone();
        old[4] = 1;
        return old;
    }

    /**
     * A call-context block as docs/protocol.md §2.4 describes it: {@code u16} length of the items, a deadline item
     * when {@code remainingNanos > 0}, then one metadata entry per key and value.
     */
    static byte[] context(final long remainingNanos, final String... keysAndValues)
    {
        final ByteBuffer items = ByteBuffer.allocate(70_000).order(ByteOrder.LITTLE_ENDIAN);
        if (remainingNanos > 0)
        {
            items.put((byte)1).putLong(remainingNanos);
        }
        for (int i = 0; i < keysAndValues.length; i += 2)
        {
            final byte[] key = keysAndValues[i].getBytes(java.nio.charset.StandardCharsets.UTF_8);
            final byte[] value = keysAndValues[i + 1].getBytes(java.nio.charset.StandardCharsets.UTF_8);
            items.put((byte)2).put((byte)key.length).put(key).putShort((short)value.length).put(value);
        }
        final ByteBuffer block = ByteBuffer.allocate(2 + items.position()).order(ByteOrder.LITTLE_ENDIAN);
        block.putShort((short)items.position()).put(items.array(), 0, items.position());
        return block.array();
    }

    /** A REQUEST with {@code context} (from {@link #context}) before the application header {@code header}. */
    static byte[] request(final long sessionId, final long id, final byte[] context, final byte[] header)
    {
        return frame(FrameType.REQUEST, FrameFlags.CONTEXT, sessionId, id, concat(context, header));
    }

    private static byte[] concat(final byte[] first, final byte[] second)
    {
        final byte[] both = java.util.Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    static byte[] setup(final long token, final String resource)
    {
        return setup(token, resource, new byte[] {0}); // credentials kind 0: none
    }

    /** A SETUP presenting {@code token} as a bearer token (credentials kind 1). */
    static byte[] setup(final long token, final String resource, final String bearer)
    {
        return setup(token, resource, new SetupCodec.Writer().u8(1).string(bearer).toBytes());
    }

    /** A SETUP whose credentials field is {@code credentials}, as they are, whatever they are. */
    static byte[] setup(final long token, final String resource, final byte[] credentials)
    {
        // hops, resource, attributes, in flight, dedup window; the sizes it accepts: message, header, context, segments
        final byte[] fields = new SetupCodec.Writer().u8(0).string(resource).map(Map.of()).i32(1024).i32(2048)
            .i32(256 << 20).i32(64 << 10).i32(8 << 10).i32(64).toBytes();
        final byte[] body = java.util.Arrays.copyOf(fields, fields.length + credentials.length);
        System.arraycopy(credentials, 0, body, fields.length, credentials.length);
        return frame(FrameType.SETUP, 0, 0, token, body);
    }

    /**
     * Opens stream {@code id} (a REQUEST with the STREAM flag, in the client's id space): {@code context} (from
     * {@link #context}, or null for none) before the opening message's header {@code header}.
     */
    static byte[] streamOpen(final long sessionId, final long id, final byte[] context, final byte[] header)
    {
        return context == null ? frame(FrameType.REQUEST, FrameFlags.STREAM, sessionId, id, header) :
            frame(FrameType.REQUEST, FrameFlags.STREAM | FrameFlags.CONTEXT, sessionId, id, concat(context, header));
    }

    /**
     * Opens stream {@code id} again after a connection loss (§5.13.8): a REQUEST with STREAM and RETRANSMIT, its resume
     * count {@code resume} in the status field, and an empty message (the acceptor took the stream before).
     */
    static byte[] streamResume(final long sessionId, final long id, final int resume)
    {
        final byte[] frame = frame(FrameType.REQUEST, FrameFlags.STREAM | FrameFlags.RETRANSMIT, sessionId, id,
            new byte[0]);
        ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).putShort(30, (short)resume);
        return frame;
    }

    /**
     * A STREAM_DATA of stream {@code id}: {@code flags} (FROM_ACCEPTOR for a stream the server opened, END),
     * {@code status}, the {@code i64 sequence} and then {@code header} as the application-header area, then
     * {@code segments}.
     */
    static byte[] streamData(final long sessionId, final long id, final int flags, final int status,
        final long sequence, final byte[] header, final byte[]... segments)
    {
        final byte[] prefixed = ByteBuffer.allocate(8 + header.length).order(ByteOrder.LITTLE_ENDIAN)
            .putLong(sequence).put(header).array();
        final byte[] frame = frame(FrameType.STREAM_DATA, flags, sessionId, id, prefixed, segments);
        ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).putShort(30, (short)status);
        return frame;
    }

    /** A message of stream {@code id} (a client-opened one) with sequence number {@code sequence}. */
    static byte[] streamData(final long sessionId, final long id, final long sequence, final byte[] header,
        final byte[]... segments)
    {
        return streamData(sessionId, id, 0, 0, sequence, header, segments);
    }

    /** A CREDIT of stream {@code id}, {@code flags} as its opener's id space: its three {@code i64}s. */
    static byte[] credit(final long sessionId, final long id, final int flags, final long received,
        final long limitSequence, final long limitBytes)
    {
        return frame(FrameType.CREDIT, flags, sessionId, id, new SetupCodec.Writer().i64(received).i64(limitSequence)
            .i64(limitBytes).toBytes());
    }

    static byte[] attach(final long token, final long sessionId, final byte[] proof)
    {
        return frame(FrameType.ATTACH, 0, sessionId, token, new SetupCodec.Writer().bytes(proof).toBytes());
    }

    static byte[] request(final long sessionId, final long id, final byte[] header)
    {
        return frame(FrameType.REQUEST, 0, sessionId, id, header);
    }

    static byte[] cancel(final long sessionId, final long first, final long last)
    {
        return frame(FrameType.CANCEL, 0, sessionId, first, new SetupCodec.Writer().i64(last).toBytes());
    }

    static byte[] keepalive()
    {
        return frame(FrameType.KEEPALIVE, 0, 0, 0, new byte[0]);
    }

    void send(final byte[] bytes) throws IOException
    {
        out.write(bytes);
        out.flush();
    }

    /** Sends and reports whether the server still took the bytes (false once it has closed on us). */
    boolean trySend(final byte[] bytes)
    {
        try
        {
            send(bytes);
            return true;
        }
        catch (final IOException closed)
        {
            return false;
        }
    }

    /** The next frame, waiting at most {@code timeout}; null if the server closed the connection. */
    Received read(final Duration timeout) throws IOException
    {
        socket.setSoTimeout((int)timeout.toMillis());
        try
        {
            final byte[] head = new byte[Frame.HEADER_LENGTH];
            in.readFully(head);
            final ByteBuffer header = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
            final byte[] body = new byte[header.getInt(0) - Frame.HEADER_LENGTH];
            in.readFully(body);
            final int segments = header.getShort(28) & 0xFFFF;
            final byte[] rest = java.util.Arrays.copyOfRange(body, 4 * segments, body.length);
            return new Received(header.get(5), header.getShort(6) & 0xFFFF, header.getLong(8), header.getLong(16),
                header.getShort(30) & 0xFFFF, rest);
        }
        catch (final EOFException | SocketException closed)
        {
            return null;
        }
    }

    /** The next frame other than a KEEPALIVE (a server sends those once a session is up), or null once closed. */
    Received answer() throws IOException
    {
        Received frame;
        do
        {
            frame = read(Duration.ofSeconds(10));
        }
        while (frame != null && frame.type() == FrameType.KEEPALIVE);
        return frame;
    }

    /** Sets a session up for {@code resource}: its id; fails unless the server accepts. */
    long setUp(final String resource) throws IOException
    {
        return setUp(setup(1, resource), resource);
    }

    /** {@link #setUp(String)} for a client that announces {@code features} (SetupCodec's bits) after no credentials. */
    long setUp(final String resource, final int features) throws IOException
    {
        return setUp(setup(1, resource, new byte[] {SetupCodec.CREDENTIALS_NONE, (byte)features}), resource);
    }

    /** A session this peer set up: its id, and the secret another connection attaches to it with. */
    record SetUp(long sessionId, byte[] secret)
    {
    }

    /** {@link #setUp(String, int)}, keeping the session's secret from the SETUP_ACCEPT as well. */
    SetUp setUpWithSecret(final String resource, final int features) throws IOException
    {
        send(setup(1, resource, new byte[] {SetupCodec.CREDENTIALS_NONE, (byte)features}));
        final Received accept = answer();
        if (accept == null || accept.type() != FrameType.SETUP_ACCEPT)
        {
            throw new AssertionError("expected SETUP_ACCEPT for '" + resource + "', got " + accept);
        }
        final SetupCodec.Reader body = accept.reader();
        body.map(); // attributes, in flight, dedup window, then the secret
        body.i32();
        body.i32();
        return new SetUp(accept.sessionId(), body.bytes());
    }

    /** Attaches this connection to {@code session} with its secret; fails unless the server accepts. */
    void attachTo(final SetUp session) throws IOException
    {
        send(attach(2, session.sessionId(), session.secret()));
        final Received accept = answer();
        if (accept == null || accept.type() != FrameType.ATTACH_ACCEPT)
        {
            throw new AssertionError("expected ATTACH_ACCEPT for session " + session.sessionId() + ", got " + accept);
        }
    }

    private long setUp(final byte[] setup, final String resource) throws IOException
    {
        send(setup);
        Received accept;
        do
        {
            accept = read(Duration.ofSeconds(5)); // a connection with a session already has KEEPALIVEs coming
        }
        while (accept != null && accept.type() == FrameType.KEEPALIVE);
        if (accept == null || accept.type() != FrameType.SETUP_ACCEPT)
        {
            throw new AssertionError("expected SETUP_ACCEPT for '" + resource + "', got " + accept);
        }
        return accept.sessionId();
    }

    /** Whether the server closes the connection within {@code timeout}; frames it sends meanwhile are skipped. */
    boolean closedWithin(final Duration timeout) throws IOException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline)
        {
            try
            {
                if (read(Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()))) == null)
                {
                    return true;
                }
            }
            catch (final SocketTimeoutException stillOpen)
            {
                return false;
            }
        }
        return false;
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }
}
