package io.xio.cluster;

import io.xio.engine.CallOptions;
import io.xio.engine.GoAway;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.SessionEvent;
import io.xio.engine.SessionListener;
import io.xio.engine.SessionStatistics;
import io.xio.engine.XioFuture;
import io.xio.engine.XioUri;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client session that exists only in a test: open until closed, with one connection up until told otherwise,
 * draining once given a GOAWAY; its events go to the listener it was opened with, on the test's thread. It carries no
 * call. For one test thread.
 */
final class FakeSession implements Session
{
    private static final AtomicLong IDS = new AtomicLong();

    private final long id = IDS.incrementAndGet();
    private final XioUri uri;
    private final SessionListener listener;
    private volatile boolean open = true;
    private volatile int connections = 1;
    private volatile GoAway goAway;

    FakeSession(final XioUri uri, final SessionListener listener)
    {
        this.uri = uri;
        this.listener = listener;
    }

    /** As the server's GOAWAY arriving: the session drains, and its listener hears it. */
    void sentAway(final GoAway value)
    {
        goAway = value;
        listener.onEvent(new SessionEvent(SessionEvent.Type.GOAWAY, this, "sent away", null));
    }

    /** As a connection dropping while the session tries it again, or coming back: its listener hears which. */
    void reconnecting(final boolean back)
    {
        connections = back ? 1 : 0;
        listener.onEvent(new SessionEvent(back ? SessionEvent.Type.RECONNECTED : SessionEvent.Type.RECONNECTING, this,
            back ? "reconnected" : "connection lost", null));
    }

    /** As the connection dropping, or the server closing the session: its listener hears it closed. */
    void lost(final String detail)
    {
        open = false;
        connections = 0;
        listener.onEvent(new SessionEvent(SessionEvent.Type.CLOSED, this, detail, null));
    }

    @Override
    public long id()
    {
        return id;
    }

    @Override
    public XioUri uri()
    {
        return uri;
    }

    @Override
    public String resource()
    {
        return uri.resource();
    }

    @Override
    public Map<String, String> attributes()
    {
        return Map.of();
    }

    @Override
    public boolean isOpen()
    {
        return open;
    }

    @Override
    public boolean isServerSide()
    {
        return false;
    }

    @Override
    public List<String> peerAddresses()
    {
        return List.of();
    }

    @Override
    public int connectionCount()
    {
        return connections;
    }

    @Override
    public SessionStatistics statistics()
    {
        throw new UnsupportedOperationException("a fake session keeps no statistics");
    }

    @Override
    public int inFlight()
    {
        return 0;
    }

    @Override
    public XioFuture<Message> request(final Outbound message, final CallOptions options)
    {
        throw new UnsupportedOperationException("a fake session carries no call");
    }

    @Override
    public XioFuture<Void> send(final Outbound message, final CallOptions options)
    {
        throw new UnsupportedOperationException("a fake session carries no call");
    }

    @Override
    public CompletableFuture<Integer> cancel(final long firstId, final long lastId)
    {
        return CompletableFuture.completedFuture(0);
    }

    @Override
    public CompletableFuture<Integer> cancelAll()
    {
        return CompletableFuture.completedFuture(0);
    }

    @Override
    public void goAway(final GoAway value)
    {
        if (goAway == null)
        {
            goAway = value; // drained here: no event, as a real client session
        }
    }

    @Override
    public GoAway goAwayReceived()
    {
        return goAway;
    }

    @Override
    public void abortConnections()
    {
        connections = 0;
    }

    @Override
    public void close()
    {
        if (open)
        {
            lost("closed by the client");
        }
    }
}
