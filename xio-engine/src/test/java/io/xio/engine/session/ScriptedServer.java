package io.xio.engine.session;

import io.xio.engine.PortalOptions;
import io.xio.engine.InboundRequest;
import io.xio.engine.Outbound;
import io.xio.engine.protocol.FrameType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A server engine on a {@link ScriptedEngine} with one client connection whose far end is the caller, for tests
 * outside this package (the fuzz targets in {@code io.xio.engine.fuzz}). Services: {@code echo} answers with
 * the request's header, {@code hold} keeps requests unanswered until {@link #close}, {@code fail} throws,
 * {@code streams} takes streams (it answers each message with an empty one as credit allows and completes at the
 * half-close). The leak detector is on, so {@link #close} fails if the engine kept a received buffer. Test thread
 * only: it runs the engine's context.
 */
public final class ScriptedServer implements AutoCloseable
{
    private final ScriptedEngine server = new ScriptedEngine();
    private final List<InboundRequest> held = new ArrayList<>();
    private final ScriptedWire.Link link;

    public ScriptedServer()
    {
        server.engine.register("echo", request ->
        {
            if (request.isOneWay())
            {
                request.message().close();
            }
            else
            {
                request.respond(Outbound.of(request.message().header()).releaseAfterSend(request.message()));
            }
        });
        server.engine.register("hold", held::add);
        server.engine.register("fail", request ->
        {
            request.message().close();
            throw new IllegalStateException("the fail service fails");
        });
        server.engine.register("streams", new io.xio.engine.RequestHandler()
        {
            @Override
            public void onRequest(final InboundRequest request)
            {
                request.message().close();
                request.respond(Outbound.empty());
            }

            @Override
            public void onStream(final io.xio.engine.InboundStream stream)
            {
                stream.open().close();
                stream.start(new io.xio.engine.StreamListener()
                {
                    @Override
                    public void onMessage(final io.xio.engine.Message message)
                    {
                        message.close();
                        stream.offer(Outbound.empty());
                    }

                    @Override
                    public void onHalfClose()
                    {
                        stream.complete();
                    }

                    @Override
                    public void onError(final Throwable error)
                    {
                    }
                });
                stream.request(Long.MAX_VALUE);
            }
        });
        server.engine.bindAsync("wire://here", PortalOptions.DEFAULT.withContext(0));
        server.turn();
        link = server.wire.accept();
        server.turn();
    }

    /** The client sets up a session for {@code resource}; returns the id the server gave it (0: refused). */
    public long openSession(final long token, final String resource)
    {
        final int accepted = link.sent(FrameType.SETUP_ACCEPT).size();
        deliver(PeerFrames.setup(token, resource));
        return link.sent(FrameType.SETUP_ACCEPT).size() > accepted ? lastSessionAccepted() : 0;
    }

    /** The client's bytes arrive (a refused frame closes the connection), then the engine runs until idle. */
    public void deliver(final byte[] bytes)
    {
        link.deliver(bytes);
        server.turn();
    }

    /** Moves the engine's clock on and runs what came due. */
    public void advance(final Duration by)
    {
        server.advance(by);
    }

    /** The id of the latest session the server accepted on this connection, 0 if none. */
    public long lastSessionAccepted()
    {
        final List<ScriptedWire.Sent> accepts = link.sent(FrameType.SETUP_ACCEPT);
        return accepts.isEmpty() ? 0 : accepts.get(accepts.size() - 1).sessionId();
    }

    /** Frames the server wrote so far, keepalives left out. */
    public int framesSent()
    {
        return link.sent().size();
    }

    public boolean connectionClosed()
    {
        return link.isClosed();
    }

    /** Closes the held requests' messages, then the engine, which fails on any buffer left unreleased. */
    @Override
    public void close()
    {
        held.forEach(request -> request.message().close());
        server.close();
    }
}
