package io.xio.engine.session.call;

import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.ResponseListener;
import io.xio.engine.Session;
import io.xio.engine.XioException;
import io.xio.engine.XioFuture;
import io.xio.engine.context.EventLoop;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.session.Futures;
import io.xio.engine.session.Messages;
import io.xio.engine.session.SessionDrain;
import io.xio.engine.session.admission.CallAdmission;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;
import org.agrona.concurrent.NanoClock;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The calls one session makes: each is shown to the engine's client interceptors, admitted ({@link CallAdmission}),
 * given a pooled {@link PendingRequest} and a future (pooled too, with {@link CallOptions#withRecycledFuture()}),
 * and handed to a lane. It owns the futures it makes: their cancel is a cancel of their request id across the lanes
 * ({@link RangeCancels}). Any thread; the pools are lock-free queues made on first use.
 */
public final class CallSubmission
{
    /** What a call needs of the engine. */
    public record Engine(ClientInterceptorChain interceptors, NanoClock clock, EventLoop[] loops, long callerSpinNanos,
        int maxInFlight)
    {
    }

    private final Session session;
    private final Engine engine;
    private final CallAdmission admission;
    private final LaneRing lanes;
    private final RangeCancels rangeCancels;
    private final SessionDrain drain;
    private final boolean initiator;
    /** The flag that marks frames of this side's requests ({@link FrameFlags#FROM_ACCEPTOR} on a server session). */
    private final int mineFlag;
    private final Duration defaultTimeout;
    /** The session's id and address, for messages; known once it is set up. */
    private final Supplier<String> describe;
    public final AtomicLong requestsSent = new AtomicLong();
    /** Requests ready for reuse (every request, one-way message and listener call takes one). */
    private final Pool<PendingRequest> idleRequests;
    /** Futures of {@link CallOptions#withRecycledFuture()} calls ready for reuse. */
    private final Pool<XioFuture<?>> idleFutures;
    /** What every future of this session needs of it ({@link Futures#owner}): made once, so a call makes none. */
    private final Object futureOwner;

    /**
     * @param session the session as the application sees it, for the interceptors
     */
    public CallSubmission(final Session session, final Engine engine, final CallAdmission admission,
        final LaneRing lanes, final RangeCancels rangeCancels, final SessionDrain drain, final boolean initiator,
        final Duration defaultTimeout, final Supplier<String> describe)
    {
        this.session = session;
        this.engine = engine;
        this.admission = admission;
        this.lanes = lanes;
        this.rangeCancels = rangeCancels;
        this.drain = drain;
        this.initiator = initiator;
        this.mineFlag = initiator ? 0 : FrameFlags.FROM_ACCEPTOR;
        this.defaultTimeout = defaultTimeout;
        this.describe = describe;
        final int poolCapacity = Math.max(2, Math.min(engine.maxInFlight(), 4096));
        this.idleRequests = new Pool<>(poolCapacity);
        this.idleFutures = new Pool<>(poolCapacity);
        this.futureOwner = Futures.owner(engine.callerSpinNanos(), this::cancel, this::recycle);
    }

    /**
     * A request, or a one-way message ({@code oneWay}); its future completes with the outcome.
     *
     * @throws IllegalArgumentException when an exactly-once call's own idempotency key is not valid
     */
    public XioFuture<Object> submit(final Outbound message, final CallOptions requested, final boolean oneWay)
    {
        if (oneWay && message.output() != null)
        {
            throw new IllegalArgumentException("a one-way message takes no response, so no output buffer");
        }
        final CallOptions options;
        try
        {
            options = beforeSend(message, requested);
        }
        catch (final XioException refused)
        {
            return failedAtOnce(requested, unsent(refused));
        }
        final long deadline = deadline(options);
        final long requestId;
        try
        {
            requestId = admit(message, options, deadline);
        }
        catch (final XioException refused)
        {
            final XioException failure = unsent(refused);
            engine.interceptors().outcome(session, 0, null, failure);
            return failedAtOnce(requested, failure);
        }
        int flags = mineFlag;
        if (oneWay)
        {
            flags |= FrameFlags.ONE_WAY;
        }
        if (options.receipt())
        {
            flags |= FrameFlags.RECEIPT_REQUESTED;
        }
        XioFuture<Object> future = options.recycledFuture() && !oneWay && !options.receipt() ?
            recycledFuture(requestId) : null;
        if (future == null)
        {
            future = Futures.newFuture(requestId, options.receipt(), futureOwner);
        }
        final PendingRequest request = pendingRequest();
        request.reset(requestId, flags, message, future, null, deadline, oneWay, options.receipt());
        request.idempotent = options.idempotent();
        send(request);
        return future;
    }

    /** A request whose outcome goes to {@code listener}: its id, or 0 when it failed at once (the listener heard). */
    public long submit(final Outbound message, final CallOptions options, final ResponseListener listener)
    {
        Objects.requireNonNull(listener, "listener");
        if (options.receipt())
        {
            throw new IllegalArgumentException("a request with a ResponseListener takes no receipt; use the " +
                "future-returning request for that");
        }
        final CallOptions sent;
        try
        {
            sent = beforeSend(message, options);
        }
        catch (final XioException refused)
        {
            listener.onFailure(0, unsent(refused));
            return 0;
        }
        final long deadline = deadline(sent);
        final long requestId;
        try
        {
            requestId = admit(message, sent, deadline);
        }
        catch (final XioException refused)
        {
            final XioException failure = unsent(refused);
            engine.interceptors().outcome(session, 0, null, failure);
            listener.onFailure(0, failure);
            return 0;
        }
        final PendingRequest request = pendingRequest();
        request.reset(requestId, mineFlag, message, null, listener, deadline, false, false);
        request.idempotent = sent.idempotent();
        return send(request) ? requestId : 0;
    }

    private PendingRequest pendingRequest()
    {
        final PendingRequest request = idleRequests.get().poll();
        return request != null ? request : new PendingRequest(this);
    }

    /** A future from the pool, or a new one to pool; null where futures cannot be reused. */
    @SuppressWarnings("unchecked")
    private XioFuture<Object> recycledFuture(final long requestId)
    {
        XioFuture<Object> future = (XioFuture<Object>)idleFutures.get().poll();
        if (future == null)
        {
            future = Futures.newRecyclable(futureOwner);
            if (future == null)
            {
                return null;
            }
        }
        Futures.reuse(future, requestId);
        return future;
    }

    /**
     * The application cancelled {@code future}: a cancel of its one id, which each lane looks up by id (the request
     * object may be pooled, so the future holds none, nor does it know which lane holds the request now; with one
     * lane, the usual case, only that one is asked). Any thread.
     */
    private void cancel(final XioFuture<?> future, final long requestId)
    {
        if (requestId < 1)
        {
            Futures.cancelUnanswered(future);
            return;
        }
        rangeCancels.start(new RangeCancel(rangeCancels, requestId, lanes.all(), future));
    }

    /** A recycled future's response was closed: keep it for the next call. Any thread. */
    private void recycle(final XioFuture<?> future)
    {
        idleFutures.get().offer(future); // when full, left to the garbage collector
    }

    /** A request is done and unreachable: keep it for the next one. Any thread. */
    void recycle(final PendingRequest request)
    {
        idleRequests.get().offer(request); // when full, left to the garbage collector
    }

    /** A request's call ended: the room it took is free (its answer came, or it failed or was cancelled). */
    void finished(final long requestId)
    {
        admission.finished(requestId);
    }

    /** The engine's client interceptors hear the outcome of call {@code requestId}. */
    void outcome(final long requestId, final Message response, final Throwable failure)
    {
        if (!engine.interceptors().isEmpty())
        {
            engine.interceptors().outcome(session, requestId, response, failure);
        }
    }

    String describe()
    {
        return describe.get();
    }

    /** A call refused before it was written: a connection failure, as that call's, says it did not run. */
    private static XioException unsent(final XioException refused)
    {
        return refused instanceof ConnectionException lost ? lost.forCall(false) : refused;
    }

    private static XioFuture<Object> failedAtOnce(final CallOptions options, final XioException refused)
    {
        final XioFuture<Object> future = Futures.newFuture(0, options.receipt(), null);
        future.completeExceptionally(refused);
        return future;
    }

    /**
     * The engine's client interceptors' say on a call about to be admitted, then the identity it sends with the
     * options they return ({@link CallIdentity}: an interceptor may make a call exactly-once, or copy the metadata
     * carrying its key); then its metadata is sealed.
     *
     * @throws IllegalArgumentException when an exactly-once call's own idempotency key is not valid (the
     *                                  interceptors hear it as the call's outcome)
     */
    private CallOptions beforeSend(final Outbound message, final CallOptions options)
    {
        final Metadata given = message.metadata();
        final CallOptions result = engine.interceptors().beforeSend(session, message, options);
        try
        {
            CallIdentity.ready(message, given, result);
        }
        catch (final IllegalArgumentException invalid)
        {
            engine.interceptors().outcome(session, 0, null, invalid);
            throw invalid;
        }
        Messages.sealMetadata(message);
        return result;
    }

    /** When a call made now with {@code options} times out, on the engine's clock. */
    private long deadline(final CallOptions options)
    {
        return engine.clock().nanoTime() + timeout(options).toNanos();
    }

    /** Admits one more call ({@link CallAdmission#admit}): its id, or throws why not. */
    private long admit(final Outbound message, final CallOptions options, final long deadline)
    {
        final long requestId = admission.admit(message, options.waitWhenFull(), mayWait(options), timeout(options),
            deadline);
        requestsSent.incrementAndGet();
        return requestId;
    }

    private Duration timeout(final CallOptions options)
    {
        return options.timeout() != null ? options.timeout() : defaultTimeout;
    }

    private boolean mayWait(final CallOptions options)
    {
        return options.waitWhenFull() && !onAnyContext();
    }

    /** Hands the request to a lane, or fails it (on this thread) when none can take it: false then. */
    private boolean send(final PendingRequest request)
    {
        final Lane lane = lanes.pick(initiator);
        if (lane == null)
        {
            final ConnectionException draining = drain.failure();
            request.fail(draining != null ? draining :
                new ConnectionException("session " + describe() + " has no connection up"));
            return false;
        }
        request.lane = lane;
        if (lane.loop.inContextThread())
        {
            lane.submit(request);
        }
        else
        {
            lane.loop.execute(request);
        }
        return true;
    }

    private boolean onAnyContext()
    {
        for (final EventLoop loop : engine.loops())
        {
            if (loop.inContextThread())
            {
                return true;
            }
        }
        return false;
    }

    /** A pool of things ready for reuse, made on first use: a session may never send. Any thread. */
    private static final class Pool<T>
    {
        private final int capacity;
        private volatile ManyToManyConcurrentArrayQueue<T> queue;

        Pool(final int capacity)
        {
            this.capacity = capacity;
        }

        ManyToManyConcurrentArrayQueue<T> get()
        {
            ManyToManyConcurrentArrayQueue<T> made = queue;
            if (made == null)
            {
                synchronized (this)
                {
                    made = queue;
                    if (made == null)
                    {
                        made = new ManyToManyConcurrentArrayQueue<>(capacity);
                        queue = made;
                    }
                }
            }
            return made;
        }
    }
}
