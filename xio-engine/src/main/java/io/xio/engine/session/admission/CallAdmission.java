package io.xio.engine.session.admission;

import io.xio.engine.BackPressureException;
import io.xio.engine.ConnectionException;
import io.xio.engine.Limits;
import io.xio.engine.Outbound;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.XioException;
import io.xio.engine.protocol.CallContext;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.protocol.StreamFrames;
import org.agrona.concurrent.NanoClock;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Whether a session may send one more request, and under which id: the message within the limits, an
 * in-flight permit (at most the smaller of both sides' in-flight limits), and the next id, taken only once it
 * lies within the peer's deduplication window above the oldest unanswered id. A finished request gives both
 * back. Thread-safe: the application's threads admit, the contexts' finish.
 */
public final class CallAdmission
{
    /** What admission needs of its session. */
    public interface Host
    {
        boolean isOpen();

        /** The session's id and address, for messages. */
        String describe();

        /** A call was refused for lack of room: counted. */
        void rejected();

        /** The session's drain, which refuses calls once it began; made after this admission, asked for later. */
        Drain drain();
    }

    /**
     * The session's drain as admission sees it, so that admission (below the session) names nothing of the
     * session's own parts. The session's drain implements it; any thread.
     */
    public interface Drain
    {
        boolean isDraining();

        /** Why calls are refused now that the session drains; null while it does not. */
        XioException failure();

        /** Closes the session once nothing is in flight either way (a drained session closes itself). */
        void closeIfDrained();
    }

    /** How long a caller waiting for room sleeps before it looks whether its session goes away. */
    private static final long WAIT_SLICE_NANOS = 10_000_000L;
    private final Host session;
    private final Limits limits;
    private final NanoClock clock;
    /** What may be sent: this side's limits, lowered to the sizes the peer announced it accepts. */
    private volatile Limits sendLimits;
    private final Semaphore permits;
    private final IdWindow sentIds;
    private final AtomicLong ids = new AtomicLong();
    private volatile int maxInFlight;

    public CallAdmission(final Host session, final Limits limits, final NanoClock clock)
    {
        this.session = session;
        this.limits = limits;
        this.clock = clock;
        this.sendLimits = limits;
        this.permits = new Semaphore(limits.maxInFlight());
        this.maxInFlight = limits.maxInFlight();
        this.sentIds = new IdWindow(limits.dedupWindow());
    }

    /**
     * Adopts the sizes the peer accepts where they are smaller than ours, so a message it would refuse (closing its
     * connection, and with it every session's calls on it, again at each retransmit) is refused here instead.
     */
    public void limitSizesTo(final Announced peer)
    {
        sendLimits = limits.withMaxMessageBytes(Math.min(peer.messageBytes(), limits.maxMessageBytes()))
            .withMaxHeaderBytes(Math.min(peer.headerBytes(), limits.maxHeaderBytes()))
            .withMaxMetadataBytes(Math.min(peer.metadataBytes(), limits.maxMetadataBytes()))
            .withMaxSegments(Math.min(peer.segments(), limits.maxSegments()));
    }

    /** The sizes a peer announced in its SETUP or SETUP_ACCEPT: what it accepts. */
    public record Announced(int messageBytes, int headerBytes, int metadataBytes, int segments)
    {
        /** Reads them, refusing sizes a peer cannot mean, before anything (an acceptor, a quota) is spent. */
        public static Announced read(final SetupCodec.Reader body)
        {
            final Announced sizes = new Announced(body.i32(), body.i32(), body.i32(), body.i32());
            if (sizes.messageBytes <= 0 || sizes.headerBytes <= 0 || sizes.metadataBytes <= 0 || sizes.segments <= 0)
            {
                throw new ProtocolViolationException("announced limits must be positive, were " + sizes);
            }
            return sizes;
        }
    }

    /** This side's limits on what it sends, lowered to what the peer announced. Any thread. */
    public Limits sendLimits()
    {
        return sendLimits;
    }

    /** Writes the sizes this side accepts, for its SETUP or SETUP_ACCEPT ({@link #limitSizesTo} takes them). */
    public static SetupCodec.Writer announce(final SetupCodec.Writer body, final Limits limits)
    {
        return body.i32(limits.maxMessageBytes()).i32(limits.maxHeaderBytes()).i32(limits.maxMetadataBytes())
            .i32(limits.maxSegments());
    }

    /** Adopts the peer's smaller limits: in flight, and the id span its deduplication window covers. */
    public void limitTo(final int peerMaxInFlight, final int peerDedupWindow)
    {
        sentIds.limit(peerDedupWindow);
        final int excess = limits.maxInFlight() - Math.max(1, peerMaxInFlight);
        if (excess > 0)
        {
            permits.acquireUninterruptibly(excess);
            maxInFlight -= excess;
        }
    }

    /** Requests admitted and not finished. */
    public int inFlight()
    {
        return Math.max(0, maxInFlight - permits.availablePermits());
    }

    /**
     * Checks the message, takes a permit and the next id, waiting for room up to {@code deadline} when
     * {@code mayWait}; returns the id, or throws why not (counted when it was for lack of room).
     */
    public long admit(final Outbound message, final boolean waitWanted, final boolean mayWait, final Duration timeout,
        final long deadline)
    {
        final XioException refused = check(message, waitWanted, mayWait, timeout);
        final long requestId = refused == null ? nextId(mayWait, deadline) : 0;
        if (requestId == 0)
        {
            final XioException draining = refused == null ? session.drain().failure() : null;
            if (draining != null)
            {
                permits.release(); // went away while this call waited for an id: it goes elsewhere
                session.drain().closeIfDrained();
                throw draining;
            }
            final XioException cause = refused != null ? refused : outsideWindow();
            if (cause instanceof BackPressureException)
            {
                session.rejected();
            }
            throw cause;
        }
        return requestId;
    }

    /** Request {@code id} is finished: its permit and its place in the window are free again. */
    public void finished(final long id)
    {
        sentIds.finished(id);
        permits.release();
        if (session.drain().isDraining())
        {
            session.drain().closeIfDrained();
        }
    }

    private XioException check(final Outbound message, final boolean waitWanted, final boolean mayWait,
        final Duration timeout)
    {
        final String oversize = oversize(message, CallContext.DEADLINE_ITEM, sendLimits);
        if (oversize != null)
        {
            return new XioException(oversize + " of session " + session.describe());
        }
        final XioException draining = session.drain().failure();
        if (draining != null)
        {
            return draining; // first: a drained session closes itself, and its callers may go elsewhere
        }
        if (!session.isOpen())
        {
            return new ConnectionException("session " + session.describe() + " is closed");
        }
        final XioException refused = acquire(waitWanted, mayWait, timeout);
        final XioException drainedMeanwhile = refused == null ? session.drain().failure() : null;
        if (drainedMeanwhile != null)
        {
            permits.release(); // went away while this call waited for room: it goes elsewhere
            session.drain().closeIfDrained();
            return drainedMeanwhile;
        }
        return refused;
    }

    /**
     * Why {@code message} is too large to send under {@code limits}, with a call context of {@code deadlineBytes}
     * (a request's deadline item, or 0) plus its metadata; or null when it fits.
     */
    public static String oversize(final Outbound message, final int deadlineBytes, final Limits limits)
    {
        return oversize(message, 0, deadlineBytes, limits);
    }

    /**
     * Why {@code message} is too large to send as a stream's STREAM_DATA under {@code limits}: its header area holds
     * the sequence number, which counts against {@code maxHeaderBytes} but is no part of the call context; or null.
     */
    public static String streamOversize(final Outbound message, final Limits limits)
    {
        return oversize(message, StreamFrames.SEQUENCE_LENGTH, 0, limits);
    }

    /** The header area is {@code prefixBytes}, the call context (when any), then the application header. */
    private static String oversize(final Outbound message, final int prefixBytes, final int deadlineBytes,
        final Limits limits)
    {
        final int metadata = deadlineBytes + (message.metadata() == null ? 0 : message.metadata().encodedLength());
        final int header = prefixBytes + message.headerLength() +
            (metadata == 0 ? 0 : CallContext.LENGTH_FIELD + metadata);
        final long frameLength = Frame.frameLength(header, message.segmentCount(), message.dataLength());
        if (frameLength > limits.maxMessageBytes() || message.segmentCount() > limits.maxSegments() ||
            header > limits.maxHeaderBytes() || metadata > limits.maxMetadataBytes())
        {
            return "message of " + frameLength + " bytes, " + message.segmentCount() + " segments and a " + header +
                "-byte header (" + metadata + " bytes of call context) exceeds the limits " + limits;
        }
        return null;
    }

    /** Takes an in-flight permit; returns why not, or null. */
    private XioException acquire(final boolean wanted, final boolean mayWait, final Duration timeout)
    {
        if (permits.tryAcquire())
        {
            return null;
        }
        if (mayWait)
        {
            try
            {
                // In slices, so that a GOAWAY meanwhile refuses the waiter at once rather than at its timeout.
                final long until = System.nanoTime() + timeout.toNanos();
                for (long left = timeout.toNanos(); left > 0 && !session.drain().isDraining();
                    left = until - System.nanoTime())
                {
                    if (permits.tryAcquire(Math.min(left, WAIT_SLICE_NANOS), TimeUnit.NANOSECONDS))
                    {
                        return null;
                    }
                }
                final XioException draining = session.drain().failure();
                if (draining != null)
                {
                    return draining;
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return new XioException("interrupted waiting to send on " + session.describe(), ex);
            }
        }
        return new BackPressureException("session " + session.describe() + " has " + limits.maxInFlight() +
            " requests in flight, its limit" +
            (wanted ? (mayWait ? " for all of " + timeout : " (a context thread cannot wait)") : ""));
    }

    /** No id fits the peer's window: give the permit back and say why. */
    private XioException outsideWindow()
    {
        permits.release();
        return new BackPressureException("session " + session.describe() + " cannot send: request " +
            sentIds.floor() + " is still unanswered and the ids in flight may span at most the peer's " +
            "deduplication window");
    }

    /**
     * The next request id, taken only once it fits the window above the oldest unanswered id (so an id is never
     * wasted); waits for that if allowed. Returns 0 when it does not fit.
     */
    private long nextId(final boolean mayWait, final long deadline)
    {
        while (true)
        {
            final long last = ids.get();
            if (sentIds.admits(last + 1))
            {
                if (ids.compareAndSet(last, last + 1))
                {
                    return last + 1;
                }
            }
            else if (!mayWait || clock.nanoTime() - deadline >= 0 || session.drain().isDraining())
            {
                return 0;
            }
            else
            {
                LockSupport.parkNanos(50_000); // rare: an old request is stuck
            }
        }
    }
}
