package io.xio.engine;

import java.time.Duration;

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

    /**
     * Sends the response.
     *
     * @throws XioException when the response exceeds the limits the peer takes: the call is then answered with an
     *     error that says only that (the peer learns neither this side's limits nor its classes), and the
     *     exception's message, for this side's logs, gives the sizes
     */
    void respond(Outbound response);

    /** Sends an error response carrying the exception's class name and message ({@link #fail(String, String)}). */
    default void fail(final Throwable error)
    {
        fail(error.getClass().getName(), error.getMessage() == null ? "" : error.getMessage());
    }

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

    /**
     * The metadata the sender attached (read-only; {@link Metadata#EMPTY} when none): the message's
     * {@link Message#metadata()}, so read it before closing the message.
     */
    default Metadata metadata()
    {
        return message().metadata();
    }

    /**
     * Whether the sender said how long it waits for the answer. An xio sender always does (the call's timeout, else
     * its session's default), so this is false only for peers that send no call context.
     */
    boolean hasDeadline();

    /**
     * When the sender gives up on this request, on this engine's clock ({@link System#nanoTime()} unless the
     * engine was built with another): the time it arrived plus the time the sender said it still had. Meaningful
     * only when {@link #hasDeadline()}. A client call made while serving this one should not wait longer.
     */
    long deadline();

    /** Time left until {@link #deadline()} ({@link Duration#ZERO} once passed), or null without a deadline. */
    Duration timeRemaining();

    /** Whether {@link #deadline()} has passed; false without a deadline. Allocates nothing. */
    boolean isExpired();

    /**
     * Turns the request away unrun if its deadline has passed: the sender gets status DEADLINE_EXCEEDED, which its
     * future reports as an {@link XioTimeoutException}; a one-way message is dropped. For handlers that queue work:
     * call it just before starting a request that waited. xio calls it itself before it hands a request to the
     * handler. Either way the handler still closes the message.
     *
     * @return true when the request was turned away (do not run or answer it), false when it may run
     */
    boolean refuseIfExpired();

    /** Whether the sender cancelled this request; its response would be dropped. */
    boolean isCancelled();

    /**
     * Runs {@code action} once if the sender cancels this request before it is answered: on a context thread,
     * or at once on the calling thread when it was cancelled already. Only the first action registered counts.
     */
    void onCancel(Runnable action);
}
