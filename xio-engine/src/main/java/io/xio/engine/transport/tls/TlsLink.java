package io.xio.engine.transport.tls;

import io.xio.engine.ConnectionException;
import io.xio.engine.PeerIdentity;
import io.xio.engine.memory.Slab;
import io.xio.engine.transport.LinkHandler;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.tcp.TcpLink;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * A TLS connection end: a {@link TcpLink} whose bytes pass through an {@link SSLEngine} on the context thread,
 * with no thread of its own and no blocking handshake (delegated tasks run inline). The handshake runs as the
 * socket becomes readable or writable; frames committed before it completes wait, and nothing is delivered
 * before it. Outbound, a loop turn's gather list is wrapped into as few records as it fills (a wrap takes from
 * several buffers at once, up to 16 KiB a record) in one network buffer, written with one write; plaintext is
 * released once wrapped, since the ciphertext is a copy. Inbound, records are unwrapped straight into the frame
 * assembler's buffer, so frames arrive validated as on tcp. Close sends close_notify without waiting for the
 * peer's. Network buffers come from the context's pool and go back while idle. Owner context thread only.
 */
final class TlsLink extends TcpLink
{
    /** Room for a few full records each way: a turn's small frames leave in one write. */
    private static final int NET_IN = 64 << 10;
    private static final int NET_OUT = 256 << 10;
    private static final ByteBuffer[] NOTHING = {};

    private final SSLEngine engine;
    private final LongAdder records;
    private Slab netInSlab;
    /** Ciphertext read and not yet unwrapped, in {@code [0, position)}. */
    private ByteBuffer netIn;
    private Slab netOutSlab;
    /** Ciphertext wrapped and not yet written, in {@code [position, limit)}. */
    private ByteBuffer netOut;
    /** {@link #netOut} as a gather list of one, for {@link #write}. */
    private final ByteBuffer[] netOutList = new ByteBuffer[1];
    /** Plaintext of a record that did not fit the assembler's buffer, in {@code [position, limit)}. */
    private ByteBuffer spare;
    /** Plaintext stream position wrapped: what the socket's buffers no longer need. */
    private long wrapped;
    private boolean established;
    private PeerIdentity identity;

    TlsLink(final TransportContext context, final SocketChannel channel, final SSLEngine engine,
        final LongAdder records) throws IOException
    {
        super(context, channel, "tls");
        this.engine = engine;
        this.records = records;
    }

    @Override
    public void start(final LinkHandler handler)
    {
        super.start(handler);
        if (closed)
        {
            return;
        }
        try
        {
            engine.beginHandshake();
            handshake();
        }
        catch (final IOException | RuntimeException ex)
        {
            close(failure(ex));
        }
    }

    @Override
    public PeerIdentity peerIdentity()
    {
        return identity != null ? identity : PeerIdentity.of(remoteAddress());
    }

    @Override
    protected void onWritable() throws IOException
    {
        try
        {
            wantWrite(!drain());
            if (!established)
            {
                handshake();
            }
            flush();
        }
        catch (final SSLException ex)
        {
            throw failure(ex);
        }
    }

    @Override
    protected void read() throws IOException
    {
        try
        {
            // Bounded per turn so one busy peer cannot starve the others on this context.
            for (int i = 0; i < 16 && !closed; i++)
            {
                final ByteBuffer in = netIn();
                final int n = channel.read(in);
                if (n < 0)
                {
                    close(new ConnectionException(established ? "connection closed by peer " + remoteAddress() :
                        "connection closed by peer " + remoteAddress() + " during the TLS handshake (it refused " +
                        "the handshake, or it does not speak TLS: a plaintext tcp portal?)"));
                    return;
                }
                if (n == 0)
                {
                    return;
                }
                bytesArrived();
                final boolean full = !in.hasRemaining();
                unwrap();
                if (!full)
                {
                    return;
                }
            }
        }
        catch (final SSLException ex)
        {
            throw failure(ex);
        }
    }

    /** Unwraps every whole record in {@link #netIn}, answering what the handshake needs on the way. */
    private void unwrap() throws IOException
    {
        netIn.flip();
        try
        {
            boolean viaSpare = false;
            while (!closed && netIn.hasRemaining())
            {
                final ByteBuffer target = viaSpare || !established ? spare() : assembler.writable();
                final SSLEngineResult result = engine.unwrap(netIn, target);
                switch (result.getStatus())
                {
                    case OK ->
                    {
                        viaSpare = false;
                        if (target == spare)
                        {
                            deliverSpare();
                        }
                        else if (result.bytesProduced() > 0)
                        {
                            assembler.received(result.bytesProduced(), handler);
                        }
                    }
                    case BUFFER_OVERFLOW ->
                    {
                        // The record is larger than the room left in the assembler's buffer (the end of a frame
                        // or of a slab): this one goes through the spare buffer, which fits any record.
                        if (target == spare)
                        {
                            throw new SSLException("a record of more than " + spare.capacity() + " bytes");
                        }
                        viaSpare = true;
                        continue;
                    }
                    case BUFFER_UNDERFLOW ->
                    {
                        return; // the rest of the record is still on its way
                    }
                    case CLOSED ->
                    {
                        close(new ConnectionException("connection closed by peer " + remoteAddress() +
                            " (TLS close_notify)"));
                        return;
                    }
                    default -> throw new IllegalStateException("unwrap: " + result.getStatus());
                }
                if (!advance(result) && result.bytesConsumed() == 0 && result.bytesProduced() == 0)
                {
                    return;
                }
            }
        }
        finally
        {
            if (netIn != null)
            {
                netIn.compact();
            }
        }
    }

    /**
     * Does what {@code result} left the handshake needing (tasks, records to send: a handshake message, a key
     * update's answer) and notes its end; true when it did anything.
     */
    private boolean advance(final SSLEngineResult result) throws IOException
    {
        SSLEngineResult.HandshakeStatus status = result.getHandshakeStatus();
        boolean did = false;
        if (status == SSLEngineResult.HandshakeStatus.FINISHED)
        {
            established();
            return true;
        }
        if (status == SSLEngineResult.HandshakeStatus.NEED_TASK)
        {
            runTasks();
            status = engine.getHandshakeStatus();
            did = true;
        }
        if (status == SSLEngineResult.HandshakeStatus.NEED_WRAP)
        {
            handshake();
            did = true;
        }
        return did;
    }

    /** Drives the handshake (or a post-handshake exchange) as far as it goes without bytes from the peer. */
    private void handshake() throws IOException
    {
        for (int i = 0; i < 64 && !closed; i++)
        {
            final SSLEngineResult.HandshakeStatus status = engine.getHandshakeStatus();
            if (status == SSLEngineResult.HandshakeStatus.NEED_TASK)
            {
                runTasks();
            }
            else if (status == SSLEngineResult.HandshakeStatus.NEED_WRAP)
            {
                final ByteBuffer out = fillNetOut();
                final SSLEngineResult result;
                try
                {
                    result = engine.wrap(NOTHING, out);
                }
                finally
                {
                    out.flip();
                }
                if (result.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW)
                {
                    if (!drain())
                    {
                        wantWrite(true);
                        return; // resumed on OP_WRITE
                    }
                    continue;
                }
                if (result.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.FINISHED)
                {
                    wantWrite(!drain());
                    established();
                    return;
                }
                if (result.getStatus() == SSLEngineResult.Status.CLOSED)
                {
                    drain();
                    return;
                }
            }
            else if (status == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING && !established)
            {
                established(); // the last message was unwrapped and reported FINISHED there: not expected
                return;
            }
            else
            {
                break; // NEED_UNWRAP: the peer's turn
            }
        }
        wantWrite(!drain());
    }

    private void runTasks()
    {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null)
        {
            task.run(); // inline: a certificate check takes a fraction of a millisecond, a thread hop costs more
        }
    }

    private void established()
    {
        if (established)
        {
            return;
        }
        established = true;
        final SSLSession session = engine.getSession();
        identity = new PeerIdentity(remoteAddress(), chain(session), null, session.getProtocol());
        deliverSpare();
        if (!closed)
        {
            flush(); // frames committed during the handshake go now
        }
    }

    private static List<X509Certificate> chain(final SSLSession session)
    {
        try
        {
            final List<X509Certificate> chain = new ArrayList<>();
            for (final Certificate certificate : session.getPeerCertificates())
            {
                if (certificate instanceof X509Certificate x509)
                {
                    chain.add(x509);
                }
            }
            return chain;
        }
        catch (final SSLPeerUnverifiedException ex)
        {
            return List.of(); // the peer presented none (a client where the portal did not require one)
        }
    }

    /** Hands what the spare buffer holds to the assembler, in as many pieces as its buffer takes. */
    private void deliverSpare()
    {
        if (spare == null || !established)
        {
            return;
        }
        spare.flip();
        while (!closed && spare.hasRemaining())
        {
            assembler.feed(spare, handler);
        }
        if (!closed)
        {
            spare.clear();
        }
    }

    @Override
    protected void transmit(final ByteBuffer[] buffers, final int from, final int to) throws IOException
    {
        if (!established)
        {
            return; // frames wait for the handshake: established() flushes them
        }
        int index = from;
        try
        {
            while (drain())
            {
                while (index < to && !buffers[index].hasRemaining())
                {
                    index++;
                }
                if (index == to)
                {
                    break;
                }
                index = wrap(buffers, index, to);
            }
        }
        catch (final SSLException ex)
        {
            throw failure(ex);
        }
        transmitted(index);
        wantWrite(index < to || netOut != null && netOut.hasRemaining());
    }

    /** Wraps {@code buffers[from, to)} into records while the network buffer has room for one; the next index. */
    private int wrap(final ByteBuffer[] buffers, final int from, final int to) throws IOException
    {
        final int room = engine.getSession().getPacketBufferSize();
        final ByteBuffer out = fillNetOut();
        int index = from;
        try
        {
            while (index < to && out.remaining() >= room)
            {
                final SSLEngineResult result = engine.wrap(buffers, index, to - index, out);
                wrapped += result.bytesConsumed();
                if (result.bytesProduced() > 0)
                {
                    records.increment();
                }
                if (result.getStatus() == SSLEngineResult.Status.CLOSED)
                {
                    throw new ConnectionException("TLS connection to " + remoteAddress() + " is closing");
                }
                if (result.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK)
                {
                    runTasks();
                }
                while (index < to && !buffers[index].hasRemaining())
                {
                    index++;
                }
                if (result.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW || result.bytesConsumed() == 0)
                {
                    break;
                }
            }
        }
        finally
        {
            out.flip();
        }
        return index;
    }

    /** Writes what the network buffer holds; true when it is empty afterwards. */
    private boolean drain() throws IOException
    {
        if (netOut == null || !netOut.hasRemaining())
        {
            return true;
        }
        netOutList[0] = netOut;
        write(netOutList, 0, 1);
        return !netOut.hasRemaining();
    }

    /** The network buffer, compacted for wrapping into. */
    private ByteBuffer fillNetOut()
    {
        if (netOut == null)
        {
            netOutSlab = context.pool().acquire(Math.max(NET_OUT, 2 * engine.getSession().getPacketBufferSize()));
            netOut = netOutSlab.byteBuffer().duplicate();
            netOut.clear();
        }
        else
        {
            netOut.compact();
        }
        return netOut;
    }

    private ByteBuffer netIn()
    {
        if (netIn == null)
        {
            netInSlab = context.pool().acquire(Math.max(NET_IN, 2 * engine.getSession().getPacketBufferSize()));
            netIn = netInSlab.byteBuffer().duplicate();
            netIn.clear();
        }
        return netIn;
    }

    private ByteBuffer spare()
    {
        if (spare == null)
        {
            // On the heap: rarely used, and the assembler copies out of it.
            spare = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
        }
        return spare;
    }

    @Override
    protected long releasedPosition()
    {
        return wrapped;
    }

    @Override
    public void trim()
    {
        super.trim();
        if (!closed && netIn != null && netIn.position() == 0)
        {
            netInSlab.release();
            netInSlab = null;
            netIn = null;
        }
        if (!closed && netOut != null && !netOut.hasRemaining())
        {
            netOutSlab.release();
            netOutSlab = null;
            netOut = null;
            netOutList[0] = null;
        }
    }

    /** Sends close_notify (or the alert a failed handshake left), once and without waiting for the peer's. */
    @Override
    protected void closeChannel()
    {
        try
        {
            engine.closeOutbound();
            final ByteBuffer out = fillNetOut();
            try
            {
                for (int i = 0; i < 4 && !engine.isOutboundDone(); i++)
                {
                    if (engine.wrap(NOTHING, out).bytesProduced() == 0)
                    {
                        break;
                    }
                }
            }
            finally
            {
                out.flip();
            }
            channel.write(out);
        }
        catch (final IOException | RuntimeException ignore)
        {
            // best effort: the peer learns of the close from the socket anyway
        }
        if (netInSlab != null)
        {
            netInSlab.release();
            netInSlab = null;
            netIn = null;
        }
        if (netOutSlab != null)
        {
            netOutSlab.release();
            netOutSlab = null;
            netOut = null;
        }
        super.closeChannel();
    }

    private boolean presentedCertificate()
    {
        final SSLSession session = engine.getHandshakeSession() != null ? engine.getHandshakeSession() :
            engine.getSession();
        return session.getLocalCertificates() != null;
    }

    /** The connection's failure, with its reason in words: what the other side's certificate lacked, say. */
    private ConnectionException failure(final Exception ex)
    {
        if (ex instanceof ConnectionException connection)
        {
            return connection;
        }
        final String reason = TlsFailures.describe(ex, engine.getUseClientMode(), presentedCertificate());
        if (ex instanceof SSLException && !established)
        {
            return new io.xio.engine.TlsHandshakeException("TLS handshake with " + remoteAddress() + " failed: " +
                reason, ex);
        }
        return new ConnectionException("TLS connection to " + remoteAddress() + " failed: " + reason, ex);
    }
}
