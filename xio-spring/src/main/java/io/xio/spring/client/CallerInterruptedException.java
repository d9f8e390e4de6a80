package io.xio.spring.client;

import io.xio.engine.XioException;

/**
 * A blocking call whose caller was interrupted while it waited: for the answer of an attempt it had sent (which may
 * have run, or be running: the call is cancelled, on the server too, but the cancel may come too late), or for the
 * session of an attempt not sent yet. Its caller gets it as the {@link XioException} it is, with the thread's
 * interrupt status set; an exactly-once call that may have run ends with {@link ExactlyOnceUnsettledException}
 * instead, this its cause ({@link RetryingCall#ending(Throwable, boolean, String)}). Immutable; any thread.
 */
final class CallerInterruptedException extends XioException
{
    private static final long serialVersionUID = 1L;

    private final boolean sent;

    /** @param sent whether the attempt it waited for had been sent */
    CallerInterruptedException(final String message, final InterruptedException cause, final boolean sent)
    {
        super(message, cause);
        this.sent = sent;
    }

    /** Whether the attempt its caller waited for had been sent, so may have run. */
    boolean sent()
    {
        return sent;
    }
}
