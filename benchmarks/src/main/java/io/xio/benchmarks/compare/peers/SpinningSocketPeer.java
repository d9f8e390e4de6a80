package io.xio.benchmarks.compare.peers;

import io.xio.benchmarks.compare.CallLoop;
import io.xio.benchmarks.compare.Measurement;
import io.xio.benchmarks.compare.Peer;
import io.xio.benchmarks.compare.Workload;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The tcp floor: a busy-spinning NIO ping-pong. Both sides use non-blocking {@link SocketChannel}s with
 * TCP_NODELAY and direct buffers, no selector, and spin on {@code read} until the whole message is in; the server
 * answers each request (an echo, or the acknowledgement of a transfer) from one spinning thread per connection.
 * Nothing a library could do over the kernel's sockets is faster, so xio's tcp latency is compared with this. One
 * call outstanding; no variants. The server half's threads and the client's calling thread own their channels.
 */
public final class SpinningSocketPeer implements Peer
{
    @Override
    public Server serve(final String variant, final Workload workload) throws IOException
    {
        final ServerSocketChannel listener = ServerSocketChannel.open();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        final List<SocketChannel> connections = new CopyOnWriteArrayList<>();
        final Thread acceptor = new Thread(() ->
        {
            try
            {
                while (listener.isOpen())
                {
                    final SocketChannel channel = listener.accept(); // blocking: accepting is not measured
                    configure(channel);
                    connections.add(channel);
                    final Thread worker = new Thread(() -> answer(channel, workload), "spin-socket-server");
                    worker.setDaemon(true);
                    worker.start();
                }
            }
            catch (final IOException ex)
            {
                // closed: the run is over
            }
        }, "spin-socket-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        final int port = ((InetSocketAddress)listener.getLocalAddress()).getPort();
        return new Server()
        {
            @Override
            public String address()
            {
                return String.valueOf(port);
            }

            @Override
            public void close() throws IOException
            {
                listener.close();
                for (final SocketChannel channel : connections)
                {
                    channel.close();
                }
            }
        };
    }

    private static void answer(final SocketChannel channel, final Workload workload)
    {
        final ByteBuffer request = ByteBuffer.allocateDirect(workload.requestBytes());
        final ByteBuffer response = workload.isEcho() ? request : ByteBuffer.allocateDirect(workload.responseBytes());
        try (channel)
        {
            while (true)
            {
                request.clear();
                if (!readFully(channel, request))
                {
                    return;
                }
                response.clear();
                writeFully(channel, response);
            }
        }
        catch (final IOException ex)
        {
            // the client went away
        }
    }

    @Override
    public Measurement run(final String variant, final String address, final Workload workload) throws Exception
    {
        if (workload.outstanding() != 1)
        {
            throw new IllegalArgumentException("spin-socket is a ping-pong: 1 outstanding only");
        }
        try (SocketChannel channel = SocketChannel.open())
        {
            channel.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(address)));
            configure(channel);
            final ByteBuffer request = ByteBuffer.allocateDirect(workload.requestBytes());
            final ByteBuffer response = ByteBuffer.allocateDirect(workload.responseBytes());
            return CallLoop.blocking(workload, () ->
            {
                request.clear();
                writeFully(channel, request);
                response.clear();
                if (!readFully(channel, response))
                {
                    throw new IOException("server closed the connection");
                }
            }, () -> Double.NaN);
        }
    }

    private static void configure(final SocketChannel channel) throws IOException
    {
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }

    /** Spins on {@code read} until {@code into} is full; false at end of stream. */
    private static boolean readFully(final SocketChannel channel, final ByteBuffer into) throws IOException
    {
        while (into.hasRemaining())
        {
            if (channel.read(into) < 0)
            {
                return false;
            }
        }
        return true;
    }

    /** Spins on {@code write} (a full socket buffer takes 0 bytes) until all of {@code from} is out. */
    private static void writeFully(final SocketChannel channel, final ByteBuffer from) throws IOException
    {
        while (from.hasRemaining())
        {
            channel.write(from);
        }
    }
}
