package io.xio.engine.transport.tcp;

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
 * A TCP relay on loopback that tests put between client and server to fail the network on purpose: drop
 * every connection at once (a reset, as when a cable is pulled), or silence them while keeping them open (a
 * peer that hangs, which only keepalive notices). Closes all its threads and sockets on {@link #close()}.
 */
final class TcpProxy implements AutoCloseable
{
    private final ServerSocket listener;
    private final int targetPort;
    private final List<Pair> pairs = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    private final class Pair
    {
        final Socket client;
        final Socket server;
        volatile boolean silenced;

        Pair(final Socket client, final Socket server)
        {
            this.client = client;
            this.server = server;
        }

        void pump(final Socket from, final Socket to)
        {
            final byte[] buffer = new byte[64 << 10];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream())
            {
                int n;
                while ((n = in.read(buffer)) >= 0)
                {
                    if (!silenced)
                    {
                        out.write(buffer, 0, n);
                    }
                }
            }
            catch (final IOException ignore)
            {
                // dropped on purpose or closed by a peer
            }
            finally
            {
                reset();
            }
        }

        void reset()
        {
            closeWithReset(client);
            closeWithReset(server);
            pairs.remove(this);
        }
    }

    TcpProxy(final int targetPort) throws IOException
    {
        this.targetPort = targetPort;
        listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        start("proxy-accept", this::acceptLoop);
    }

    int port()
    {
        return listener.getLocalPort();
    }

    private void acceptLoop()
    {
        while (!closed)
        {
            try
            {
                final Socket client = listener.accept();
                final Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                final Pair pair = new Pair(client, server);
                pairs.add(pair);
                start("proxy-up", () -> pair.pump(client, server));
                start("proxy-down", () -> pair.pump(server, client));
            }
            catch (final IOException ex)
            {
                if (!closed)
                {
                    continue;
                }
                return;
            }
        }
    }

    private void start(final String name, final Runnable body)
    {
        final Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }

    /** Resets every relayed connection now; new ones are still accepted. */
    int dropAll()
    {
        final int count = pairs.size();
        pairs.forEach(Pair::reset);
        return count;
    }

    /** Resets one relayed connection, picked at random; whether there was one. */
    boolean dropOne(final java.util.Random random)
    {
        final List<Pair> open = List.copyOf(pairs);
        if (open.isEmpty())
        {
            return false;
        }
        open.get(random.nextInt(open.size())).reset();
        return true;
    }

    /** Stops forwarding on the connections open now, without closing them. */
    void silenceAll()
    {
        pairs.forEach(pair -> pair.silenced = true);
    }

    private static void closeWithReset(final Socket socket)
    {
        try
        {
            socket.setSoLinger(true, 0);
            socket.close();
        }
        catch (final IOException ignore)
        {
            // already closed
        }
    }

    @Override
    public void close() throws InterruptedException
    {
        closed = true;
        try
        {
            listener.close();
        }
        catch (final IOException ignore)
        {
            // closing anyway
        }
        dropAll();
        for (final Thread thread : threads)
        {
            thread.join(5_000);
        }
    }
}
