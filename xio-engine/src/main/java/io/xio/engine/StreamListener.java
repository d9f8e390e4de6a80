package io.xio.engine;

/**
 * Hears one stream ({@link XioStream}): its messages in order, as many as {@link XioStream#request} asked for, and
 * then exactly one of {@link #onComplete} and {@link #onError}. Called on the thread of the context that holds the
 * stream (it may move to another after a connection loss), never two at a time: do not block it. Exceptions it throws
 * are logged and cancel the stream.
 */
public interface StreamListener
{
    /**
     * The next message. The listener owns it and must close it, here or later (it holds a part of a receive
     * buffer until then). Once closed, the same {@link Message} object may carry a later message of the stream (so
     * that a stream read as it comes allocates nothing): do not keep it, or read it, after closing it.
     */
    void onMessage(Message message);

    /** The stream has credit again after an {@link XioStream#offer} found none. */
    default void onReady()
    {
    }

    /** The acceptor's listener only: the opener sent its last message (it half-closed). */
    default void onHalfClose()
    {
    }

    /**
     * The opener's listener: the acceptor completed the stream, with its trailers ({@link Metadata#EMPTY} when none),
     * after every message before them. The acceptor's listener: the end it gave the stream ({@code complete} or
     * {@code fail}) was written, with {@link Metadata#EMPTY}.
     */
    default void onComplete(final Metadata trailers)
    {
    }

    /**
     * The stream failed or was cancelled (by either side, or at its deadline); nothing more is heard of it, and
     * messages not delivered yet were released. For an acceptor whose handler has not started the stream yet, this
     * comes at its start.
     */
    void onError(Throwable error);
}
