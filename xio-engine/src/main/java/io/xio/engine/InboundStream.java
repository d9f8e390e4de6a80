package io.xio.engine;

import java.time.Duration;

/**
 * A stream as the side that accepted it holds it ({@link RequestHandler#onStream}). The handler looks at the opening
 * message and {@link #start starts} the stream with a listener, which then hears the opener's messages, its
 * {@link StreamListener#onHalfClose() half-close}, and {@link StreamListener#onError} when the opener cancels
 * ({@link RequestCancelledException}), the deadline passes ({@link XioTimeoutException}) or the session closes. The
 * stream ends with {@link #complete} or {@link #fail}, after the messages offered before; until then it costs the
 * acceptor its window and one of its open streams.
 */
public interface InboundStream extends XioStream
{
    /** The opening message (the handler must close it): what the opener sent with the stream, metadata included. */
    Message open();

    /** The opening message's metadata ({@link Metadata#EMPTY} when none); read it before closing the message. */
    default Metadata metadata()
    {
        return open().metadata();
    }

    /**
     * Starts the stream: from now on {@code listener} hears it (on the stream's context thread), and the opener's
     * messages it {@link #request requests} reach it. Once, from any thread.
     *
     * @throws IllegalStateException when the stream was started already
     */
    void start(StreamListener listener);

    /** Ends the stream successfully after the messages offered so far. The sending thread. */
    default void complete()
    {
        complete(Metadata.EMPTY);
    }

    /** Ends the stream successfully after the messages offered so far, with {@code trailers} for the opener. */
    void complete(Metadata trailers);

    /** Ends the stream with an error naming the exception's class and message ({@link #fail(String, String)}). */
    default void fail(final Throwable error)
    {
        fail(error.getClass().getName(), error.getMessage() == null ? "" : error.getMessage());
    }

    /**
     * Ends the stream after the messages offered so far with an error naming {@code type} with {@code message}, which
     * the opener's listener hears as a {@link RemoteException}.
     */
    void fail(String type, String message);

    /** Whether the opener gave the stream a deadline. */
    boolean hasDeadline();

    /** When the opener gives up on the stream, on this engine's clock; meaningful only when {@link #hasDeadline()}. */
    long deadline();

    /** Time left until {@link #deadline()} ({@link Duration#ZERO} once passed), or null without a deadline. */
    Duration timeRemaining();
}
