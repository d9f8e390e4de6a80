package io.xio.engine.hostile;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * The client end of TLS on a blocking socket, through an {@link SSLEngine} driven by hand, so that a {@link RawPeer}
 * speaks frames over it and a test may do what an {@code SSLSocket} would not: send a record's bytes one at a time,
 * renegotiate, ask for a key update. A fatal alert or close_notify from the server reads as the end of the stream.
 * Not thread-safe; one test thread drives it.
 */
final class TlsStreams
{
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

    private final SSLEngine engine;
    private final InputStream rawIn;
    private final OutputStream rawOut;
    /** Ciphertext read, not yet unwrapped: {@code [0, position)}. */
    private final ByteBuffer netIn;
    /** Plaintext unwrapped, not yet read: {@code [position, limit)}. */
    private final ByteBuffer appIn;
    private final ByteBuffer netOut;

    /** Handshakes over {@code socket} (connected) as a client of {@code context}, offering {@code protocols}. */
    TlsStreams(final Socket socket, final SSLContext context, final List<String> protocols) throws IOException
    {
        engine = context.createSSLEngine("127.0.0.1", socket.getPort());
        engine.setUseClientMode(true);
        engine.setEnabledProtocols(protocols.toArray(String[]::new));
        rawIn = socket.getInputStream();
        rawOut = socket.getOutputStream();
        netIn = ByteBuffer.allocate(4 * engine.getSession().getPacketBufferSize());
        appIn = ByteBuffer.allocate(4 * engine.getSession().getApplicationBufferSize()).flip();
        netOut = ByteBuffer.allocate(4 * engine.getSession().getPacketBufferSize());
        engine.beginHandshake();
        handshake();
    }

    /** The negotiated protocol, such as {@code TLSv1.3}. */
    String protocol()
    {
        return engine.getSession().getProtocol();
    }

    /**
     * Starts another handshake on the established connection: a renegotiation in TLS 1.2, a key update (asking
     * the server for one too) in TLS 1.3; returns once this end sent what it had to.
     */
    void rehandshake() throws IOException
    {
        engine.beginHandshake();
        handshake();
    }

    /** Sends close_notify: the orderly end of a TLS connection. */
    void closeNotify() throws IOException
    {
        engine.closeOutbound();
        netOut.clear();
        engine.wrap(NOTHING, netOut);
        sendRaw(Arrays.copyOf(netOut.array(), netOut.position()));
    }

    /** {@code plaintext} as the records this end would send, without sending them. */
    byte[] seal(final byte[] plaintext) throws IOException
    {
        final ByteBuffer src = ByteBuffer.wrap(plaintext);
        final ByteBuffer sealed = ByteBuffer.allocate(plaintext.length + 1024 + 2 * netOut.capacity());
        while (src.hasRemaining())
        {
            netOut.clear();
            final SSLEngineResult result = engine.wrap(src, netOut);
            if (result.getStatus() != SSLEngineResult.Status.OK)
            {
                throw new SSLException("wrap: " + result);
            }
            sealed.put(netOut.flip());
        }
        return Arrays.copyOf(sealed.array(), sealed.position());
    }

    /** Sends bytes as they are, past TLS: ciphertext from {@link #seal}, or anything else. */
    void sendRaw(final byte[] bytes) throws IOException
    {
        rawOut.write(bytes);
        rawOut.flush();
    }

    InputStream input()
    {
        return new InputStream()
        {
            @Override
            public int read() throws IOException
            {
                final byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
            }

            @Override
            public int read(final byte[] b, final int off, final int len) throws IOException
            {
                if (len == 0)
                {
                    return 0;
                }
                while (!appIn.hasRemaining())
                {
                    receive();
                }
                final int n = Math.min(len, appIn.remaining());
                appIn.get(b, off, n);
                return n;
            }
        };
    }

    OutputStream output()
    {
        return new OutputStream()
        {
            @Override
            public void write(final int b) throws IOException
            {
                write(new byte[] {(byte)b}, 0, 1);
            }

            @Override
            public void write(final byte[] b, final int off, final int len) throws IOException
            {
                sendRaw(seal(Arrays.copyOfRange(b, off, off + len)));
            }
        };
    }

    /** Drives the handshake until it is this end's turn no more. */
    private void handshake() throws IOException
    {
        while (true)
        {
            switch (engine.getHandshakeStatus())
            {
                case NEED_WRAP ->
                {
                    netOut.clear();
                    final SSLEngineResult result = engine.wrap(NOTHING, netOut);
                    sendRaw(Arrays.copyOf(netOut.array(), netOut.position()));
                    if (result.getStatus() == SSLEngineResult.Status.CLOSED)
                    {
                        throw new EOFException("TLS closed during the handshake");
                    }
                }
                case NEED_TASK -> runTasks();
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> receive();
                default ->
                {
                    return;
                }
            }
        }
    }

    /** Unwraps one record, reading more of the socket first when none is whole. */
    private void receive() throws IOException
    {
        final SSLEngineResult result;
        netIn.flip();
        appIn.compact();
        try
        {
            result = engine.unwrap(netIn, appIn);
        }
        catch (final SSLException alert)
        {
            throw (EOFException)new EOFException("TLS ended: " + alert.getMessage()).initCause(alert);
        }
        finally
        {
            netIn.compact();
            appIn.flip();
        }
        switch (result.getStatus())
        {
            case BUFFER_UNDERFLOW ->
            {
                final int n = rawIn.read(netIn.array(), netIn.position(), netIn.remaining());
                if (n < 0)
                {
                    throw new EOFException("closed by the server");
                }
                netIn.position(netIn.position() + n);
            }
            case CLOSED -> throw new EOFException("TLS close_notify from the server");
            case BUFFER_OVERFLOW -> throw new IllegalStateException("no room for the plaintext: read more of it");
            default ->
            {
                // OK: a record unwrapped
            }
        }
        if (result.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK ||
            result.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP)
        {
            handshake(); // a key update to answer, a session ticket's tasks
        }
    }

    private void runTasks()
    {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null)
        {
            task.run();
        }
    }
}
