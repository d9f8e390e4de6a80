package io.xio.engine.session;

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
import io.xio.engine.protocol.FrameFlags;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Both sides' session: its life (opening, open, closed; a server session lingering for its client to come
 * back), what it admits ({@link CallAdmission}), the deduplication window for the peer's requests, its
 * {@link LaneRing} and its counters. Thread-safe: fields shared between contexts are atomic or volatile;
 * per-request state lives in the lanes.
 */
public final class SessionImpl implements Session, ApiBridge.FutureOwner
{
    private static final int OPENING = 0;
    private static final int OPEN = 1;
    private static final int CLOSED = 2;

    private static final ApiBridge.MetadataAccess METADATA = ApiBridge.metadata();
    final EngineCore engine;
    final boolean initiator;
    final int mineFlag;
    final XioUri uri;
    final String resource;
    final RequestHandler handler;
    final SessionListener listener;
    final Duration defaultTimeout;
    final DedupWindow window;
    final CallAdmission admission;
    /** This session's share of {@link EngineCore#retained}: the peer's responses held until it acknowledges them. */
    final ByteBudget retained;
    final AtomicInteger executing = new AtomicInteger();
    final AtomicLong requestsSent = new AtomicLong();
    final AtomicLong requestsReceived = new AtomicLong();
    final AtomicLong retransmits = new AtomicLong();
    final AtomicLong backPressureRejections = new AtomicLong();
    private final AtomicInteger state = new AtomicInteger(OPENING);
    private final CompletableFuture<Session> opened = new CompletableFuture<>();
    private final Map<String, String> sentAttributes;
    private volatile Map<String, String> attributes;
    private volatile long id;
    private final LaneRing lanes = new LaneRing();
    /** Why the session closed; null while it is open. */
    private final java.util.concurrent.atomic.AtomicReference<Throwable> closedBy =
        new java.util.concurrent.atomic.AtomicReference<>();
    private volatile long lingerEpoch;
    /**
     * What proves a connection belongs to this session: issued by the server with its SETUP_ACCEPT, shown by the
     * client in every ATTACH. Never logged.
     */
    private volatile byte[] secret;
    /** The host that set this (server) session up: its share of {@link io.xio.engine.Limits#maxSessionsPerPeer()}. */
    String peerHost;
    /** What the transport proved about the client of this (server) session, at set-up. */
    io.xio.engine.PeerIdentity peerIdentity;
    /** The portal this (server) session was set up through: its attaches must come through it too. */
    PortalImpl portal;
    /** The TLS options of this (client) session's {@code tls} connections; null for the engine's. */
    io.xio.engine.TlsOptions tls;
    /** Asked for the credentials of each set-up (client side); see {@link SessionOptions#credentials()}. */
    java.util.function.Supplier<io.xio.engine.Credentials> credentials = () -> io.xio.engine.Credentials.NONE;
    /** Whether credentials follow a redirect that weakens them; see {@link SessionOptions#credentialsOnRedirect()}. */
    boolean credentialsOnRedirect;
    /** Who this (server) session belongs to, as its acceptor said; null for an anonymous one. */
    java.security.Principal principal;
    /** That principal's share of the per-principal limits; null for an anonymous session. */
    Principals.Share principalShare;
    /** Whether this (server) session's lanes pool their calls: {@link io.xio.engine.RequestReuse#AFTER_ANSWER}. */
    boolean reuseCalls;
    /** Range cancels in progress ({@link RangeCancel}), copied on write. */
    private volatile RangeCancel[] rangeCancels = RangeCancel.NONE;
    /**
     * Client side: the last GOAWAY the server sent; server side: the last one sent to the client. Null until then;
     * from then on this side sends no new request ({@link #drainingFailure}).
     */
    private volatile io.xio.engine.GoAway goAway;
    /** Server side: the body of {@link #goAway}, sent again on each connection that attaches while draining. */
    private volatile byte[] goAwayBody;
    /** Client side: whether the close after the last answer of a drained session was started. */
    private final java.util.concurrent.atomic.AtomicBoolean drainClosing =
        new java.util.concurrent.atomic.AtomicBoolean();
    /**
     * Server side: the portals besides {@link #portal} the client may attach through, as its acceptor named them
     * ({@link io.xio.engine.SetupDecision.Accept#withConnectionPortals}); empty for none.
     */
    java.util.List<PortalImpl> connectionPortals = java.util.List.of();
    /**
     * Server side: whether the client announced it understands GOAWAY ({@code SetupCodec.FEATURE_GOAWAY}); one that
     * does not would take the frame for a violation and close, then re-open, in a loop: it is sent none.
     */
    boolean peerUnderstandsGoAway;
    /** Requests ready for reuse (every request, one-way message and listener call takes one). */
    private volatile org.agrona.concurrent.ManyToManyConcurrentArrayQueue<PendingRequest> idleRequests;
    /** Futures of {@link CallOptions#withRecycledFuture()} calls ready for reuse, made on first use. */
    private volatile org.agrona.concurrent.ManyToManyConcurrentArrayQueue<XioFuture<?>> idleFutures;

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
        this.window = new DedupWindow(engine.limits.dedupWindow());
        this.admission = new CallAdmission(this, engine.limits);
        this.retained = new ByteBudget(engine.limits.maxRetainedBytesPerSession(), engine.retained);
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
        session.secret = engine.newSecret();
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
        session.tls = options.tls();
        final int count = options.connections() == 0 ? engine.loopCount() : options.connections();
        final Lane[] lanes = new Lane[count];
        for (int i = 0; i < count; i++)
        {
            lanes[i] = new Lane(session, engine.peers(i % engine.loopCount()), i / engine.loopCount());
        }
        session.credentials = options.credentials();
        session.credentialsOnRedirect = options.credentialsOnRedirect();
        session.lanes.set(lanes);
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

    void assignId(final long sessionId, final byte[] sessionSecret)
    {
        id = sessionId;
        secret = sessionSecret;
    }

    byte[] secret()
    {
        return secret;
    }

    /** Whether {@code proof} is this session's secret; in constant time, so timing tells an attacker nothing. */
    boolean provenBy(final byte[] proof)
    {
        final byte[] expected = secret;
        return expected != null && java.security.MessageDigest.isEqual(expected, proof);
    }

    /** Adopts the peer's smaller limits: in flight, and the id span its deduplication window covers. */
    void limitTo(final int peerMaxInFlight, final int peerDedupWindow)
    {
        admission.limitTo(peerMaxInFlight, peerDedupWindow);
    }

    /**
     * The server accepted at {@code target}: the further lanes attach, the second to the first of
     * {@code connectionPortals}, the third to the next and so on in turn, each trying the rest and then
     * {@code target} when it cannot reach its own; all of them to {@code target} when there are none.
     */
    void established(final Map<String, String> acceptedAttributes, final XioUri target,
        final java.util.List<XioUri> connectionPortals)
    {
        attributes = Map.copyOf(acceptedAttributes);
        final Lane[] all = lanes.all();
        if (all.length == 1)
        {
            markOpen(target);
            return;
        }
        final AtomicInteger remaining = new AtomicInteger(all.length - 1);
        final int n = connectionPortals.size();
        for (int i = 1; i < all.length; i++)
        {
            final Lane lane = all[i];
            final java.util.List<XioUri> order = new java.util.ArrayList<>(n + 1);
            for (int k = 0; k < n; k++)
            {
                order.add(connectionPortals.get((i - 1 + k) % n));
            }
            order.add(target);
            lane.loop.execute(() -> lane.connectFirst(order.get(0), order.subList(1, order.size()), () ->
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
        if (state.get() == OPENING)
        {
            closedBy.compareAndSet(null, cause);
        }
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
        for (final Lane lane : lanes.all())
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
            lanes.add(lane);
            lingerEpoch++;
        }
        return lane;
    }

    /** A server lane is gone for good (its requests failed or handed over): forget it, expire if none is left. */
    void removeServerLane(final Lane lane)
    {
        final boolean none;
        final long epoch;
        synchronized (this)
        {
            if (!lanes.remove(lane))
            {
                return;
            }
            none = lanes.live() == 0;
            epoch = lingerEpoch;
        }
        if (none && isOpen())
        {
            // Expires unless a connection attached since (which moves the epoch on).
            lane.peers.expireLater(this, epoch);
        }
    }

    /**
     * A server lane lost the session's last connection and keeps this side's requests (parked) for the client's
     * return; the session expires unless a connection attaches within the reconnect timeout.
     */
    void parked(final Lane lane)
    {
        final boolean none;
        final long epoch;
        synchronized (this)
        {
            none = lanes.live() == 0;
            epoch = lingerEpoch;
        }
        if (none && isOpen())
        {
            lane.peers.expireLater(this, epoch);
        }
    }

    void expire(final long epoch)
    {
        synchronized (this)
        {
            // An attach since the loss moved the epoch on, or added a lane: then the session stays.
            if (lanes.live() != 0 || lingerEpoch != epoch || !state.compareAndSet(OPEN, CLOSED))
            {
                return;
            }
        }
        final String why = "session " + id + " expired: the client did not come back within " +
            engine.reconnectTimeout;
        engine.forgetAccepted(this);
        window.releaseHeld();
        closeLanes(new ConnectionException(why), false); // the parked lanes: their requests fail
        fire(SessionEvent.Type.CLOSED, why, null);
    }

    /** Whether a lane of this session is on {@code loop}. Any thread. */
    boolean usesContext(final io.xio.engine.context.EventLoop loop)
    {
        for (final Lane lane : lanes.all())
        {
            if (lane.loop == loop)
            {
                return true;
            }
        }
        return false;
    }

    int laneCount()
    {
        return lanes.count();
    }

    /** The lane after {@code lane} in this session's ring of lanes, or null when it is the only one. */
    Lane laneAfter(final Lane lane)
    {
        return lanes.after(lane);
    }

    /**
     * A lane came up: lanes still down (reconnecting or parked) hand it their waiting requests; a drained client
     * session that waited for it to come back may close now.
     */
    void laneUp(final Lane up)
    {
        if (goAway != null)
        {
            closeIfDrained();
        }
        for (final Lane lane : lanes.all())
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
        return lanes.open(except);
    }

    /** An open lane, else a parked one that keeps requests for the client's return; null when there is neither. */
    Lane waitingLane(final Lane except)
    {
        final Lane open = lanes.open(except);
        return open != null ? open : lanes.parked(except);
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
        final CallOptions sent;
        try
        {
            sent = beforeSend(message, options);
        }
        catch (final XioException refused)
        {
            listener.onFailure(0, refused);
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
            engine.clientInterceptors.outcome(this, 0, null, refused);
            listener.onFailure(0, refused);
            return 0;
        }
        final PendingRequest request = pendingRequest();
        request.reset(requestId, mineFlag, message, null, listener, deadline, false, false);
        request.idempotent = sent.idempotent();
        return send(request) ? requestId : 0;
    }

    private XioFuture<Object> submit(final Outbound message, final CallOptions requested, final boolean oneWay)
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
            return failedAtOnce(requested, refused);
        }
        final long deadline = deadline(options);
        final long requestId;
        try
        {
            requestId = admit(message, options, deadline);
        }
        catch (final XioException refused)
        {
            engine.clientInterceptors.outcome(this, 0, null, refused);
            return failedAtOnce(requested, refused);
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
            future = Futures.newFuture(requestId, options.receipt(), this);
        }
        final PendingRequest request = pendingRequest();
        request.reset(requestId, flags, message, future, null, deadline, oneWay, options.receipt());
        request.idempotent = options.idempotent();
        send(request);
        return future;
    }

    private PendingRequest pendingRequest()
    {
        final PendingRequest request = idleRequests().poll();
        return request != null ? request : new PendingRequest(this);
    }

    /** A future from the pool, or a new one to pool; null where futures cannot be reused. */
    @SuppressWarnings("unchecked")
    private XioFuture<Object> recycledFuture(final long requestId)
    {
        XioFuture<Object> future = (XioFuture<Object>)idleFutures().poll();
        if (future == null)
        {
            future = Futures.newRecyclable(this);
            if (future == null)
            {
                return null;
            }
        }
        Futures.reuse(future, requestId);
        return future;
    }

    @Override
    public long spinNanos()
    {
        return engine.callerSpinNanos;
    }

    /**
     * The application cancelled {@code future}: a cancel of its one id, which each lane looks up by id (the request
     * object may be pooled, so the future holds none, nor does it know which lane holds the request now; with one
     * lane, the usual case, only that one is asked). Any thread.
     */
    @Override
    public void cancel(final XioFuture<?> future, final long requestId)
    {
        if (requestId < 1)
        {
            Futures.cancelUnanswered(future);
            return;
        }
        start(new RangeCancel(this, requestId, lanes.all(), future));
    }

    /** A recycled future's response was closed: keep it for the next call. Any thread. */
    @Override
    public void recycle(final XioFuture<?> future)
    {
        idleFutures().offer(future); // when full, left to the garbage collector
    }

    private org.agrona.concurrent.ManyToManyConcurrentArrayQueue<XioFuture<?>> idleFutures()
    {
        org.agrona.concurrent.ManyToManyConcurrentArrayQueue<XioFuture<?>> idle = idleFutures;
        if (idle == null)
        {
            synchronized (this)
            {
                idle = idleFutures;
                if (idle == null)
                {
                    idle = new org.agrona.concurrent.ManyToManyConcurrentArrayQueue<>(
                        Math.max(2, Math.min(engine.limits.maxInFlight(), 4096)));
                    idleFutures = idle;
                }
            }
        }
        return idle;
    }

    private static XioFuture<Object> failedAtOnce(final CallOptions options, final XioException refused)
    {
        final XioFuture<Object> future = Futures.newFuture(0, options.receipt(), null);
        future.completeExceptionally(refused);
        return future;
    }

    /** The engine's client interceptors' say on a call about to be admitted; then its metadata is sealed. */
    private CallOptions beforeSend(final Outbound message, final CallOptions options)
    {
        final CallOptions result = engine.clientInterceptors.beforeSend(this, message, options);
        sealMetadata(message);
        return result;
    }

    /**
     * Makes the message's metadata read-only: it is read again whenever the message is written (a retransmit
     * too), so a change the application makes afterwards must not reach this call, or tear a frame being encoded.
     */
    private static void sealMetadata(final Outbound message)
    {
        final io.xio.engine.Metadata metadata = message.metadata();
        if (metadata != null && !metadata.isReadOnly())
        {
            METADATA.readOnly(metadata);
        }
    }

    /** When a call made now with {@code options} times out, on the engine's clock. */
    private long deadline(final CallOptions options)
    {
        return engine.clock.nanoTime() + timeout(options).toNanos();
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
            final ConnectionException draining = drainingFailure();
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

    /** A request is done and unreachable: keep it for the next one. Any thread. */
    void recycle(final PendingRequest request)
    {
        idleRequests().offer(request); // when full, left to the garbage collector
    }

    /** Made on first use: a session may never send. */
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

    /**
     * One more of the peer's calls executes here: false when that is over this session's in-flight limit or its
     * principal's (all its sessions together). Counted either way; {@link #stoppedExecuting} undoes it.
     */
    boolean startedExecuting()
    {
        final boolean room = executing.incrementAndGet() <= engine.limits.maxInFlight();
        final Principals.Share share = principalShare;
        return share == null ? room : share.startedExecuting(engine.limits.maxInFlightPerPrincipal()) && room;
    }

    void stoppedExecuting()
    {
        executing.decrementAndGet();
        final Principals.Share share = principalShare;
        if (share != null)
        {
            share.stoppedExecuting();
        }
        if (goAway != null)
        {
            closeIfDrained();
        }
    }

    /**
     * What the peer gets for a response too large to send: an error type and message that name no class and no
     * limit, and {@code RESOURCE_EXHAUSTED} on the last line, where the Spring layer reads an error code.
     */
    static final String OVERSIZE_ANSWER =
        "response-too-large\nthe response exceeds the message limits\nRESOURCE_EXHAUSTED";

    /**
     * A call was answered (response == null: a one-way delivered). Any thread. Throws (after answering the call
     * with {@link #OVERSIZE_ANSWER}) when the response exceeds the limits the peer takes.
     */
    void answered(final ServerCall call, final int status, final Outbound response)
    {
        stoppedExecuting();
        if (response == null)
        {
            window.complete(call.id, status, null, 0);
            call.release(); // nothing to send
            return;
        }
        sealMetadata(response); // what is kept and resent is what was answered, however the application goes on
        final String oversize = CallAdmission.oversize(response, 0, admission.sendLimits());
        if (oversize != null)
        {
            // Fail the call here rather than make the peer drop the connection over an oversized frame. The peer
            // learns no more than that (not this side's limits or classes); the responder learns the sizes.
            response.released();
            sendAnswer(call, io.xio.engine.protocol.Status.APPLICATION_ERROR, Outbound.of(
                ByteBuffer.wrap(OVERSIZE_ANSWER.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
            throw new XioException("the response to request " + call.id + " was not sent, the caller was told it " +
                "is too large: " + oversize);
        }
        sendAnswer(call, status, response);
    }

    private void sendAnswer(final ServerCall call, final int status, final Outbound response)
    {
        final HeldResponse held = holdIfLarge(call, status, response);
        final Outbound sent = held == null ? response : held.share();
        final boolean kept = window.complete(call.id, status, response, engine.limits.retainedResponseBytes(), held);
        if (held != null && !kept)
        {
            held.close(); // not executing here any more: the send's hold is the only one
        }
        call.ackRequested = kept;
        final Lane lane = call.replyLane();
        if (lane.loop.inContextThread())
        {
            lane.sendResponse(call, status, sent);
        }
        else
        {
            call.sendOn(lane, status, sent);
        }
    }

    /**
     * A response too large to copy into the window, held by reference for a retransmit until the peer acknowledges
     * it, when the budgets have room; null for one small enough to copy, or when they have none (counted).
     */
    private HeldResponse holdIfLarge(final ServerCall call, final int status, final Outbound response)
    {
        // The same size the window's copy is judged by (DedupWindow.complete): one of the two always keeps it.
        final long size = response.headerLength() + response.dataLength() +
            (response.metadata() == null ? 0 : response.metadata().encodedLength());
        if (size <= engine.limits.retainedResponseBytes())
        {
            return null;
        }
        if (!retained.tryTake(size))
        {
            final String address = call.lane.remoteAddress();
            engine.refusals.refused(io.xio.engine.PeerRefusal.RETAINED_LIMIT, address != null ? address :
                uri.toString(), "response of " + size + " bytes to request " + call.id + " of session " + id +
                " not kept for a retransmit: " + retained.used() + " bytes of responses wait for the peer's " +
                "acknowledgement, limits " + engine.limits.maxRetainedBytesPerSession() + " per session and " +
                engine.limits.maxRetainedBytes() + " per engine");
            return null;
        }
        return new HeldResponse(call.id, status, response, size, retained);
    }

    /** The peer cancelled call {@code id}, which had not been answered. */
    void cancelled(final long id)
    {
        stoppedExecuting();
        window.complete(id, 0, null, 0);
    }

    // ---- going away ----

    /**
     * Why a request of this side that was never written may not be sent now: the session goes away (a
     * {@link io.xio.engine.SessionDrainingException}, so the caller may send it elsewhere); null when it may.
     */
    io.xio.engine.SessionDrainingException drainingFailure()
    {
        final io.xio.engine.GoAway current = goAway;
        if (current == null)
        {
            return null;
        }
        return new io.xio.engine.SessionDrainingException("session " + describe() + (initiator ?
            " was asked to go away by the server" : " is draining") + (current.reason().isEmpty() ? "" : " (" +
            current.reason() + ")") + "; the call was not sent", current);
    }

    /** Client side: the server's GOAWAY arrived on a lane of {@code contacted}'s connection. On that lane's thread. */
    void goAwayArrived(final io.xio.engine.GoAway received, final XioUri contacted)
    {
        if (!initiator || !isOpen())
        {
            return;
        }
        final java.util.List<XioUri> portals = new java.util.ArrayList<>(received.portals().size());
        received.portals().forEach(p -> portals.add(contacted == null ? p : p.reachedVia(contacted)));
        final io.xio.engine.GoAway resolved = new io.xio.engine.GoAway(portals, received.reason());
        final io.xio.engine.GoAway previous = goAway;
        goAway = resolved; // before the lanes look: whatever they take from now on is refused
        if (resolved.equals(previous))
        {
            return; // the same again, on another connection
        }
        fire(SessionEvent.Type.GOAWAY, "session " + describe() + " asked to go away by the server" +
            (resolved.reason().isEmpty() ? "" : ": " + resolved.reason()) +
            (portals.isEmpty() ? "" : "; re-open at " + portals), null);
        failUnsentEverywhere();
        closeIfDrained();
    }

    /**
     * Server side: asks the client to go away, on one live connection (on every one that attaches later, too, in
     * case that one is lost before the client reads it); from now on this side sends the client no new request.
     * Client side: drains the session here (the server is told nothing until the CLOSE).
     */
    @Override
    public void goAway(final io.xio.engine.GoAway value)
    {
        if (initiator)
        {
            // The client drains itself: as after a GOAWAY from the server, without telling it or the listeners.
            if (isOpen() && goAway == null)
            {
                goAway = value;
                failUnsentEverywhere();
                closeIfDrained();
            }
            return;
        }
        if (!isOpen())
        {
            return;
        }
        final byte[] body = new io.xio.engine.protocol.SetupCodec.Writer().goAway(new io.xio.engine.GoAway(
            value.portals(), ServerHandshake.bounded(value.reason()))).toBytes();
        goAwayBody = body;
        goAway = value;
        failUnsentEverywhere();
        sendGoAway(body);
    }

    /**
     * Server side: {@code value} again, for a session accepted while the drain that sent it began (it may have had no
     * connection to go on then).
     */
    void goAwayAgain(final io.xio.engine.GoAway value)
    {
        final byte[] body = goAwayBody;
        if (body == null)
        {
            goAway(value);
        }
        else
        {
            sendGoAway(body);
        }
    }

    private void sendGoAway(final byte[] body)
    {
        final Lane lane = lanes.open(null);
        if (lane != null && peerUnderstandsGoAway)
        {
            executeOn(lane, () -> lane.sendGoAway(body));
        }
    }

    /**
     * Server side: the GOAWAY to send on a connection that attached while the session is draining; null when it is
     * not, or when the client does not understand GOAWAY.
     */
    byte[] goAwayBody()
    {
        return peerUnderstandsGoAway ? goAwayBody : null;
    }

    @Override
    public io.xio.engine.GoAway goAwayReceived()
    {
        return initiator ? goAway : null;
    }

    @Override
    public boolean isDraining()
    {
        return goAway != null;
    }

    @Override
    public int inFlight()
    {
        return admission.inFlight();
    }

    /** Requests of this side waiting on any lane and never written fail: they are not to go out any more. */
    private void failUnsentEverywhere()
    {
        for (final Lane lane : lanes.all())
        {
            executeOn(lane, lane.outbound::failUnsent);
        }
    }

    private static void executeOn(final Lane lane, final Runnable task)
    {
        if (lane.loop.inContextThread())
        {
            task.run();
        }
        else if (!lane.loop.isClosed())
        {
            try
            {
                lane.loop.execute(task);
            }
            catch (final XioException closing)
            {
                // that context stopped: its lanes' requests failed with it
            }
        }
    }

    /**
     * Client side, after a GOAWAY: once nothing this side sent is in flight and nothing the server sent executes
     * here, and no lane is re-establishing its connection, the session closes (a CLOSE to the server). A lane
     * coming back (or its context's others staying up meanwhile) lets the server retransmit its requests whose
     * answers were lost with the connection, answered again from this side's deduplication window: closing before
     * would fail them at the server, though they ran here. Called whenever one of those ends or a lane
     * comes up; any thread. The close runs on a context's queue, not inside the completion that got here.
     */
    void closeIfDrained()
    {
        if (!initiator || goAway == null || admission.inFlight() != 0 || executing.get() != 0 || !isOpen() ||
            reestablishing() || !drainClosing.compareAndSet(false, true))
        {
            return;
        }
        final Lane[] all = lanes.all();
        if (all.length == 0 || all[0].loop.isClosed())
        {
            close();
            return;
        }
        try
        {
            all[0].loop.execute(this::close);
        }
        catch (final XioException stopped)
        {
            close();
        }
    }

    /** Whether a lane is (re-)connecting: until it is back, or the session gives up on it and fails. */
    private boolean reestablishing()
    {
        for (final Lane lane : lanes.all())
        {
            final LaneState state = lane.state();
            if (state == LaneState.CONNECTING || state == LaneState.RECONNECTING)
            {
                return true;
            }
        }
        return false;
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
        closedBy.compareAndSet(null, cause); // before the state: whoever sees it closed sees the first reason
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
            engine.forgetAccepted(this);
        }
        if (previous == OPENING)
        {
            opened.completeExceptionally(cause);
        }
        window.releaseHeld();
        closeLanes(cause, tellPeer);
        fire(SessionEvent.Type.CLOSED, cause.getMessage(), tellPeer ? null : cause);
    }

    void fire(final SessionEvent.Type type, final String detail, final Throwable cause)
    {
        engine.fire(listener, new SessionEvent(type, this, detail, cause));
    }

    /** Why the session closed, or null. */
    Throwable closedBy()
    {
        return closedBy.get();
    }

    String describe()
    {
        return (id == 0 ? "" : id + " ") + "(" + uri.withResource(resource) + ")";
    }

    // ---- Session ----

    @Override
    public java.security.Principal principal()
    {
        return principal;
    }

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
            admission.inFlight(), executing.get(), retransmits.get(),
            backPressureRejections.get());
    }

    @Override
    public java.util.List<String> peerAddresses()
    {
        return lanes.upAddresses();
    }

    @Override
    public io.xio.engine.PeerIdentity peer()
    {
        final io.xio.engine.PeerIdentity identity = peerIdentity;
        return identity != null ? identity : io.xio.engine.Session.super.peer();
    }

    @Override
    public int connectionCount()
    {
        return lanes.up();
    }

    @Override
    public CompletableFuture<Integer> cancel(final long firstId, final long lastId)
    {
        if (firstId < 1 || lastId < firstId)
        {
            throw new IllegalArgumentException("request ids " + firstId + ".." + lastId + " are not a range: " +
                "ids start at 1 and the last may not come before the first");
        }
        final RangeCancel range = new RangeCancel(this, firstId, lastId, lanes.all());
        start(range);
        return range.result;
    }

    /** Lists {@code range} and asks every lane it names to make its pass. Any thread. */
    private void start(final RangeCancel range)
    {
        synchronized (this)
        {
            final RangeCancel[] now = rangeCancels;
            final RangeCancel[] more = java.util.Arrays.copyOf(now, now.length + 1);
            more[now.length] = range;
            rangeCancels = more; // before any lane hears of it: a lane hands nothing over past it unseen
        }
        range.noParts();
        for (final Lane lane : range.lanes())
        {
            try
            {
                lane.loop.execute(() -> lane.cancelRange(range));
            }
            catch (final XioException closed)
            {
                range.passed(); // that context stopped: its requests failed with it
                range.partDone(0);
            }
        }
    }

    @Override
    public CompletableFuture<Integer> cancelAll()
    {
        return cancel(1, Long.MAX_VALUE);
    }

    /** The range cancels whose lanes have not all reported; usually none. Any thread. */
    RangeCancel[] rangeCancels()
    {
        return rangeCancels;
    }

    /** Every lane made its pass of {@code range}: requests handed between lanes need not look out for it any more. */
    synchronized void rangeCancelDone(final RangeCancel range)
    {
        final RangeCancel[] now = rangeCancels;
        int at = -1;
        for (int i = 0; i < now.length; i++)
        {
            if (now[i] == range)
            {
                at = i;
            }
        }
        if (at < 0)
        {
            return;
        }
        final RangeCancel[] fewer = new RangeCancel[now.length - 1];
        System.arraycopy(now, 0, fewer, 0, at);
        System.arraycopy(now, at + 1, fewer, at, now.length - at - 1);
        rangeCancels = fewer;
    }

    @Override
    public void abortConnections()
    {
        for (final Lane lane : lanes.all())
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
