package io.xio.engine.session.call;

import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.StreamListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one stream's listener hears: messages, the ready signal, and exactly one last signal, which waits for the
 * listener when it comes first (an acceptor's handler may start its stream late). A listener that throws is logged;
 * on a message or the ready signal it cancels the stream. The stream's owning thread signals; the listener is set
 * from any thread.
 */
final class StreamSignals
{
    private static final Logger LOG = LoggerFactory.getLogger(StreamSignals.class);

    private final LaneStream stream;
    private volatile StreamListener listener;
    /** The listener had its last signal (or has it waiting): nothing more is delivered. */
    private volatile boolean finished;
    /** A last signal that came before the listener. */
    private Throwable pendingFailure;
    private Metadata pendingCompletion;

    StreamSignals(final LaneStream stream, final StreamListener listener)
    {
        this.stream = stream;
        this.listener = listener;
    }

    void listener(final StreamListener value)
    {
        listener = value;
    }

    StreamListener listener()
    {
        return listener;
    }

    boolean listening()
    {
        return listener != null;
    }

    boolean finished()
    {
        return finished;
    }

    /** Marks the last signal as taken; false when one was taken before. */
    boolean finish()
    {
        if (finished)
        {
            return false;
        }
        finished = true;
        return true;
    }

    /** The last signal, a failure: now, or once the listener is set. */
    void error(final Throwable failure)
    {
        final StreamListener current = listener;
        if (current == null)
        {
            pendingFailure = failure;
            return;
        }
        try
        {
            current.onError(failure);
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("listener of stream {} failed on its error", stream.id, ex);
        }
    }

    /** The last signal, a completion: now, or once the listener is set. */
    void complete(final Metadata trailers)
    {
        final StreamListener current = listener;
        if (current == null)
        {
            pendingCompletion = trailers;
            return;
        }
        try
        {
            current.onComplete(trailers);
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("listener of stream {} failed on its completion", stream.id, ex);
        }
    }

    /** The listener was set: a last signal that waited for it goes now; whether there was one. */
    boolean signalWaiting()
    {
        if (pendingFailure != null)
        {
            final Throwable failure = pendingFailure;
            pendingFailure = null;
            error(failure);
            return true;
        }
        if (pendingCompletion != null)
        {
            final Metadata trailers = pendingCompletion;
            pendingCompletion = null;
            complete(trailers);
            return true;
        }
        return false;
    }

    void message(final Message message)
    {
        try
        {
            listener.onMessage(message);
        }
        catch (final RuntimeException ex)
        {
            failedOn(ex);
        }
    }

    /** The sender has credit again after a failed offer. */
    void ready()
    {
        final StreamListener current = listener;
        if (current == null || finished)
        {
            return;
        }
        try
        {
            current.onReady();
        }
        catch (final RuntimeException ex)
        {
            failedOn(ex);
        }
    }

    /** A listener that threw: logged, and the stream is cancelled (the application cannot follow it any more). */
    void failedOn(final RuntimeException ex)
    {
        LOG.warn("listener of stream {} failed; the stream is cancelled", stream.id, ex);
        stream.cancelled();
    }
}
