package io.xio.engine.flow;

import io.xio.engine.CallOptions;
import io.xio.engine.InboundStream;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.RequestCancelledException;
import io.xio.engine.Session;
import io.xio.engine.StreamCall;
import io.xio.engine.StreamListener;
import io.xio.engine.XioStream;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One stream ({@link XioStream}) seen through {@link java.util.concurrent.Flow}: a {@link StreamPublisher} of the
 * messages the peer sends and a {@link StreamSubscriber} that sends what its upstream publishes. A stream has one
 * {@link StreamListener}, which hears both the messages that arrive and the credit ({@link StreamListener#onReady()})
 * that paces sending; this class owns it and hands each signal to the side it concerns, so that the publisher and the
 * subscriber may be used together (a bidirectional stream) or either alone.
 *
 * <p>Make one with {@link #open} (the side that opens the stream: the listener is given to
 * {@link Session#openStream}) or {@link #accept} (in {@link io.xio.engine.RequestHandler#onStream}: the stream is
 * {@linkplain InboundStream#start started} at once with this class's listener; the handler still owns, and closes, the
 * {@linkplain InboundStream#open() opening message}). Nothing is taken from the peer until the publisher's subscriber
 * requests it, and nothing is sent until the subscriber has an upstream; what arrives meanwhile waits within the
 * stream's window, and the peer waits for credit.
 *
 * <p>How the stream ends, per side:
 * <ul>
 *   <li>The publisher completes after the last message when the peer ended its direction (the acceptor completed the
 *   stream, as the opener sees it; the opener half-closed, as the acceptor sees it), and fails with the stream's
 *   failure ({@link io.xio.engine.RemoteException}, {@link io.xio.engine.XioTimeoutException} at the deadline,
 *   {@link RequestCancelledException} after a cancel, {@link io.xio.engine.ConnectionException}). Its subscription's
 *   cancel cancels the whole stream (both directions): the engine has no way to stop one direction alone; messages
 *   the stream still holds then are closed here.</li>
 *   <li>The subscriber's upstream completing ends this side's direction ({@link StreamCall#halfClose()} for the opener,
 *   {@link InboundStream#complete()} for the acceptor, which ends the whole stream); its upstream failing cancels the
 *   stream (opener) or fails it with that error ({@link InboundStream#fail(Throwable)}, acceptor). A stream that ends
 *   otherwise cancels the subscriber's upstream subscription, before the publisher's subscriber hears the failure: an
 *   upstream that passes on what the publisher delivers is cancelled, as the stream was, rather than failed.</li>
 *   <li>When the subscriber's upstream fails, the publisher fails with that same error (on either side). An acceptor
 *   that completes the stream through its subscriber before the opener half-closed cuts its publisher off with a
 *   {@link RequestCancelledException} (the engine drops what the opener sent after that).</li>
 * </ul>
 *
 * <p>Threads: the factories and {@link #cancel()} may be called from any thread. The listener runs on the stream's
 * context thread; what runs there for the publisher and the subscriber, and where their own signals go out, is told
 * on each ({@link StreamPublisher}, {@link StreamSubscriber}): in short, neither must block the thread it is called
 * on. The rest of this class is thread-safe.
 */
public final class FlowStream
{
    /** How many messages the subscriber asks its upstream for, at most, ahead of sending them, unless told. */
    public static final int DEFAULT_MAX_REQUESTED = 8;

    private final boolean opener;
    private final AcceptorEnd end;
    private final StreamPublisher publisher;
    private final StreamSubscriber subscriber;
    private final CompletableFuture<Metadata> outcome = new CompletableFuture<>();
    private final StreamListener listener = new Listener();
    private volatile XioStream stream;

    private FlowStream(final boolean opener, final int maxRequested, final AcceptorEnd end)
    {
        if (maxRequested < 1)
        {
            throw new IllegalArgumentException("the subscriber must be allowed to request at least 1 message, not " +
                maxRequested);
        }
        this.opener = opener;
        this.end = Objects.requireNonNull(end, "end");
        this.publisher = new StreamPublisher(this);
        this.subscriber = new StreamSubscriber(this, maxRequested);
    }

    /** Opens a stream on {@code session} without a deadline ({@link #open(Session, Outbound, CallOptions, int)}). */
    public static FlowStream open(final Session session, final Outbound open)
    {
        return open(session, open, CallOptions.DEFAULT, DEFAULT_MAX_REQUESTED);
    }

    /** Opens a stream on {@code session} ({@link #open(Session, Outbound, CallOptions, int)}). */
    public static FlowStream open(final Session session, final Outbound open, final CallOptions options)
    {
        return open(session, open, options, DEFAULT_MAX_REQUESTED);
    }

    /**
     * Opens a stream on {@code session} with {@code open} as its opening message, as
     * {@link Session#openStream(Outbound, CallOptions, StreamListener)} does ({@code options}' timeout is the stream's
     * deadline). A stream that cannot open is failed at once: the publisher's subscriber hears why. Any thread.
     *
     * @param maxRequested the most messages the subscriber asks its upstream for ahead of sending them (at least 1)
     */
    public static FlowStream open(final Session session, final Outbound open, final CallOptions options,
        final int maxRequested)
    {
        final FlowStream flow = new FlowStream(true, maxRequested, AcceptorEnd.AS_TOLD);
        final StreamCall call = session.openStream(open, options, flow.listener);
        flow.stream = call;
        flow.subscriber.attached(); // a signal that came before the stream was known
        return flow;
    }

    /** Takes a stream the peer opened ({@link #accept(InboundStream, int)}). */
    public static FlowStream accept(final InboundStream stream)
    {
        return accept(stream, DEFAULT_MAX_REQUESTED);
    }

    /**
     * Takes a stream the peer opened: {@linkplain InboundStream#start starts} it with this class's listener (so it
     * must not have been started). The caller keeps the opening message ({@link InboundStream#open()}) and closes it.
     * Any thread; usually the handler's {@link io.xio.engine.RequestHandler#onStream}.
     *
     * @param maxRequested the most messages the subscriber asks its upstream for ahead of sending them (at least 1)
     * @throws IllegalStateException when the stream was started already
     */
    public static FlowStream accept(final InboundStream stream, final int maxRequested)
    {
        return accept(stream, maxRequested, AcceptorEnd.AS_TOLD);
    }

    /**
     * Takes a stream the peer opened, as {@link #accept(InboundStream, int)}, ending it as {@code end} says once the
     * subscriber's upstream finished: with trailers, say, or with a failure told in the application's own terms.
     */
    public static FlowStream accept(final InboundStream stream, final int maxRequested, final AcceptorEnd end)
    {
        Objects.requireNonNull(stream, "stream");
        final FlowStream flow = new FlowStream(false, maxRequested, end);
        flow.stream = stream;
        stream.start(flow.listener);
        return flow;
    }

    /** The stream's messages from the peer; the same publisher on every call. It takes one subscriber. */
    public StreamPublisher publisher()
    {
        return publisher;
    }

    /** Sends what it is given into the stream; the same subscriber on every call. It takes one subscription. */
    public StreamSubscriber subscriber()
    {
        return subscriber;
    }

    /**
     * The stream underneath ({@link StreamCall} for the opener, {@link InboundStream} for the acceptor), for its id,
     * its session, its deadline. Sending on it directly while the subscriber sends breaks the one-sender rule of
     * {@link XioStream#offer}.
     */
    public XioStream stream()
    {
        return stream;
    }

    /** Whether this side opened the stream. */
    public boolean isOpener()
    {
        return opener;
    }

    /**
     * How the stream ended: the opener gets the acceptor's trailers, or the stream's failure; the acceptor gets
     * {@link Metadata#EMPTY} once it completed the stream through its subscriber, or the failure (its own upstream's
     * error when that failed it). Completes on the context thread or on the thread that ended the stream.
     */
    public CompletionStage<Metadata> outcome()
    {
        return outcome.minimalCompletionStage();
    }

    /** Cancels the stream, both directions ({@link XioStream#cancel()}). Any thread. */
    public void cancel()
    {
        final XioStream current = stream;
        if (current != null)
        {
            current.cancel();
        }
    }

    /** How the acceptor's stream ends once the subscriber's upstream finished. */
    AcceptorEnd end()
    {
        return end;
    }

    /**
     * How the acceptor's subscriber ends its stream once its upstream finished: it completes it, or fails it with the
     * upstream's error ({@link #AS_TOLD}). Called once, on the subscriber's sending thread (see
     * {@link StreamSubscriber}); it must end the stream ({@link InboundStream#complete} or {@link InboundStream#fail}).
     */
    public interface AcceptorEnd
    {
        /** {@link InboundStream#complete()} and {@link InboundStream#fail(Throwable)}. */
        AcceptorEnd AS_TOLD = new AcceptorEnd()
        {
        };

        /** The upstream completed. */
        default void complete(final InboundStream stream)
        {
            stream.complete();
        }

        /** The upstream failed with {@code error}. */
        default void fail(final InboundStream stream, final Throwable error)
        {
            stream.fail(error);
        }
    }

    /** The stream if known yet (an opener's is known once {@link Session#openStream} returned), else null. */
    XioStream streamOrNull()
    {
        return stream;
    }

    /**
     * The subscriber ended this side's direction ({@code error} null: it completed) or failed the stream: what that
     * means for the publisher and the outcome, told before the stream is ended so that they hear it first.
     */
    void endingHere(final Throwable error)
    {
        if (error != null)
        {
            outcome.completeExceptionally(error);
            publisher.error(error);
            return;
        }
        if (!opener)
        {
            outcome.complete(Metadata.EMPTY);
            final XioStream current = stream;
            publisher.error(new RequestCancelledException("stream " + (current == null ? "?" : current.streamId()) +
                " was completed by this side before the opener half-closed; what the opener sends after that is " +
                "dropped"));
        }
    }

    /** The stream's one listener, on its context thread: each signal to the side it concerns. */
    private final class Listener implements StreamListener
    {
        @Override
        public void onMessage(final Message message)
        {
            publisher.message(message);
        }

        @Override
        public void onReady()
        {
            subscriber.ready();
        }

        @Override
        public void onHalfClose()
        {
            publisher.complete();
        }

        @Override
        public void onComplete(final Metadata trailers)
        {
            outcome.complete(trailers);
            publisher.complete();
            subscriber.streamEnded();
        }

        @Override
        public void onError(final Throwable error)
        {
            outcome.completeExceptionally(error);
            // The subscriber first: its upstream may be built on the publisher (a map of what arrives), and is to be
            // cancelled, not failed by the publisher's error and then made to fail a stream that is over.
            subscriber.streamEnded();
            publisher.error(error);
        }
    }
}
