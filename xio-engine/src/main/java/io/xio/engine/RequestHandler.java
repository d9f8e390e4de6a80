package io.xio.engine;

/**
 * Receives requests and one-way messages for a resource (server side) or from the server (client side).
 * Called on the context thread that received the message: do not block it. Hand slow work to an executor
 * and {@link InboundRequest#respond} later, from any thread.
 */
@FunctionalInterface
public interface RequestHandler
{
    /**
     * One request or one-way message. The handler owns {@code request.message()} and must close it (or let
     * a response's {@link Outbound#releaseAfterSend} do so). A throw becomes an error response.
     */
    void onRequest(InboundRequest request) throws Exception;

    /**
     * A stream the peer opened: the handler {@link InboundStream#start starts} it (now or later, from any thread) and
     * owns its {@link InboundStream#open() opening message}. By default a handler takes no streams: it fails them. A
     * throw fails the stream.
     */
    default void onStream(final InboundStream stream) throws Exception
    {
        stream.open().close();
        stream.fail(XioException.class.getName(), "this service takes no streams");
    }
}
