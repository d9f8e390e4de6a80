package io.xio.engine.transport.tls;

import io.xio.engine.ConnectionException;
import io.xio.engine.PeerIdentity;
import io.xio.engine.TlsHandshakeException;
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
import java.util.function.Supplier;

/**
 * A TLS connection end: a {@link TcpLink} whose bytes pass through an {@link SSLEngine} on the context thread,
 * with no thread of its own and no blocking handshake (delegated tasks run inline). The engine is made when the
 * link starts, so a socket refused before (connection limits) costs no TLS state and no handshake. The handshake
 * runs as the socket becomes readable or writable; frames committed before it completes wait, and nothing is
 * delivered before it. Outbound, a loop turn's gather list is wrapped into as few records as it fills (a wrap takes
 * from several buffers at once, up to 16 KiB a record) in one network buffer, written with one write; plaintext is
 * released once wrapped, since the ciphertext is a copy. Inbound, records are unwrapped straight into the frame
 * assembler's buffer, so frames arrive validated as on tcp. A renegotiation (TLS 1.2) closes the connection; TLS 1.3
 * key updates are answered. Close sends close_notify without waiting for the peer's. Network buffers come from the
 * context's pool only while they hold bytes: an idle connection holds none. Owner context thread only.
 */
final class TlsLink extends TcpLink
{
    /** Room for a few full records each way: a turn's small frames leave in one write. */
    private static final int NET_IN = 64 << 10;
    private static final int NET_OUT = 256 << 10;
    private static final ByteBuffer[] NOTHING = {};
    private static final String TLS13 = "TLSv1.3";

    private final Supplier<SSLEngine> engines;
    private final LongAdder records;
    /** Null until {@link #start}: made only for a connection that was admitted. */
    private SSLEngine engine;
    /** Ciphertext read and not yet unwrapped, in {@code [0, position)}. */
    private final Held netIn;
    /** Ciphertext wrapped and not yet written, in {@code [position, limit)}. */
    private final Held netOut;
    /** Plaintext of a record that did not fit the assembler's buffer, in {@code [0, position)}; held in unwraps. */
    private final Held spare;
    /** {@link #netOut} as a gather list of one, for {@link #write}. */
    private final ByteBuffer[] netOutList = new ByteBuffer[1];
    /** When the first bytes of the incomplete record in {@link #netIn} arrived; 0 when it holds none. */
    private long netInSince;
    /** Plaintext stream position wrapped: what the socket's buffers no longer need. */
    private long wrapped;
    /** When ciphertext last went to the socket, or bytes were queued while nothing was pending. */
    private long progressNanos;
    private boolean established;
    /** Whether the peer sent application data yet: a fatal alert before that is the handshake's failure. */
    private boolean receivedData;
    private PeerIdentity identity;
    /** Sizes from the engine's session before the handshake, the largest it will need. */
    private int netInCapacity;
    private int netOutCapacity;
    private int spareCapacity;

    /**
     * @param engines makes the link's SSLEngine when it starts (asks the TLS options' context then)
     * @param records counts the records wrapped
     * @param held counts the network buffers links hold
     */
    TlsLink(final TransportContext context, final SocketChannel channel, final Supplier<SSLEngine> engines,
        final LongAdder records, final LongAdder held) throws IOException
    {
        super(context, channel, "tls");
        this.engines = engines;
        this.records = records;
        this.netIn = new Held(held);
        this.netOut = new Held(held);
        this.spare = new Held(held);
    }

    @Override
    public void start(final LinkHandler handler)
    {
        super.start(handler);
        if (closed)
        {
            return;
        }
        progressNanos = context.nanoTime();
        try
        {
            engine = engines.get();
            final SSLSession session = engine.getSession();
            netInCapacity = Math.max(NET_IN, 2 * session.getPacketBufferSize());
            netOutCapacity = Math.max(NET_OUT, 2 * session.getPacketBufferSize());
            spareCapacity = session.getApplicationBufferSize();
            engine.beginHandshake();
            handshake();
        }
        catch (final IOException | RuntimeException ex)
        {
            close(engine == null ? new ConnectionException("TLS connection to " + remoteAddress() + " not started: " +
                "its TLS options made no SSLEngine: " + ex.getMessage(), ex) : failure(ex));
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
            final SSLEngineResult.HandshakeStatus status = engine.getHandshakeStatus();
            // Not only during the handshake: the answer to a key update may have waited for room in netOut.
            if (!established || status == SSLEngineResult.HandshakeStatus.NEED_WRAP ||
                status == SSLEngineResult.HandshakeStatus.NEED_TASK)
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
    protected boolean readsDirectly()
    {
        return false; // each read takes an input buffer from the pool
    }

    @Override
    protected void read() throws IOException
    {
        try
        {
            // Bounded per turn so one busy peer cannot starve the others on this context.
            for (int i = 0; i < 16 && !closed; i++)
            {
                final ByteBuffer in = netIn.acquire(netInCapacity);
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
                    netIn.releaseIfEmpty();
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
        final ByteBuffer in = netIn.buffer;
        in.flip();
        boolean consumed = false;
        try
        {
            boolean viaSpare = false;
            while (!closed && in.hasRemaining())
            {
                final ByteBuffer target = viaSpare || !established ? spare() : assembler.writable();
                final SSLEngineResult result = engine.unwrap(in, target);
                consumed |= result.bytesConsumed() > 0;
                switch (result.getStatus())
                {
                    case OK ->
                    {
                        if (established && renegotiation(result))
                        {
                            // Each one a full handshake on the context thread, as often as the peer likes, and the
                            // identity the session saw would stay the first one's: xio never renegotiates.
                            throw new TlsHandshakeException("TLS connection to " + remoteAddress() + " closed: the " +
                                "peer asked for a " + identity.tlsProtocol() + " renegotiation, which is refused",
                                null);
                        }
                        viaSpare = false;
                        receivedData |= result.bytesProduced() > 0;
                        if (target == spare.buffer)
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
                        if (target == spare.buffer)
                        {
                            throw new SSLException("a record of more than " + target.capacity() + " bytes");
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
            if (!closed)
            {
                in.compact();
                if (in.position() == 0)
                {
                    netIn.release();
                    netInSince = 0;
                }
                else if (consumed || netInSince == 0)
                {
                    netInSince = context.nanoTime(); // what is left is a record that began in this read
                }
                // Empty once established (delivered above); during the handshake records carry no application data.
                spare.releaseIfEmpty();
            }
        }
    }

    /** Whether {@code result} of an unwrap after the handshake started another one: TLS 1.2 renegotiation. */
    private boolean renegotiation(final SSLEngineResult result)
    {
        final SSLEngineResult.HandshakeStatus status = result.getHandshakeStatus();
        return status != SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING &&
            status != SSLEngineResult.HandshakeStatus.FINISHED && !TLS13.equals(identity.tlsProtocol());
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
            if (status == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING && !established)
            {
                established(); // the tasks finished it: no FINISHED is reported then
                return true;
            }
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
                final ByteBuffer out = fillNetOut(netOutCapacity);
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

    /** Hands what the spare buffer holds to the assembler, in as many pieces as its buffer takes, and lets it go. */
    private void deliverSpare()
    {
        final ByteBuffer plain = spare.buffer;
        if (plain == null || !established)
        {
            return;
        }
        plain.flip();
        while (!closed && plain.hasRemaining())
        {
            assembler.feed(plain, handler);
        }
        if (!closed)
        {
            plain.clear();
            spare.release();
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
        wantWrite(index < to || netOut.buffer != null && netOut.buffer.hasRemaining());
    }

    /** Wraps {@code buffers[from, to)} into records while the network buffer has room for one; the next index. */
    private int wrap(final ByteBuffer[] buffers, final int from, final int to) throws IOException
    {
        final int room = engine.getSession().getPacketBufferSize();
        final ByteBuffer out = fillNetOut(netOutCapacity);
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

    /** Writes what the network buffer holds, giving the buffer back once it is empty; true when it is. */
    private boolean drain() throws IOException
    {
        final ByteBuffer out = netOut.buffer;
        if (out == null)
        {
            return true;
        }
        final int before = out.remaining();
        if (before > 0)
        {
            netOutList[0] = out;
            write(netOutList, 0, 1);
            netOutList[0] = null;
            if (out.remaining() < before)
            {
                progressNanos = context.nanoTime(); // the peer reads: what the write-stall limit watches
            }
        }
        if (out.hasRemaining())
        {
            return false;
        }
        netOut.release();
        return true;
    }

    /** The network buffer, compacted for wrapping into; taken from the pool (at least {@code capacity}) if none. */
    private ByteBuffer fillNetOut(final int capacity)
    {
        if (netOut.buffer == null)
        {
            return netOut.acquire(capacity);
        }
        return netOut.buffer.compact();
    }

    private ByteBuffer spare()
    {
        return spare.acquire(spareCapacity);
    }

    @Override
    protected long releasedPosition()
    {
        return wrapped;
    }

    /** Unsent ciphertext counts too: it is what a peer that stopped reading leaves behind once all was wrapped. */
    @Override
    public long backlog()
    {
        final ByteBuffer out = netOut.buffer;
        return super.backlog() + (out != null ? out.remaining() : 0);
    }

    /**
     * When ciphertext last reached the socket (or bytes were queued with nothing pending): wrapping is not the
     * peer's progress, a write is.
     */
    @Override
    public long lastWriteProgressNanos()
    {
        return progressNanos;
    }

    @Override
    public void commit()
    {
        if (!closed && backlog() == 0)
        {
            progressNanos = context.nanoTime(); // nothing was waiting: the write-stall clock starts now
        }
        super.commit();
    }

    /** Counts the bytes of an incomplete record too, which the assembler has not seen yet. */
    @Override
    public long incompleteFrameSince()
    {
        final long frame = super.incompleteFrameSince();
        return frame == 0 ? netInSince : netInSince == 0 ? frame : Math.min(frame, netInSince);
    }

    @Override
    public long incompleteFrameBytes()
    {
        final ByteBuffer in = netIn.buffer;
        return super.incompleteFrameBytes() + (in != null ? in.position() : 0);
    }

    @Override
    public void trim()
    {
        super.trim();
        if (!closed)
        {
            netIn.forget();
            netOut.forget();
            spare.forget();
        }
    }

    /** Sends close_notify (or the alert a failed handshake left), once and without waiting for the peer's. */
    @Override
    protected void closeChannel()
    {
        if (engine != null) // none for a socket refused before it started: nothing to say, no buffer to take
        {
            try
            {
                engine.closeOutbound();
                final ByteBuffer out = fillNetOut(engine.getSession().getPacketBufferSize());
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
        }
        netIn.release();
        netOut.release();
        spare.release();
        netIn.forget();
        netOut.forget();
        spare.forget();
        super.closeChannel();
    }

    /** Whether this end presented a certificate in the handshake. */
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
        // A TLS 1.3 client is done with the handshake before the server has checked its certificate: the server's
        // refusal is an alert after it, and still the handshake's failure.
        if (ex instanceof SSLException && (!established || engine.getUseClientMode() && !receivedData))
        {
            return new TlsHandshakeException("TLS handshake with " + remoteAddress() + " failed: " + reason, ex);
        }
        return new ConnectionException("TLS connection to " + remoteAddress() + " failed: " + reason, ex);
    }

    /**
     * A network buffer from the context's pool, held only while it holds bytes. The view of the last slab is kept
     * until the next {@link #forget} (each trim), so taking the same slab again, as the pool's last-in-first-out
     * order makes likely, costs no new ByteBuffer.
     */
    private final class Held
    {
        private final LongAdder held;
        private Slab slab;
        /** The buffer while held; null otherwise. */
        ByteBuffer buffer;
        private Slab viewOf;
        private ByteBuffer view;

        Held(final LongAdder held)
        {
            this.held = held;
        }

        /** The buffer, taken (cleared) from the pool if not held; at least {@code capacity} bytes then. */
        ByteBuffer acquire(final int capacity)
        {
            if (buffer == null)
            {
                slab = context.pool().acquire(capacity);
                if (viewOf != slab)
                {
                    view = slab.byteBuffer().duplicate();
                    viewOf = slab;
                }
                buffer = view.clear();
                held.increment();
            }
            return buffer;
        }

        void releaseIfEmpty()
        {
            if (buffer != null && buffer.position() == 0)
            {
                release();
            }
        }

        void release()
        {
            if (buffer != null)
            {
                buffer = null;
                slab.release();
                slab = null;
                held.decrement();
            }
        }

        /** Drops the kept view while nothing is held: no view may keep a slab the pool let go of reachable. */
        void forget()
        {
            if (buffer == null)
            {
                viewOf = null;
                view = null;
            }
        }
    }
}
