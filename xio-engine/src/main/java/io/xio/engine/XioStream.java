package io.xio.engine;

/**
 * One stream of a session: messages in order in both directions between the side that opened it ({@link StreamCall})
 * and the side that accepted it ({@link InboundStream}), each direction paced by its receiver. A receiver holds at most
 * its window of messages (and bytes) that its application has not taken yet, and grants its sender credit as the
 * application takes them; a sender never sends beyond the credit it has, and keeps what it sent until the receiver
 * acknowledged it. A connection loss does not end a stream while its session lives: it resumes on another connection
 * of the session (or the same one, reconnected), each side sending again what the other had not acknowledged and the
 * receiver dropping what it had, so that the application sees every message once and in order.
 *
 * <p>Sending: {@link #offer} takes a message when the stream has credit for it and returns false otherwise, after which
 * the listener's {@link StreamListener#onReady()} says when to offer again (the failed offer is the edge that arms it,
 * as gRPC's {@code isReady}/{@code onReady}). One thread at a time may send (offer, and end the stream's direction);
 * a thread that takes over from another must see what the other did (a happens-before edge, as Reactive Streams
 * signals have).
 *
 * <p>Receiving: messages go to the {@link StreamListener} on the stream's context thread, as many as
 * {@link #request} asked for; the rest wait, within the window. Any thread may call {@link #request} and
 * {@link #cancel}.
 */
public interface XioStream
{
    /** The stream's id: the id of the request that opened it, in the opener's id space. */
    long streamId();

    /** The session the stream belongs to. */
    Session session();

    /**
     * Sends {@code message} when the stream has credit for it: true when taken (its buffers are xio's until
     * {@link Outbound#releaseAfterSend}'s resource is closed, once the receiver acknowledged it); false when not,
     * because the receiver's window is full ({@link StreamListener#onReady()} follows once there is room) or the stream
     * is over (its listener heard, or hears, why).
     *
     * @throws IllegalStateException when this side already ended its direction
     * @throws XioException when the message exceeds the limits the peer takes
     */
    boolean offer(Outbound message);

    /**
     * Whether an {@link #offer} now would find credit; a hint, the offer's result is the truth. When false, the
     * listener's {@link StreamListener#onReady()} follows once there is credit, as after a failed offer. The sending
     * thread.
     */
    boolean isReady();

    /**
     * Lets {@code count} more messages go to the listener (added to what was asked for before; {@link Long#MAX_VALUE}
     * for all of them). Any thread.
     *
     * @throws IllegalArgumentException when {@code count} is not positive
     */
    void request(long count);

    /**
     * Stops the stream at once, both directions: the peer is told (the opener's cancel reaches the acceptor's
     * listener as a {@link RequestCancelledException}; the acceptor's ends the opener's stream with one), messages not
     * yet sent are dropped and messages not yet delivered are released; this side's listener hears a
     * {@link RequestCancelledException}. Any thread; nothing once the listener had its last signal.
     */
    void cancel();

    /**
     * Whether this side can send no more on the stream: it completed, failed or was cancelled (messages not taken yet
     * may still go to the listener). Any thread.
     */
    boolean isDone();
}
