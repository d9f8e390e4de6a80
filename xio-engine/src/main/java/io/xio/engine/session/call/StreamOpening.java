package io.xio.engine.session.call;

import io.xio.engine.BackPressureException;
import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.StreamCall;
import io.xio.engine.StreamListener;
import io.xio.engine.XioException;
import io.xio.engine.session.Messages;
import io.xio.engine.session.admission.CallAdmission;
import io.xio.engine.session.admission.StreamAdmission;
import org.agrona.concurrent.NanoClock;

import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The streams one session opens: each is admitted (one of the session's streams and its window, then an id and a
 * place in flight as a call takes, given back once the acceptor took the stream), given to a lane and opened there. A
 * stream that cannot open fails at once: its listener hears why on the calling thread. Any thread.
 */
public final class StreamOpening
{
    private final CallAdmission admission;
    private final StreamAdmission streams;
    private final LaneRing lanes;
    private final boolean initiator;
    private final NanoClock clock;
    private final BooleanSupplier negotiated;
    private final Supplier<String> describe;

    /**
     * @param negotiated whether the session may carry streams (both sides announced them)
     * @param describe the session for messages
     */
    public StreamOpening(final CallAdmission admission, final StreamAdmission streams, final LaneRing lanes,
        final boolean initiator, final NanoClock clock, final BooleanSupplier negotiated,
        final Supplier<String> describe)
    {
        this.admission = admission;
        this.streams = streams;
        this.lanes = lanes;
        this.initiator = initiator;
        this.clock = clock;
        this.negotiated = negotiated;
        this.describe = describe;
    }

    /** {@link Session#openStream(Outbound, CallOptions, StreamListener)}. */
    public StreamCall open(final Outbound open, final CallOptions options, final StreamListener listener)
    {
        Objects.requireNonNull(open, "open");
        Objects.requireNonNull(listener, "listener");
        if (!negotiated.getAsBoolean())
        {
            return refused(open, listener, new XioException("the peer of session " + describe.get() +
                " does not take streams (it does not announce them)"));
        }
        final String over = streams.admit(null, null);
        if (over != null)
        {
            return refused(open, listener, new BackPressureException("no more streams on session " + describe.get() +
                ": over the limit of " + over));
        }
        Messages.sealMetadata(open);
        final Duration timeout = options.timeout();
        final long now = clock.nanoTime();
        final long id;
        try
        {
            id = admission.admit(open, false, false, timeout == null ? Duration.ZERO : timeout,
                timeout == null ? now : now + timeout.toNanos());
        }
        catch (final XioException refused)
        {
            streams.release(null, null);
            return refused(open, listener, refused);
        }
        final Lane lane = lanes.pick(initiator);
        if (lane == null)
        {
            admission.finished(id);
            streams.release(null, null);
            return refused(open, listener, new ConnectionException("session " + describe.get() +
                " has no connection up"));
        }
        final OpenedStream stream = new OpenedStream(lane.streams, id, listener, open,
            timeout == null ? 0 : now + timeout.toNanos(), timeout != null, admission::finished);
        if (lane.loop.inContextThread())
        {
            lane.streams.open(stream);
        }
        else
        {
            lane.loop.execute(() -> lane.streams.open(stream));
        }
        return stream;
    }

    /** The stream never opened: its open's buffers are the application's again, and the listener hears why. */
    private static StreamCall refused(final Outbound open, final StreamListener listener, final XioException why)
    {
        try
        {
            open.released();
        }
        finally
        {
            listener.onError(why);
        }
        return Refused.INSTANCE;
    }

    /** A stream that never opened: its listener heard why. */
    private static final class Refused implements StreamCall
    {
        static final Refused INSTANCE = new Refused();

        @Override
        public long streamId()
        {
            return 0;
        }

        @Override
        public Session session()
        {
            return null;
        }

        @Override
        public boolean offer(final Outbound message)
        {
            return false;
        }

        @Override
        public boolean isReady()
        {
            return false;
        }

        @Override
        public void request(final long count)
        {
        }

        @Override
        public void cancel()
        {
        }

        @Override
        public boolean isDone()
        {
            return true;
        }

        @Override
        public void halfClose()
        {
        }
    }
}
