package io.xio.engine.session;

import io.xio.engine.BackPressureException;
import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.RequestHandler;
import io.xio.engine.ResponseListener;
import io.xio.engine.Session;
import io.xio.engine.SessionEvent;
import io.xio.engine.SessionListener;
import io.xio.engine.SessionOptions;
import io.xio.engine.SessionStatistics;
import io.xio.engine.XioException;
import io.xio.engine.XioFuture;
import io.xio.engine.XioUri;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameFlags;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Both sides' session: request ids, the in-flight limit, the deduplication window for the peer's requests
 * and the lanes (the session's presence on each context, each with one connection). Thread-safe: fields
 * shared between contexts are atomic or volatile; per-request state lives in the lanes.
 */
public final class SessionImpl implements Session
{
    private static final int OPENING = 0;
    private static final int OPEN = 1;
    private static final int CLOSED = 2;

    final EngineCore engine;
    final boolean initiator;
    final int mineFlag;
    final XioUri uri;
    final String resource;
    final RequestHandler handler;
    final SessionListener listener;
    final Duration defaultTimeout;
    final Semaphore permits;
    final DedupWindow window;
    final IdWindow sentIds;
    final AtomicInteger executing = new AtomicInteger();
    final AtomicLong requestsSent = new AtomicLong();
    final AtomicLong requestsReceived = new AtomicLong();
    final AtomicLong retransmits = new AtomicLong();
    final AtomicLong backPressureRejections = new AtomicLong();
    private volatile int maxInFlight;
    private final AtomicLong ids = new AtomicLong();
    private final AtomicInteger state = new AtomicInteger(OPENING);
    private final CompletableFuture<Session> opened = new CompletableFuture<>();
    private final Map<String, String> sentAttributes;
    private volatile Map<String, String> attributes;
    private volatile long id;
    private volatile Lane[] lanes = new Lane[0];
    private volatile long lingerEpoch;
    /** Whether this (server) session's lanes pool their calls: {@link io.xio.engine.RequestReuse#AFTER_ANSWER}. */
    boolean reuseCalls;
    /** Requests of {@link #request(Outbound, CallOptions, ResponseListener)} ready for reuse. */
    private volatile org.agrona.concurrent.ManyToManyConcurrentArrayQueue<PendingRequest> idleRequests;

    private SessionImpl(final EngineCore engine, final boolean initiator, final XioUri uri, final String resource,
        final Map<String, String> attributes, final RequestHandler handler, final SessionListener listener,
        final Duration defaultTimeout)
    {
        this.engine = engine;
        this.initiator = initiator;
        this.mineFlag = initiator ? 0 : FrameFlags.FROM_ACCEPTOR;
        this.uri = uri;
        this.resource = resource;
        this.sentAttributes = attributes;
        this.attributes = attributes;
        this.handler = handler;
        this.listener = listener;
        this.defaultTimeout = defaultTimeout;
        this.permits = new Semaphore(engine.limits.maxInFlight());
        this.maxInFlight = engine.limits.maxInFlight();
        this.window = new DedupWindow(engine.limits.dedupWindow());
        this.sentIds = new IdWindow(engine.limits.dedupWindow());
    }

    /** A session the server side accepted. */
    static SessionImpl accepted(final EngineCore engine, final long id, final XioUri uri, final String resource,
        final Map<String, String> attributes, final RequestHandler handler)
    {
        final boolean reuse = handler instanceof ReusingHandler;
        final SessionImpl session = new SessionImpl(engine, false, uri, resource, Map.copyOf(attributes),
            reuse ? ((ReusingHandler)handler).handler() : handler, engine.listener, Duration.ofSeconds(5));
        session.reuseCalls = reuse;
        session.id = id;
        session.state.set(OPEN);
        session.opened.complete(session);
        return session;
    }

    /** Opens a client session to {@code uri}; completes once accepted and its connections are up. Any thread. */
    public static CompletableFuture<Session> open(final EngineCore engine, final XioUri uri,
        final SessionOptions options)
    {
        final SessionImpl session = new SessionImpl(engine, true, uri, uri.resource(), options.attributes(),
            options.handler(), options.listener(), options.timeout());
        final int count = options.connections() == 0 ? engine.loopCount() : options.connections();
        final Lane[] lanes = new Lane[count];
        for (int i = 0; i < count; i++)
        {
            lanes[i] = new Lane(session, engine.peers(i % engine.loopCount()), i / engine.loopCount());
        }
        session.lanes = lanes;
        engine.opened.add(session);
        final Lane first = lanes[0];
        first.loop.execute(() -> first.setup(uri, 0, java.util.List.of()));
        return session.opened;
    }

    Map<String, String> sentAttributes()
    {
        return sentAttributes;
    }

    // ---- set-up outcome (client side), called on the first lane's context ----

    void assignId(final long sessionId)
    {
        id = sessionId;
    }

    /** Adopts the peer's smaller limits: in flight, and the id span its deduplication window covers. */
    void limitTo(final int peerMaxInFlight, final int peerDedupWindow)
    {
        sentIds.limit(peerDedupWindow);
        final int excess = engine.limits.maxInFlight() - Math.max(1, peerMaxInFlight);
        if (excess > 0)
        {
            permits.acquireUninterruptibly(excess);
            maxInFlight -= excess;
        }
    }

    void established(final Map<String, String> acceptedAttributes, final XioUri target)
    {
        attributes = Map.copyOf(acceptedAttributes);
        final Lane[] all = lanes;
        if (all.length == 1)
        {
            markOpen(target);
            return;
        }
        final AtomicInteger remaining = new AtomicInteger(all.length - 1);
        for (int i = 1; i < all.length; i++)
        {
            final Lane lane = all[i];
            lane.loop.execute(() -> lane.connectFirst(target, () ->
            {
                if (remaining.decrementAndGet() == 0)
                {
                    markOpen(target);
                }
            }));
        }
    }

    private void markOpen(final XioUri target)
    {
        if (state.compareAndSet(OPENING, OPEN))
        {
            fire(SessionEvent.Type.ESTABLISHED, "session " + id + " to " + target.withResource(resource) +
                " established with " + connectionCount() + " connection(s)", null);
            opened.complete(this);
        }
    }

    void refused(final Throwable cause)
    {
        if (state.compareAndSet(OPENING, CLOSED))
        {
            engine.opened.remove(this);
            fire(SessionEvent.Type.REFUSED, cause.getMessage(), cause); // listeners hear it before the caller
            opened.completeExceptionally(cause);
            closeLanes(cause, false);
        }
    }

    private void closeLanes(final Throwable cause, final boolean tellPeer)
    {
        for (final Lane lane : lanes)
        {
            if (lane.loop.inContextThread())
            {
                lane.close(cause, tellPeer);
            }
            else if (!lane.loop.isClosed())
            {
                try
                {
                    lane.loop.execute(() -> lane.close(cause, tellPeer));
                }
                catch (final XioException closing)
                {
                    // that context stopped meanwhile; its connections are gone already
                }
            }
        }
    }

    // ---- lanes ----

    /** A lane for a connection that set up or attached to this session; null when the session is closed. */
    Lane newServerLane(final Peers peers)
    {
        final Lane lane = new Lane(this, peers, 0);
        synchronized (this)
        {
            if (state.get() == CLOSED)
            {
                return null;
            }
            final Lane[] grown = Arrays.copyOf(lanes, lanes.length + 1);
            grown[grown.length - 1] = lane;
            lanes = grown;
            lingerEpoch++;
        }
        return lane;
    }

    /** A server lane lost its connection for good: forget it, and expire the session if none is left. */
    void removeServerLane(final Lane lane)
    {
        final boolean none;
        final long epoch;
        synchronized (this)
        {
            final Lane[] current = lanes;
            int at = -1;
            for (int i = 0; i < current.length; i++)
            {
                if (current[i] == lane)
                {
                    at = i;
                }
            }
            if (at < 0)
            {
                return;
            }
            final Lane[] shrunk = new Lane[current.length - 1];
            System.arraycopy(current, 0, shrunk, 0, at);
            System.arraycopy(current, at + 1, shrunk, at, current.length - at - 1);
            lanes = shrunk;
            none = shrunk.length == 0;
            epoch = lingerEpoch;
        }
        if (none && isOpen())
        {
            // Expires unless a connection attached since (which moves the epoch on).
            lane.loop.schedule(lane.loop.nanoTime() + engine.reconnectTimeout.toNanos(), () -> expire(epoch));
        }
    }

    private void expire(final long epoch)
    {
        synchronized (this)
        {
            // An attach since the loss moved the epoch on, or added a lane: then the session stays.
            if (lanes.length != 0 || lingerEpoch != epoch || !state.compareAndSet(OPEN, CLOSED))
            {
                return;
            }
        }
        {
            engine.accepted.remove(id);
            fire(SessionEvent.Type.CLOSED, "session " + id + " expired: the client did not come back within " +
                engine.reconnectTimeout, null);
        }
    }

    int laneCount()
    {
        return lanes.length;
    }

    /** The lane after {@code lane} in this session's ring of lanes, or null when it is the only one. */
    Lane laneAfter(final Lane lane)
    {
        final Lane[] all = lanes;
        for (int i = 0; i < all.length; i++)
        {
            if (all[i] == lane)
            {
                return all.length > 1 ? all[(i + 1) % all.length] : null;
            }
        }
        return all.length > 0 ? all[0] : null;
    }

    /** A client lane came up: lanes still down hand it their waiting requests. */
    void laneUp(final Lane up)
    {
        for (final Lane lane : lanes)
        {
            if (lane != up && !lane.isUp())
            {
                lane.loop.execute(() -> lane.handOver(up));
            }
        }
    }

    /** An open lane, preferring one on the calling context; null when none is up. */
    Lane openLane(final Lane except)
    {
        Lane any = null;
        for (final Lane lane : lanes)
        {
            if (lane != except && lane.isUp())
            {
                if (lane.loop.inContextThread())
                {
                    return lane;
                }
                if (any == null)
                {
                    any = lane;
                }
            }
        }
        return any;
    }

    private Lane pick()
    {
        final Lane[] all = lanes;
        final int n = all.length;
        if (n == 0)
        {
            return null;
        }
        for (final Lane lane : all)
        {
            if (lane.loop.inContextThread() && lane.isUp())
            {
                return lane;
            }
        }
        final int start = (int)(Thread.currentThread().getId() % n);
        for (int i = 0; i < n; i++)
        {
            final Lane lane = all[(start + i) % n];
            if (lane.isUp())
            {
                return lane;
            }
        }
        return initiator ? all[start] : null;
    }

    // ---- sending ----

    @Override
    @SuppressWarnings("unchecked")
    public XioFuture<Message> request(final Outbound message, final CallOptions options)
    {
        return (XioFuture<Message>)(XioFuture<?>)submit(message, options, false);
    }

    @Override
    @SuppressWarnings("unchecked")
    public XioFuture<Void> send(final Outbound message, final CallOptions options)
    {
        return (XioFuture<Void>)(XioFuture<?>)submit(message, options, true);
    }

    @Override
    public long request(final Outbound message, final CallOptions options, final ResponseListener listener)
    {
        java.util.Objects.requireNonNull(listener, "listener");
        if (options.receipt())
        {
            throw new IllegalArgumentException("a request with a ResponseListener takes no receipt; use the " +
                "future-returning request for that");
        }
        final long deadline = deadline(options);
        final long requestId;
        try
        {
            requestId = admit(message, options, deadline);
        }
        catch (final XioException refused)
        {
            listener.onFailure(0, refused);
            return 0;
        }
        PendingRequest request = idleRequests().poll();
        if (request == null)
        {
            request = new PendingRequest(this);
        }
        return send(request.reset(requestId, mineFlag, message, null, listener, deadline, false, false)) ? requestId : 0;
    }

    private XioFuture<Object> submit(final Outbound message, final CallOptions options, final boolean oneWay)
    {
        if (oneWay && message.output() != null)
        {
            throw new IllegalArgumentException("a one-way message takes no response, so no output buffer");
        }
        final long deadline = deadline(options);
        final long requestId;
        try
        {
            requestId = admit(message, options, deadline);
        }
        catch (final XioException refused)
        {
            final XioFuture<Object> future = Futures.newFuture(0, options.receipt(), 0);
            future.completeExceptionally(refused);
            return future;
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
        final XioFuture<Object> future = Futures.newFuture(requestId, options.receipt(), engine.callerSpinNanos);
        final PendingRequest request = new PendingRequest(this, requestId, flags, message, future, deadline, oneWay,
            options.receipt());
        Futures.onCancel(future, () -> request.lane.cancelLater(request));
        send(request);
        return future;
    }

    /** When a call made now with {@code options} times out, on the engine's clock. */
    private long deadline(final CallOptions options)
    {
        return engine.clock.nanoTime() + timeout(options).toNanos();
    }

    /**
     * Checks the message, takes an in-flight permit and the next request id, waiting for room where the options
     * allow it; returns the id, or throws why not (counted when it was for lack of room).
     */
    private long admit(final Outbound message, final CallOptions options, final long deadline)
    {
        final boolean mayWait = mayWait(options);
        final XioException refused = check(message, options, mayWait, timeout(options));
        final long requestId = refused == null ? nextId(mayWait, deadline) : 0;
        if (requestId == 0)
        {
            final XioException cause = refused != null ? refused : outsideWindow();
            if (cause instanceof BackPressureException)
            {
                rejected();
            }
            throw cause;
        }
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

    /** Checks the message and takes an in-flight permit; returns why not, or null. */
    private XioException check(final Outbound message, final CallOptions options, final boolean mayWait,
        final Duration timeout)
    {
        final long frameLength = Frame.frameLength(message.headerLength(), message.segmentCount(),
            message.dataLength());
        if (frameLength > engine.limits.maxMessageBytes() || message.segmentCount() > engine.limits.maxSegments() ||
            message.headerLength() > engine.limits.maxHeaderBytes())
        {
            return new XioException("message of " + frameLength + " bytes, " +
                message.segmentCount() + " segments and a " + message.headerLength() + "-byte header exceeds " +
                "the limits " + engine.limits + " of session " + describe());
        }
        if (!isOpen())
        {
            return new ConnectionException("session " + describe() + " is closed");
        }
        return acquire(options.waitWhenFull(), mayWait, timeout);
    }

    /** No id fits the peer's window: give the permit back and say why. */
    private XioException outsideWindow()
    {
        permits.release();
        return new BackPressureException("session " + describe() + " cannot send: request " +
            sentIds.floor() + " is still unanswered and the ids in flight may span at most the peer's " +
            "deduplication window");
    }

    /** Hands the request to a lane, or fails it (on this thread) when none can take it: false then. */
    private boolean send(final PendingRequest request)
    {
        final Lane lane = pick();
        if (lane == null)
        {
            request.fail(new ConnectionException("session " + describe() + " has no connection up"));
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

    /** A listener's request is done and unreachable: keep it for the next one. Any thread. */
    void recycle(final PendingRequest request)
    {
        idleRequests().offer(request); // when full, left to the garbage collector
    }

    /** Made on first use: most sessions never send through a listener. */
    private org.agrona.concurrent.ManyToManyConcurrentArrayQueue<PendingRequest> idleRequests()
    {
        org.agrona.concurrent.ManyToManyConcurrentArrayQueue<PendingRequest> idle = idleRequests;
        if (idle == null)
        {
            synchronized (this)
            {
                idle = idleRequests;
                if (idle == null)
                {
                    idle = new org.agrona.concurrent.ManyToManyConcurrentArrayQueue<>(
                        Math.max(2, Math.min(engine.limits.maxInFlight(), 4096)));
                    idleRequests = idle;
                }
            }
        }
        return idle;
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
                if (permits.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS))
                {
                    return null;
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return new XioException("interrupted waiting to send on " + describe(), ex);
            }
        }
        return new BackPressureException("session " + describe() + " has " + engine.limits.maxInFlight() +
            " requests in flight, its limit" +
            (wanted ? (mayWait ? " for all of " + timeout : " (a context thread cannot wait)") : ""));
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
            else if (!mayWait || engine.clock.nanoTime() - deadline >= 0)
            {
                return 0;
            }
            else
            {
                java.util.concurrent.locks.LockSupport.parkNanos(50_000); // rare: an old request is stuck
            }
        }
    }

    private boolean onAnyContext()
    {
        for (final var loop : engine.loops)
        {
            if (loop.inContextThread())
            {
                return true;
            }
        }
        return false;
    }

    // ---- answering the peer's requests ----

    /** A call was answered (response == null: a one-way delivered). Any thread. */
    void answered(final ServerCall call, final int status, final Outbound response)
    {
        executing.decrementAndGet();
        if (response == null)
        {
            window.complete(call.id, status, null, 0);
            call.release(); // nothing to send
            return;
        }
        final long frameLength = Frame.frameLength(response.headerLength(), response.segmentCount(),
            response.dataLength());
        if (frameLength > engine.limits.maxMessageBytes() || response.segmentCount() > engine.limits.maxSegments() ||
            response.headerLength() > engine.limits.maxHeaderBytes())
        {
            // Fail the call here rather than make the peer drop the connection over an oversized frame.
            response.released();
            final String text = XioException.class.getName() + "\nresponse of " + frameLength + " bytes, " +
                response.segmentCount() + " segments and a " + response.headerLength() + "-byte header exceeds " +
                "the limits " + engine.limits;
            sendAnswer(call, io.xio.engine.protocol.Status.APPLICATION_ERROR, Outbound.of(
                ByteBuffer.wrap(text.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
            return;
        }
        sendAnswer(call, status, response);
    }

    private void sendAnswer(final ServerCall call, final int status, final Outbound response)
    {
        window.complete(call.id, status, response, engine.limits.retainedResponseBytes());
        final Lane lane = call.replyLane();
        if (lane.loop.inContextThread())
        {
            lane.sendResponse(call, status, response);
        }
        else
        {
            call.sendOn(lane, status, response);
        }
    }

    /** The peer cancelled call {@code id}, which had not been answered. */
    void cancelled(final long id)
    {
        executing.decrementAndGet();
        window.complete(id, 0, null, 0);
    }

    // ---- closing ----

    void closedByPeer(final String reason)
    {
        shutDown(new ConnectionException("session " + describe() + " closed by the peer: " + reason), false);
    }

    void fail(final Throwable cause)
    {
        shutDown(cause, false);
    }

    @Override
    public void close()
    {
        shutDown(new ConnectionException("session " + describe() + " was closed"), true);
    }

    private void shutDown(final Throwable cause, final boolean tellPeer)
    {
        final int previous = state.getAndSet(CLOSED);
        if (previous == CLOSED)
        {
            return;
        }
        if (initiator)
        {
            engine.opened.remove(this);
        }
        else
        {
            engine.accepted.remove(id);
        }
        if (previous == OPENING)
        {
            opened.completeExceptionally(cause);
        }
        closeLanes(cause, tellPeer);
        fire(SessionEvent.Type.CLOSED, cause.getMessage(), tellPeer ? null : cause);
    }

    void fire(final SessionEvent.Type type, final String detail, final Throwable cause)
    {
        engine.fire(listener, new SessionEvent(type, this, detail, cause));
    }

    String describe()
    {
        return (id == 0 ? "" : id + " ") + "(" + uri.withResource(resource) + ")";
    }

    // ---- Session ----

    @Override
    public long id()
    {
        return id;
    }

    @Override
    public XioUri uri()
    {
        return uri;
    }

    @Override
    public String resource()
    {
        return resource;
    }

    @Override
    public Map<String, String> attributes()
    {
        return attributes;
    }

    @Override
    public boolean isOpen()
    {
        return state.get() == OPEN;
    }

    @Override
    public boolean isServerSide()
    {
        return !initiator;
    }

    /** A request refused for lack of room, here or by the peer. */
    void rejected()
    {
        backPressureRejections.incrementAndGet();
        engine.rejected();
    }

    @Override
    public SessionStatistics statistics()
    {
        return new SessionStatistics(requestsSent.get(), requestsReceived.get(),
            Math.max(0, maxInFlight - permits.availablePermits()), executing.get(), retransmits.get(),
            backPressureRejections.get());
    }

    @Override
    public java.util.List<String> peerAddresses()
    {
        final java.util.List<String> peers = new java.util.ArrayList<>();
        for (final Lane lane : lanes)
        {
            final String address = lane.isUp() ? lane.remoteAddress() : null;
            if (address != null)
            {
                peers.add(address);
            }
        }
        return peers;
    }

    @Override
    public int connectionCount()
    {
        int up = 0;
        for (final Lane lane : lanes)
        {
            if (lane.isUp())
            {
                up++;
            }
        }
        return up;
    }

    @Override
    public void cancelAll()
    {
        for (final Lane lane : lanes)
        {
            lane.loop.execute(lane::cancelAll);
        }
    }

    @Override
    public void abortConnections()
    {
        for (final Lane lane : lanes)
        {
            lane.loop.execute(lane::abort);
        }
    }

    @Override
    public String toString()
    {
        return "Session[" + describe() + ", " + (initiator ? "client" : "server") + "]";
    }
}
