package io.xio.engine;

import java.util.Map;

/**
 * A logical link between a client and a resource on a server, made of one or more connections, each
 * owned by one context. Both sides hold one: requests and messages go either way. All methods may be
 * called from any thread; blocking waits must not happen on a context thread.
 */
public interface Session extends AutoCloseable
{
    /** Set by the server at accept; unique in the server engine. */
    long id();

    /** The address the session was opened with (client) or the portal it arrived at (server). */
    XioUri uri();

    String resource();

    /** Attributes from the set-up: the client's (server side) or the server's acceptance (client side). */
    Map<String, String> attributes();

    boolean isOpen();

    /**
     * Who the session belongs to, as the server's acceptor decided at set-up ({@link SetupDecision#accept(
     * java.security.Principal)}); null for an anonymous session, and always on the client side.
     */
    default java.security.Principal principal()
    {
        return null;
    }

    /** What the transport proved about the peer of the session's first connection (server side). */
    default PeerIdentity peer()
    {
        final java.util.List<String> addresses = peerAddresses();
        return PeerIdentity.of(addresses.isEmpty() ? "?" : addresses.get(0));
    }

    /** True on the side that accepted the session (the server), false on the side that opened it. */
    boolean isServerSide();

    /** The remote address of each connection now up; any thread. */
    java.util.List<String> peerAddresses();

    /** Number of connections now up. */
    int connectionCount();

    /** Requests each way, in flight, retransmits and refusals since the session opened; any thread. */
    SessionStatistics statistics();

    /** Sends a request with the session's default deadline. */
    default XioFuture<Message> request(final Outbound message)
    {
        return request(message, CallOptions.DEFAULT);
    }

    /**
     * Sends a request. The future completes with the response (which the caller must close), or with a
     * {@link RemoteException}, {@link XioTimeoutException}, {@link ConnectionException},
     * {@link BackPressureException} or {@link RequestCancelledException}.
     */
    XioFuture<Message> request(Outbound message, CallOptions options);

    /**
     * Sends a request without allocating: the outcome goes to {@code listener} (see {@link ResponseListener}
     * for the thread and how long the response is valid) instead of to a new future per call, so a caller
     * that keeps its {@link Outbound} and listener, and reuses the outbound once the listener was called,
     * sends and receives in steady state without creating garbage. The trade-off: no future to cancel (cancel by
     * id with {@link #cancel(long, long) cancel(id, id)}, or rely on the deadline), no receipts, and the response
     * must be read inside the listener.
     *
     * <p>The default implementation, for sessions other than xio's own, goes through
     * {@link #request(Outbound, CallOptions)} and so allocates; it keeps the same contract.
     *
     * @return the request id; or 0 when the request failed at once (refused, or no connection up), in which case
     *     the listener was already told, on this thread, before this method returned
     * @throws IllegalArgumentException when {@code options} asks for a receipt
     */
    default long request(final Outbound message, final CallOptions options, final ResponseListener listener)
    {
        java.util.Objects.requireNonNull(listener, "listener");
        if (options.receipt())
        {
            throw new IllegalArgumentException("a request with a ResponseListener takes no receipt; use the " +
                "future-returning request for that");
        }
        final XioFuture<Message> future = request(message, options);
        final long requestId = future.requestId();
        final boolean failedAtOnce = future.isCompletedExceptionally();
        future.whenComplete((response, cause) ->
        {
            if (cause != null)
            {
                listener.onFailure(requestId, cause);
                return;
            }
            try
            {
                listener.onResponse(requestId, response);
            }
            finally
            {
                response.close();
            }
        });
        return failedAtOnce ? 0 : requestId;
    }

    /**
     * Opens a stream ({@link StreamCall}) with {@code open} as its opening message (its metadata included) and
     * {@code listener} hearing the acceptor. The stream's deadline is {@code options}' timeout when it has one, else
     * none (a feed may last for ever); {@code options}' other settings do not apply. Fails (the listener hears it, on
     * this thread, before this returns) when the peer does not take streams, or the session's limits refuse it. Any
     * thread.
     *
     * @throws UnsupportedOperationException for sessions other than xio's own
     */
    default StreamCall openStream(final Outbound open, final CallOptions options, final StreamListener listener)
    {
        throw new UnsupportedOperationException(getClass().getName() + " does not open streams");
    }

    /** Opens a stream without a deadline ({@link #openStream(Outbound, CallOptions, StreamListener)}). */
    default StreamCall openStream(final Outbound open, final StreamListener listener)
    {
        return openStream(open, CallOptions.DEFAULT, listener);
    }

    /** Sends a one-way message; the future completes once it was written. */
    default XioFuture<Void> send(final Outbound message)
    {
        return send(message, CallOptions.DEFAULT);
    }

    /**
     * Sends a one-way message. Without a receipt, the future completes once the message was written; with
     * {@link CallOptions#receipt()}, once the peer confirmed it received it.
     */
    XioFuture<Void> send(Outbound message, CallOptions options);

    /**
     * Cancels every request this side sent on this session with an id in {@code firstId..lastId} (this side's ids,
     * {@link XioFuture#requestId()}) that is still awaiting its response, receipt or write: its future fails with
     * {@link RequestCancelledException} (a {@link ResponseListener} hears the same) and no response is delivered
     * for it. Those not written to a connection yet are dropped here; those written are named to the peer in one
     * CANCEL per connection, covering the lowest to the highest of them on that connection (such a span always
     * fits the peer's deduplication window, however wide the range asked for); those written on a connection that
     * is down now are not told to the peer (it may still run them; their answer is dropped). Requests whose
     * {@code request} or {@code send} call had not returned when this one began may escape it. Each cancelled
     * future's {@link XioFuture#cancelOutcome()} completes once xio released its buffers.
     *
     * <p>The returned future completes, on a context thread, with the number of requests aborted: the sum of the
     * counts the peer answered each CANCEL with (calls it stopped before answering them, see
     * {@link XioFuture#cancelOutcome()}), plus the requests dropped here before they were written. A CANCEL whose
     * connection ends before its answer adds nothing, so after a connection loss the count is a lower bound.
     * Any thread.
     *
     * @throws IllegalArgumentException when {@code firstId} is below 1 or {@code lastId} below {@code firstId}
     */
    java.util.concurrent.CompletableFuture<Integer> cancel(long firstId, long lastId);

    /**
     * Cancels every request of this session still awaiting its response, receipt or write, as
     * {@link #cancel(long, long) cancel(1, Long.MAX_VALUE)} does (one CANCEL per connection), and reports the number
     * aborted the same way. Any thread.
     */
    java.util.concurrent.CompletableFuture<Integer> cancelAll();

    /**
     * Server side: asks the client to finish what is in flight and go away ({@link GoAway}): a GOAWAY frame on the
     * session. The server goes on serving the requests that arrive until the client closes the session, which it
     * does once it has the answers to what it sent before it read the GOAWAY; a client that does not is closed by
     * whoever drains (see {@link XioEngine#drain}). With portals, the client re-opens the session there (a live
     * migration). Any thread; a second call sends another GOAWAY (a new destination).
     *
     * <p>Client side: drains the session here, as if the server had sent {@code goAway} (no GOAWAY event, nothing
     * sent): new calls fail with {@link SessionDrainingException}, and the session closes after the last answer. A
     * client that stops using a server (its resolver dropped it) does so, so that a call racing that decision is
     * refused unsent rather than cut off by a close. A second call does nothing.
     */
    default void goAway(final GoAway goAway)
    {
        throw new UnsupportedOperationException(getClass().getName() + " does not go away");
    }

    /**
     * Client side: the last GOAWAY the server sent on this session (or the one it gave itself, {@link #goAway}), or
     * null. From the moment it arrived, new calls on
     * the session fail at once with {@link SessionDrainingException} (never sent); calls in flight complete as usual,
     * and the session closes itself after the last of them. Always null on the server side. Any thread.
     */
    default GoAway goAwayReceived()
    {
        return null;
    }

    /** Whether the session was asked to go away (client side) or told to (server side). Any thread. */
    default boolean isDraining()
    {
        return goAwayReceived() != null;
    }

    /**
     * Requests this side sent on the session and still awaiting their response, receipt or write; cheap, does not
     * allocate (least-in-flight balancing reads it on every call). Any thread.
     */
    default int inFlight()
    {
        return statistics().inFlight();
    }

    /** Drops every connection of the session at once, as a network failure would. For fault drills. */
    void abortConnections();

    /** Closes the session: the peer is told, requests in flight fail with {@link ConnectionException}. */
    @Override
    void close();
}
