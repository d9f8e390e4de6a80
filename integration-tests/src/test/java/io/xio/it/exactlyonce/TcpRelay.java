package io.xio.it.exactlyonce;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay in front of one server: accepts on 127.0.0.1 (a free port) and forwards each connection, both ways, to
 * the server's port; {@link #retarget} points new connections at another port (a restarted server's), so that the
 * relay stays the server's address for clients. {@link #pause()} makes a partition: nothing more is forwarded in
 * either direction, neither bytes nor the end of a connection, and no socket is closed, so that each side sees only
 * silence (new connections are accepted and held the same way); {@link #resume()} delivers what was held and goes on.
 * A connection whose server is gone (killed) is closed on the client's side, as the server's own close would be.
 * Thread-safe; two threads per connection, one per direction.
 */
final class TcpRelay implements AutoCloseable
{
    private static final int BUFFER_BYTES = 64 * 1024;

    private final String name;
    private volatile int target;
    private final ServerSocket listener;
    private final Thread acceptor;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Set<Thread> pumps = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    private boolean paused;
    private volatile boolean closed;

    /** Listens at once; forwards to {@code targetPort} on 127.0.0.1. */
    TcpRelay(final String name, final int targetPort) throws IOException
    {
        this.name = name;
        this.target = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::accept, "relay-" + name + "-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The port on 127.0.0.1 clients connect to. */
    int port()
    {
        return listener.getLocalPort();
    }

    /** Forwards connections accepted from now on to {@code targetPort} on 127.0.0.1; those relayed carry on. */
    void retarget(final int targetPort)
    {
        target = targetPort;
    }

    /** Stops forwarding in both directions, closing nothing: a partition. */
    void pause()
    {
        synchronized (gate)
        {
            paused = true;
        }
    }

    /** Forwards again, what was held first. */
    void resume()
    {
        synchronized (gate)
        {
            paused = false;
            gate.notifyAll();
        }
    }

    private void accept()
    {
        while (!closed)
        {
            final Socket client;
            try
            {
                client = listener.accept();
            }
            catch (final IOException ex)
            {
                return; // closed
            }
            sockets.add(client);
            final Socket server = new Socket();
            sockets.add(server);
            try
            {
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 5_000);
            }
            catch (final IOException ex)
            {
                // The server is down: the client learns it as it would without the relay, once forwarding is on.
                startPump("refused", () -> closeBoth(client, server));
                continue;
            }
            startPump("to-server", () -> pump(client, server));
            startPump("to-client", () -> pump(server, client));
        }
    }

    private void startPump(final String direction, final Runnable body)
    {
        final Thread pump = new Thread(() ->
        {
            try
            {
                body.run();
            }
            finally
            {
                pumps.remove(Thread.currentThread());
            }
        }, "relay-" + name + "-" + direction);
        pump.setDaemon(true);
        pumps.add(pump);
        pump.start();
    }

    /** Copies {@code from} to {@code to} while the relay forwards; the end of either closes both. */
    private void pump(final Socket from, final Socket to)
    {
        final byte[] buffer = new byte[BUFFER_BYTES];
        try
        {
            final InputStream in = from.getInputStream();
            final OutputStream out = to.getOutputStream();
            int read;
            while ((read = in.read(buffer)) >= 0)
            {
                if (!awaitForwarding())
                {
                    break;
                }
                out.write(buffer, 0, read);
            }
        }
        catch (final IOException ex)
        {
            // A reset or a close on either side: passed on below, as the end of the connection.
        }
        closeBoth(from, to);
    }

    /** Closes a relayed connection, once forwarding is on: a partition hides a connection's end too. */
    private void closeBoth(final Socket a, final Socket b)
    {
        awaitForwarding();
        closeQuietly(a);
        closeQuietly(b);
    }

    /** Waits while paused; false once the relay closed. */
    private boolean awaitForwarding()
    {
        synchronized (gate)
        {
            while (paused && !closed)
            {
                try
                {
                    gate.wait();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return !closed;
    }

    private void closeQuietly(final Socket socket)
    {
        sockets.remove(socket);
        try
        {
            socket.close();
        }
        catch (final IOException ex)
        {
            // Nothing to do about it: the socket is gone either way.
        }
    }

    /** Stops listening, closes every relayed connection and waits for its threads. */
    @Override
    public void close() throws InterruptedException
    {
        closed = true;
        resume();
        try
        {
            listener.close();
        }
        catch (final IOException ex)
        {
            // Closing it is all that was asked.
        }
        acceptor.join(10_000); // after its last accept, so that no socket comes after the sweep
        for (final Socket socket : new ArrayList<>(sockets))
        {
            closeQuietly(socket);
        }
        final List<Thread> left = new ArrayList<>(pumps);
        for (final Thread pump : left)
        {
            pump.join(5_000);
        }
    }

    @Override
    public String toString()
    {
        return "relay " + name + " 127.0.0.1:" + port() + " -> 127.0.0.1:" + target;
    }
}
