package io.xio.engine;

/**
 * A request or one-way message as its receiver sees it. {@link #respond} and {@link #fail} may be called once,
 * from any thread, at any time ("whenever the data is ready"); after a cancel they do nothing.
 */
public interface InboundRequest
{
    /** The message; the handler must close it (try-with-resources or {@link Outbound#releaseAfterSend}). */
    Message message();

    Session session();

    long requestId();

    /** One-way messages take no response. */
    boolean isOneWay();

    /** Sends the response. */
    void respond(Outbound response);

    /** Sends an error response carrying the exception's class name and message. */
    void fail(Throwable error);

    /** Whether the sender cancelled this request; its response would be dropped. */
    boolean isCancelled();

    /**
     * Runs {@code action} once if the sender cancels this request before it is answered: on a context thread,
     * or at once on the calling thread when it was cancelled already. Only the first action registered counts.
     */
    void onCancel(Runnable action);
}
