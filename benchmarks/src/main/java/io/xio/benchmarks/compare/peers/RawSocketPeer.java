package io.xio.benchmarks.compare.peers;

import io.xio.benchmarks.compare.CallLoop;
import io.xio.benchmarks.compare.Measurement;
import io.xio.benchmarks.compare.Peer;
import io.xio.benchmarks.compare.Workload;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Plain blocking {@link Socket}s with TCP_NODELAY: the client writes a request and reads the whole response, a
 * server thread per connection does the opposite. The floor a Java user gets without any library. One call
 * outstanding; no variants.
 */
public final class RawSocketPeer implements Peer
{
    @Override
    public Server serve(final String variant, final Workload workload) throws IOException
    {
        final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final List<Socket> connections = new CopyOnWriteArrayList<>();
        final Thread acceptor = new Thread(() ->
        {
            try
            {
                while (!listener.isClosed())
                {
                    final Socket socket = listener.accept();
                    socket.setTcpNoDelay(true);
                    connections.add(socket);
                    final Thread worker = new Thread(() -> answer(socket, workload), "raw-socket-server");
                    worker.setDaemon(true);
                    worker.start();
                }
            }
            catch (final IOException ex)
            {
                // closed: the run is over
            }
        }, "raw-socket-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        return new Server()
        {
            @Override
            public String address()
            {
                return String.valueOf(listener.getLocalPort());
            }

            @Override
            public void close() throws IOException
            {
                listener.close();
                for (final Socket socket : connections)
                {
                    socket.close();
                }
            }
        };
    }

    private static void answer(final Socket socket, final Workload workload)
    {
        final byte[] request = new byte[workload.requestBytes()];
        final byte[] response = workload.isEcho() ? request : new byte[workload.responseBytes()];
        try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream())
        {
            while (true)
            {
                if (!readFully(in, request))
                {
                    return;
                }
                out.write(response);
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
            throw new IllegalArgumentException("raw-socket is a ping-pong: 1 outstanding only");
        }
        try (Socket socket = new Socket())
        {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(address)));
            final InputStream in = socket.getInputStream();
            final OutputStream out = socket.getOutputStream();
            final byte[] request = new byte[workload.requestBytes()];
            final byte[] response = new byte[workload.responseBytes()];
            return CallLoop.blocking(workload, () ->
            {
                out.write(request);
                if (!readFully(in, response))
                {
                    throw new IOException("server closed the connection");
                }
            }, () -> Double.NaN);
        }
    }

    private static boolean readFully(final InputStream in, final byte[] into) throws IOException
    {
        int read = 0;
        while (read < into.length)
        {
            final int n = in.read(into, read, into.length - read);
            if (n < 0)
            {
                return false;
            }
            read += n;
        }
        return true;
    }
}
