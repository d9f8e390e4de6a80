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
}
