package io.xio.engine;

/**
 * A request or one-way message as its receiver sees it. One of {@link #respond}, {@link #fail} and
 * {@link #refuse} may be called, once, from any thread, at any time ("whenever the data is ready"); after a
 * cancel they do nothing.
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

    /**
     * Sends an error response naming {@code type} with {@code message} as given: for a layer above that maps its
     * exceptions itself, and keeps the text within the peer's header limit.
     */
    void fail(String type, String message);

    /**
     * Turns the request away unrun because this side is too busy: the sender gets a back-pressure answer (status
     * BACK_PRESSURE, no body) at once, which its {@link XioFuture} reports as a {@link BackPressureException}
     * (cause: a {@link RemoteException} whose {@link RemoteException#isBackPressure()} is true), and may retry
     * later. Counted with the session's
     * back-pressure refusals. A one-way message is dropped: nothing is sent (a receipt, if asked for, left
     * before the handler ran).
     */
    void refuse();

    /** Whether the sender cancelled this request; its response would be dropped. */
    boolean isCancelled();

    /**
     * Runs {@code action} once if the sender cancels this request before it is answered: on a context thread,
     * or at once on the calling thread when it was cancelled already. Only the first action registered counts.
     */
    void onCancel(Runnable action);
}
