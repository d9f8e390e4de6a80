package io.xio.engine;

/**
 * Hears one stream ({@link XioStream}): its messages in order, as many as {@link XioStream#request} asked for, and
 * then exactly one of {@link #onComplete} and {@link #onError}. Called on the stream's context thread, never two at a
 * time: do not block it. Exceptions it throws are logged and cancel the stream.
 */
public interface StreamListener
{
    /**
     * The next message. The listener owns it and must close it, here or later (it holds a part of a receive
     * buffer until then).
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

    /** The opener's listener only: the acceptor completed the stream, with its trailers ({@link Metadata#EMPTY}). */
    default void onComplete(final Metadata trailers)
    {
    }

    /** The stream failed or was cancelled; nothing more is heard of it. */
    void onError(Throwable error);
}
