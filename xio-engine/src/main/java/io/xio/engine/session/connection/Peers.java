package io.xio.engine.session.connection;

import io.xio.engine.ConnectionException;
import io.xio.engine.XioUri;
import io.xio.engine.context.EventLoop;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.session.EngineCore;
import io.xio.engine.session.SessionImpl;
import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportLink;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One context's connections: outbound ones by peer address (so sessions to the same peer reuse a
 * connection), accepted ones, and the keepalive that watches them all. Owner context thread only.
 */
public final class Peers
{
    final EngineCore engine;
    public final EventLoop loop;
    private final Map<String, Connection> outbound = new HashMap<>();
    private final Map<String, Dialing> dialing = new HashMap<>();
    private final List<Connection> all = new ArrayList<>();
    private final Runnable keepalive = this::keepalive;
    /** Server sessions waiting for their client to come back, by deadline (one linger time, so in order). */
    private final java.util.ArrayDeque<Lingering> lingering = new java.util.ArrayDeque<>();
    private final Runnable expireLingering = this::expireLingering;
    private long lingerTimer = -1;
    /** Numbers the connections of sessions with TLS options of their own, which share no connection. */
    private long ownTlsDials;

    /** A server session without connections, and the epoch at which it lost them. */
    private record Lingering(long deadline, SessionImpl session, long epoch)
    {
    }

    /** A connect in progress and who waits for it. */
    private static final class Dialing
    {
        final List<Consumer<Connection>> onReady = new ArrayList<>();
        final List<Consumer<Throwable>> onFail = new ArrayList<>();
        Runnable abort;
        long timer;
    }

    public Peers(final EngineCore engine, final EventLoop loop)
    {
        this.engine = engine;
        this.loop = loop;
    }

    /**
     * An open connection to {@code address}'s endpoint, new or reused. A session with TLS options of its own
     * ({@code tls}, not the engine's) gets a connection of its own: one shared would carry another session's
     * client certificate.
     */
    public void connect(final XioUri address, final int slot, final io.xio.engine.TlsOptions tls,
        final Consumer<Connection> onReady, final Consumer<Throwable> onFail)
    {
        final XioUri endpoint = address.endpoint();
        final io.xio.engine.TlsOptions options = tls != null ? tls : engine.tls;
        final String shared = slot == 0 ? endpoint.toString() : endpoint + "#" + slot;
        final String key = options == engine.tls ? shared : shared + "#own-tls-" + ++ownTlsDials;
        final Connection existing = outbound.get(key);
        if (existing != null && existing.isOpen())
        {
            onReady.accept(existing);
            return;
        }
        final Dialing waiting = dialing.get(key);
        if (waiting != null)
        {
            waiting.onReady.add(onReady);
            waiting.onFail.add(onFail);
            return;
        }
        final Transport transport;
        try
        {
            transport = engine.transport(endpoint.scheme());
        }
        catch (final RuntimeException ex)
        {
            onFail.accept(ex);
            return;
        }
        final Dialing dial = new Dialing();
        dial.onReady.add(onReady);
        dial.onFail.add(onFail);
        dialing.put(key, dial);
        dial.timer = loop.schedule(loop.nanoTime() + engine.connectTimeout.toNanos(), () ->
        {
            if (dialing.remove(key, dial))
            {
                if (dial.abort != null)
                {
                    dial.abort.run();
                }
                dial.onFail.forEach(f -> f.accept(new ConnectionException(
                    "cannot connect to " + endpoint + ": no answer within " + engine.connectTimeout)));
            }
        });
        try
        {
            dial.abort = dial(transport, endpoint, key, options, dial);
        }
        catch (final RuntimeException ex)
        {
            if (dialing.remove(key, dial))
            {
                loop.cancelTimer(dial.timer);
                dial.onFail.forEach(f -> f.accept(new ConnectionException("cannot connect to " + endpoint + ": " +
                    ex.getMessage(), ex)));
            }
        }
    }

    private Runnable dial(final Transport transport, final XioUri endpoint, final String key,
        final io.xio.engine.TlsOptions tls, final Dialing dial)
    {
        return transport.connect(endpoint, loop, tls, new Transport.ConnectCallback()
        {
            @Override
            public void onConnected(final TransportLink link)
            {
                final Connection connection = new Connection(engine, Peers.this, link, endpoint, key, null);
                if (!dialing.remove(key, dial))
                {
                    connection.start();
                    connection.close(null);
                    return;
                }
                loop.cancelTimer(dial.timer);
                outbound.put(key, connection);
                connection.start();
                dial.onReady.forEach(r -> r.accept(connection));
            }

            @Override
            public void onFailed(final Throwable cause)
            {
                if (dialing.remove(key, dial))
                {
                    loop.cancelTimer(dial.timer);
                    dial.onFail.forEach(f -> f.accept(cause));
                }
            }
        });
    }

    void added(final Connection connection)
    {
        all.add(connection);
    }

    void removed(final Connection connection)
    {
        all.remove(connection);
        if (connection.key() != null)
        {
            outbound.remove(connection.key(), connection);
        }
    }

    public void startKeepalive()
    {
        loop.schedule(loop.nanoTime() + sweepInterval(), keepalive);
    }

    /** Often enough for the keepalive and for each of the limits on time to be enforced within half of it. */
    private long sweepInterval()
    {
        final io.xio.engine.Limits limits = engine.limits;
        final long shortest = Math.min(limits.handshakeTimeout().toNanos(), Math.min(
            limits.writeStallTimeout().toNanos(), limits.incompleteFrameTimeout().toNanos())) / 2;
        return Math.max(10_000_000L, Math.min(engine.keepaliveInterval.toNanos(), shortest));
    }

    /** The sweep: keepalives, the keepalive timeout, and each connection's limits on time. */
    private void keepalive()
    {
        final long now = loop.nanoTime();
        final long interval = engine.keepaliveInterval.toNanos();
        final long timeout = engine.keepaliveTimeout.toNanos();
        for (final Connection connection : new ArrayList<>(all))
        {
            if (now - Math.max(connection.lastReceived(), connection.link.lastReceiveNanos()) > timeout)
            {
                connection.close(new ConnectionException("no frames from " + connection.remoteAddress() +
                    " for " + engine.keepaliveTimeout + " (keepalive timeout)"));
                continue;
            }
            connection.checkTimeouts(now);
            if (connection.isOpen() && connection.keptAlive() && now - connection.lastSent() >= interval)
            {
                connection.sendControl(FrameType.KEEPALIVE, 0, 0, 0, 0, Connection.NO_BODY);
            }
        }
        if (!loop.isClosed())
        {
            loop.schedule(now + sweepInterval(), keepalive);
        }
    }

    /**
     * Expires {@code session} after the linger time unless a connection attaches first (which moves its epoch
     * on). One timer for all of them, not one each: a flood of sessions lost at once must not grow the timer wheel.
     */
    public void expireLater(final SessionImpl session, final long epoch)
    {
        lingering.add(new Lingering(loop.nanoTime() + engine.reconnectTimeout.toNanos(), session, epoch));
        if (lingerTimer < 0)
        {
            lingerTimer = loop.schedule(lingering.peekFirst().deadline(), expireLingering);
        }
    }

    private void expireLingering()
    {
        lingerTimer = -1;
        final long now = loop.nanoTime();
        Lingering next;
        while ((next = lingering.peekFirst()) != null && next.deadline() <= now)
        {
            lingering.pollFirst();
            next.session().expire(next.epoch());
        }
        if (next != null && !loop.isClosed())
        {
            lingerTimer = loop.schedule(next.deadline(), expireLingering);
        }
    }

    public void closeAll()
    {
        final List<Dialing> aborted = new ArrayList<>(dialing.values());
        dialing.clear();
        for (final Dialing dial : aborted)
        {
            loop.cancelTimer(dial.timer);
            if (dial.abort != null)
            {
                dial.abort.run();
            }
            dial.onFail.forEach(f -> f.accept(new ConnectionException("engine is closing")));
        }
        for (final Connection connection : new ArrayList<>(all))
        {
            connection.close(null);
        }
    }
}
