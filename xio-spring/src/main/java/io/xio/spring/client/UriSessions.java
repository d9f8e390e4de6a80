package io.xio.spring.client;

import io.xio.engine.GoAway;
import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.XioEngine;
import io.xio.engine.XioUri;
import org.jspecify.annotations.Nullable;

import java.util.concurrent.CompletableFuture;

/**
 * The one session of a client given a URI: opened on first use (so an application starts while its server is down,
 * and the first call reports why it cannot reach it), and again after it failed or closed, or once its server sent
 * GOAWAY: then at the portals the GOAWAY named, if any (a live migration), else at the URI again (a server that
 * drains for a restart; a replacement behind the same address). The draining session finishes its calls in flight
 * and closes by itself; the calls it refused unsent ({@link io.xio.engine.SessionDrainingException}) are tried again
 * on the new one. Thread-safe.
 */
final class UriSessions implements ClientSessions
{
    private final XioEngine engine;
    private final String uri;
    private final XioUri address;
    private final SessionOptions options;
    private volatile @Nullable CompletableFuture<Session> session;
    private volatile @Nullable String lastFailure;

    UriSessions(final XioEngine engine, final String uri, final SessionOptions options)
    {
        this.engine = engine;
        this.uri = uri;
        this.address = XioUri.parse(uri);
        this.options = options;
    }

    @Override
    public String target()
    {
        return uri;
    }

    @Override
    public String resource()
    {
        return address.resource();
    }

    @Override
    public String transport()
    {
        return address.scheme();
    }

    @Override
    public @Nullable String lastFailure()
    {
        return lastFailure;
    }

    /** The session, opened on first use and again after it closed or its server sent GOAWAY; never blocks. */
    @Override
    public CompletableFuture<Session> session()
    {
        CompletableFuture<Session> current = session;
        if (replace(current))
        {
            synchronized (this)
            {
                current = session;
                if (replace(current))
                {
                    try
                    {
                        current = engine.openSession(next(current), options);
                    }
                    catch (final RuntimeException refused)
                    {
                        // A closed engine, or a transport it does not have, refuses at once: as a future, so that a
                        // call (or a retry after its backoff) fails with it, and the client's status shows it.
                        current = CompletableFuture.failedFuture(refused);
                    }
                    current.whenComplete((opened, ex) ->
                        lastFailure = ex == null ? null : String.valueOf(CallFailures.unwrap(ex).getMessage()));
                    session = current;
                }
            }
        }
        return current;
    }

    /** Whether the next call needs another session than {@code current}. */
    private static boolean replace(final @Nullable CompletableFuture<Session> current)
    {
        if (current == null || current.isCompletedExceptionally())
        {
            return true;
        }
        if (!current.isDone())
        {
            return false;
        }
        final Session open = current.join();
        return !open.isOpen() || open.isDraining();
    }

    /** Where to open the next session: at the first portal a GOAWAY of {@code current} named, else at the URI. */
    private String next(final @Nullable CompletableFuture<Session> current)
    {
        final GoAway goAway = current == null || current.isCompletedExceptionally() ? null
            : current.join().goAwayReceived();
        return goAway == null || goAway.portals().isEmpty() ? uri
            : goAway.portals().get(0).withResource(address.resource()).toString();
    }

    @Override
    public XioClientStatus status(final String name, final Class<?> api)
    {
        final CompletableFuture<Session> current = session;
        final XioClientStatus.State state;
        String detail = null;
        if (current == null)
        {
            state = XioClientStatus.State.NOT_OPENED;
        }
        else if (!current.isDone() || current.isCompletedExceptionally())
        {
            // While a new attempt runs, the last one's failure still stands.
            detail = lastFailure;
            state = detail != null ? XioClientStatus.State.UNREACHABLE : XioClientStatus.State.CONNECTING;
        }
        else
        {
            final Session open = current.join();
            state = !open.isOpen() ? XioClientStatus.State.UNREACHABLE
                : open.connectionCount() > 0 ? XioClientStatus.State.ESTABLISHED
                : XioClientStatus.State.RECONNECTING;
            detail = open.isOpen() ? null : "session closed";
        }
        return new XioClientStatus(name, api, uri, state, detail);
    }
}
