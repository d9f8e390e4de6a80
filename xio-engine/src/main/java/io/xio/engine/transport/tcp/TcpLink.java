package io.xio.engine.transport.tcp;

import io.xio.engine.ConnectionException;
import io.xio.engine.transport.SelectionHandler;
import io.xio.engine.transport.SocketReader;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.stream.StreamLink;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * A TCP connection end: non-blocking NIO with TCP_NODELAY, reads straight into pooled slabs (every turn while its
 * context is busy with few sockets, else when the selector finds it ready), one gathering write per loop turn,
 * partial writes resumed on OP_WRITE so a large message never blocks the loop. The socket's part (selector
 * registration, gathering writes, interest in OP_WRITE, close) is here once; a link that transforms the bytes on
 * the way (TLS) overrides {@link #read()}, {@link #readsDirectly()}, {@link #transmit}, {@link #onWritable()}
 * and {@link #releasedPosition()} and keeps the rest. Owner context thread only.
 */
public class TcpLink extends StreamLink implements SelectionHandler, SocketReader
{
    /** A TLS record's first bytes: alert (21) or handshake (22), then version 3.1 to 3.4. */
    private static final int TLS_ALERT = 21;
    private static final int TLS_HANDSHAKE = 22;
    /** A write of at least this much is part of a stream (a socket's send buffer is a few times that). */
    private static final long BULK_WRITE = 64 * 1024;

    protected final SocketChannel channel;
    private final String remote;
    private SelectionKey key;
    private long written;
    /** Interested in OP_WRITE. */
    private boolean awaitingRoom;
    /**
     * A frame is partly in and its rest streaming, or the last write was a large one and its acknowledgements are
     * streaming back: the selector, not a read every turn, finds what comes next. Reads that find nothing contend
     * with the kernel delivering into the socket; over loopback they cost a 1 MiB stream a fifth of its rate.
     */
    private boolean midFrame;
    private boolean sentInBulk;
    /** Counted among the context's links that need its selector every turn: awaiting room, mid-frame or in bulk. */
    private boolean selecting;

    public TcpLink(final TransportContext context, final SocketChannel channel) throws IOException
    {
        this(context, channel, "tcp");
    }

    /** @param scheme what {@link #remoteAddress()} starts with */
    protected TcpLink(final TransportContext context, final SocketChannel channel, final String scheme)
        throws IOException
    {
        super(context);
        this.channel = channel;
        channel.configureBlocking(false);
        channel.setOption(java.net.StandardSocketOptions.TCP_NODELAY, Boolean.TRUE);
        this.remote = scheme + "://" + hostPort(channel);
    }

    private static String hostPort(final SocketChannel channel)
    {
        try
        {
            final java.net.InetSocketAddress address = (java.net.InetSocketAddress)channel.getRemoteAddress();
            return address.getHostString() + ":" + address.getPort();
        }
        catch (final IOException | RuntimeException ex)
        {
            return "?";
        }
    }

    @Override
    public void start(final io.xio.engine.transport.LinkHandler handler)
    {
        super.start(handler);
        if (readsDirectly())
        {
            context.addSocketReader(this);
        }
        else
        {
            context.selectorLinks(1);
        }
        try
        {
            final SelectionKey existing = channel.keyFor(context.selector());
            if (existing != null && existing.isValid())
            {
                existing.attach(this);
                existing.interestOps(SelectionKey.OP_READ);
                key = existing;
            }
            else
            {
                key = channel.register(context.selector(), SelectionKey.OP_READ, this);
            }
        }
        catch (final IOException ex)
        {
            close(new ConnectionException("cannot register " + remote + " with the selector", ex));
        }
    }

    @Override
    public void onSelected(final SelectionKey selected)
    {
        if (!selected.isValid())
        {
            return;
        }
        try
        {
            if (selected.isWritable())
            {
                onWritable();
            }
            if (!closed && selected.isReadable())
            {
                readAndTrack();
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            fail(ex);
        }
    }

    @Override
    public int readAvailable()
    {
        if (closed)
        {
            return 0;
        }
        final long before = arrivals();
        try
        {
            readAndTrack();
        }
        catch (final IOException | RuntimeException ex)
        {
            fail(ex);
        }
        return arrivals() != before ? 1 : 0;
    }

    private void readAndTrack() throws IOException
    {
        read();
        if (readsDirectly())
        {
            midFrame = !closed && assembler.partialBytes() > 0;
            countSelecting();
        }
    }

    /** Counts this link among those that need the selector every turn while it does. */
    private void countSelecting()
    {
        final boolean needed = awaitingRoom || midFrame || sentInBulk;
        if (needed != selecting)
        {
            selecting = needed;
            context.selectorLinks(needed ? 1 : -1);
        }
    }

    private void fail(final Exception ex)
    {
        close(ex instanceof IOException ? new ConnectionException("connection to " + remote + " failed: " +
            ex.getMessage(), ex) : ex);
    }

    /**
     * Whether a busy context may read this link every turn without asking its selector first. A link whose read
     * takes a buffer before it knows bytes are there (TLS) waits for the selector instead.
     */
    protected boolean readsDirectly()
    {
        return true;
    }

    /** The socket has room again: resumes the partial write. */
    protected void onWritable() throws IOException
    {
        flush();
    }

    /** Reads what the socket has, a bounded amount per turn, and delivers the frames it completes. */
    protected void read() throws IOException
    {
        // Bounded per turn so one busy peer cannot starve the others on this context.
        for (int i = 0; i < 16 && !closed; i++)
        {
            final ByteBuffer target = assembler.writable();
            final int n = channel.read(target);
            if (n < 0)
            {
                close(new ConnectionException("connection closed by peer " + remote + (answeredInTls() ?
                    ", which answered in TLS: it is a TLS portal (connect with tls://)" : "")));
                return;
            }
            if (n == 0)
            {
                return;
            }
            bytesArrived();
            assembler.received(n, handler);
            if (target.hasRemaining())
            {
                return;
            }
        }
    }

    /**
     * Whether what the peer sent before closing starts like a TLS record (what a TLS portal answers a plaintext
     * set-up with: an alert), not like a frame: the record header's type, then its version 3.1 to 3.4.
     */
    private boolean answeredInTls()
    {
        final int type = assembler.partialByte(0);
        final int minor = assembler.partialByte(2);
        return (type == TLS_ALERT || type == TLS_HANDSHAKE) && assembler.partialByte(1) == 3 && minor >= 1 &&
            minor <= 4;
    }

    @Override
    protected void transmit(final ByteBuffer[] buffers, final int from, final int to) throws IOException
    {
        final long before = written;
        final int index = write(buffers, from, to);
        final long n = written - before;
        if (n > 0)
        {
            sentInBulk = n >= BULK_WRITE;
        }
        transmitted(index);
        wantWrite(index < to);
    }

    /**
     * Gathering writes of {@code buffers[from, to)} until they are written or the socket is full.
     *
     * @return the index of the first buffer not written whole; {@code to} when all were
     */
    protected final int write(final ByteBuffer[] buffers, final int from, final int to) throws IOException
    {
        int index = from;
        while (index < to)
        {
            final long n = channel.write(buffers, index, Math.min(to - index, 1024));
            written += n;
            if (n > 0)
            {
                context.counters().wrote(n);
            }
            while (index < to && !buffers[index].hasRemaining())
            {
                index++;
            }
            if (n == 0)
            {
                break;
            }
        }
        return index;
    }

    /** Asks for OP_WRITE while bytes wait for room in the socket, and stops asking once they do not. */
    protected final void wantWrite(final boolean pending)
    {
        if (key != null && key.isValid())
        {
            final int ops = pending ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ;
            if (key.interestOps() != ops)
            {
                key.interestOps(ops);
            }
            awaitingRoom = pending;
            countSelecting();
        }
    }

    /** Bytes written to the socket so far: the stream position the kernel has taken. */
    @Override
    protected long releasedPosition()
    {
        return written;
    }

    @Override
    protected void closeChannel()
    {
        if (handler != null && readsDirectly())
        {
            context.removeSocketReader(this);
        }
        else if (handler != null)
        {
            context.selectorLinks(-1);
        }
        awaitingRoom = false;
        midFrame = false;
        sentInBulk = false;
        countSelecting();
        if (key != null)
        {
            key.cancel();
        }
        try
        {
            channel.close();
        }
        catch (final IOException ignore)
        {
            // already failing; nothing more to report
        }
    }

    @Override
    public String remoteAddress()
    {
        return remote;
    }
}
