package io.xio.engine.session;

import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.RequestHandler;
import io.xio.engine.StreamCall;
import io.xio.engine.StreamListener;
import io.xio.engine.ResponseListener;
import io.xio.engine.Session;
import io.xio.engine.SessionEvent;
import io.xio.engine.SessionListener;
import io.xio.engine.SessionOptions;
import io.xio.engine.SessionStatistics;
import io.xio.engine.XioFuture;
import io.xio.engine.XioUri;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.session.admission.ByteBudget;
import io.xio.engine.session.admission.CallAdmission;
import io.xio.engine.session.admission.StreamAdmission;
import io.xio.engine.session.admission.DedupWindow;
import io.xio.engine.session.call.CallSubmission;
import io.xio.engine.session.call.Lane;
import io.xio.engine.session.call.LaneContext;
import io.xio.engine.session.call.LaneRing;
import io.xio.engine.session.call.RangeCancels;
import io.xio.engine.session.call.ReusingHandler;
import io.xio.engine.session.call.ServerAnswers;
import io.xio.engine.session.call.ServerCallContext;
import io.xio.engine.session.call.SessionStreams;
import io.xio.engine.session.call.StreamOpening;
import io.xio.engine.session.connection.Peers;
import io.xio.engine.session.handshake.ClientHandshake;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Both sides' session, as the application holds it: its life ({@link SessionLifecycle}; a server session lingering
 * for its client to come back), its {@link LaneRing}, and the parts that do the rest: the calls it makes
 * ({@link CallSubmission}), the peer's calls it answers ({@link ServerAnswers}), what it admits
 * ({@link CallAdmission}), the deduplication window for the peer's requests, its GOAWAY and drain
 * ({@link SessionDrain}), range cancels ({@link RangeCancels}) and who is on the other side
 * ({@link SessionIdentity}). Thread-safe: fields shared between contexts are atomic or volatile; per-request state
 * lives in the lanes.
 */
public final class SessionImpl implements Session
{
    final EngineCore engine;
    final boolean initiator;
    final int mineFlag;
    final XioUri uri;
    final String resource;
    final RequestHandler handler;
    final SessionListener listener;
    final Duration defaultTimeout;
    final DedupWindow window;
    public final CallAdmission admission;
    final AtomicInteger executing = new AtomicInteger();
    final AtomicLong requestsReceived = new AtomicLong();
    final AtomicLong retransmits = new AtomicLong();
    final AtomicLong backPressureRejections = new AtomicLong();
    final SessionLife life = new SessionLife();
    final Map<String, String> sentAttributes;
    private volatile Map<String, String> attributes;
    private volatile long id;
    /** Its lanes; the lanes hand the ring to the parts that pass answers round it. */
    final LaneRing lanes = new LaneRing();
    /** Lanes joining and leaving, and the linger of a server session left without one. */
    final SessionLanes joined;
    /** What a client session was opened with (its TLS, credentials and their redirect rule); the default's else. */
    final SessionOptions options;
    /** What each of its lanes is made with. */
    private final LaneContext laneContext;
    /** Who is on the other side, and what proves a connection belongs to this session. */
    public final SessionIdentity identity = new SessionIdentity();
    /** Range cancels whose lanes have not all made their pass. */
    final RangeCancels rangeCancels = new RangeCancels();
    /** GOAWAY and drain. */
    public final SessionDrain drain;
    /** The calls this side makes. */
    final CallSubmission calls;
    /** The peer's calls as this side answers them. */
    final ServerAnswers answers;
    /** The streams open on the session, and what they may cost. */
    final StreamAdmission streams;
    /** The streams this side opens. */
    private final StreamOpening streamOpening;

    /** @param reuseCalls whether the (server) session's lanes pool their calls ({@code RequestReuse.AFTER_ANSWER}) */
    private SessionImpl(final EngineCore engine, final boolean initiator, final XioUri uri, final String resource,
        final Map<String, String> attributes, final RequestHandler handler, final SessionListener listener,
        final Duration defaultTimeout, final boolean reuseCalls, final SessionOptions options)
    {
        this.options = options;
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
        final SessionHost host = new SessionHost(this);
        this.joined = new SessionLanes(lanes, host);
        this.admission = new CallAdmission(host, engine.limits, engine.clock);
        this.streams = new StreamAdmission(engine.limits.streams(), engine.streams, engine.streamWindows,
            engine.streamsByPeer);
        this.drain = new SessionDrain(initiator, lanes, admission, executing, streams, host);
        this.calls = new CallSubmission(this, engine.calls, admission, lanes, rangeCancels, drain, initiator,
            defaultTimeout, this::describe);
        // This session's share of the engine's retained budget: the peer's responses held until it acknowledges them.
        final ByteBudget retained = new ByteBudget(engine.limits.maxRetainedBytesPerSession(), engine.retained);
        this.answers = new ServerAnswers(engine.limits, engine.refusals, window, admission, retained, executing,
            identity, drain, uri.toString(), this::describe);
        this.laneContext = new LaneContext(host, initiator ? lane -> new ClientHandshake(lane, host) : null, lanes,
            new ServerCallContext(this, answers, window, engine.clock, this::rejected), this, engine.leaks,
            uri.withResource(resource), handler, engine.limits, requestsReceived, reuseCalls, streams,
            admission::sendLimits, new SessionStreams());
        this.streamOpening = new StreamOpening(admission, streams, lanes, initiator, engine.clock,
            () -> identity.streams, this::describe);
    }

    /** A session the server side accepted. */
    public static SessionImpl accepted(final EngineCore engine, final long id, final XioUri uri, final String resource,
        final Map<String, String> attributes, final RequestHandler handler)
    {
        final boolean reuse = handler instanceof ReusingHandler;
        final SessionImpl session = new SessionImpl(engine, false, uri, resource, Map.copyOf(attributes),
            reuse ? ((ReusingHandler)handler).handler() : handler, engine.listener, Duration.ofSeconds(5), reuse,
            SessionOptions.DEFAULT);
        session.id = id;
        session.identity.secret(engine.newSecret());
        session.life.open();
        session.life.tellOpener(session);
        return session;
    }

    /** Opens a client session to {@code uri}; completes once accepted and its connections are up. Any thread. */
    public static CompletableFuture<Session> open(final EngineCore engine, final XioUri uri,
        final SessionOptions options)
    {
        final SessionImpl session = new SessionImpl(engine, true, uri, uri.resource(), options.attributes(),
            options.handler(), options.listener(), options.timeout(), false, options);
        final int count = options.connections() == 0 ? engine.loopCount() : options.connections();
        final Lane[] lanes = new Lane[count];
        for (int i = 0; i < count; i++)
        {
            lanes[i] = new Lane(session.laneContext, engine.peers(i % engine.loopCount()), i / engine.loopCount());
        }
        session.lanes.set(lanes);
        engine.opened.add(session);
        final Lane first = lanes[0];
        first.loop.execute(() -> first.setup(uri, 0, java.util.List.of()));
        return session.life.opened();
    }

    // ---- set-up outcome (client side), called on the first lane's context ----

    /** The server accepted: the session takes its id, its secret and the smaller of both sides' limits. */
    void accepted(final long sessionId, final byte[] secret, final CallAdmission.Announced sizes,
        final int peerMaxInFlight, final int peerDedupWindow)
    {
        admission.limitSizesTo(sizes);
        id = sessionId;
        identity.secret(secret);
        limitTo(peerMaxInFlight, peerDedupWindow);
    }

    /** Adopts the peer's smaller limits: in flight, and the id span its deduplication window covers. */
    public void limitTo(final int peerMaxInFlight, final int peerDedupWindow)
    {
        admission.limitTo(peerMaxInFlight, peerDedupWindow);
    }

    /** The server accepted at {@code target}: the further lanes attach ({@link SessionLanes#attachFurther}). */
    void established(final Map<String, String> acceptedAttributes, final XioUri target,
        final java.util.List<XioUri> connectionPortals)
    {
        attributes = Map.copyOf(acceptedAttributes);
        joined.attachFurther(target, connectionPortals, () -> markOpen(target));
    }

    private void markOpen(final XioUri target)
    {
        if (life.open())
        {
            fire(SessionEvent.Type.ESTABLISHED, "session " + id + " to " + target.withResource(resource) +
                " established with " + connectionCount() + " connection(s)", null);
            life.tellOpener(this);
        }
    }

    void refused(final Throwable cause)
    {
        if (life.refuse(cause))
        {
            engine.opened.remove(this);
            fire(SessionEvent.Type.REFUSED, cause.getMessage(), cause); // listeners hear it before the caller
            life.tellOpener(cause);
            joined.closeAll(cause, false);
        }
    }

    // ---- lanes ----

    /** A lane for a connection that set up or attached to this session; null when the session is closed. */
    public Lane newServerLane(final Peers peers)
    {
        final Lane lane = new Lane(laneContext, peers, 0);
        return joined.join(lane) ? lane : null;
    }

    public void expire(final long epoch)
    {
        // An attach since the loss moved the epoch on, or added a lane: then the session stays.
        if (!joined.expires(epoch, () -> life.move(SessionLifecycle.OPEN, SessionLifecycle.CLOSED)))
        {
            return;
        }
        final String why = "session " + id + " expired: the client did not come back within " +
            engine.reconnectTimeout;
        engine.forgetAccepted(this);
        window.releaseHeld();
        joined.closeAll(new ConnectionException(why), false); // the parked lanes: their requests fail
        fire(SessionEvent.Type.CLOSED, why, null);
    }

    /** Whether a lane of this session is on {@code loop}. Any thread. */
    boolean usesContext(final io.xio.engine.context.EventLoop loop)
    {
        return joined.usesContext(loop);
    }

    /**
     * A lane came up: lanes still down (reconnecting or parked) hand it their waiting requests; a drained client
     * session that waited for it to come back may close now.
     */
    void laneUp(final Lane up)
    {
        drain.closeIfDrained();
        joined.handOverTo(up);
    }

    // ---- sending ----

    @Override
    @SuppressWarnings("unchecked")
    public XioFuture<Message> request(final Outbound message, final CallOptions options)
    {
        return (XioFuture<Message>)(XioFuture<?>)calls.submit(message, options, false);
    }

    @Override
    @SuppressWarnings("unchecked")
    public XioFuture<Void> send(final Outbound message, final CallOptions options)
    {
        return (XioFuture<Void>)(XioFuture<?>)calls.submit(message, options, true);
    }

    @Override
    public long request(final Outbound message, final CallOptions options, final ResponseListener listener)
    {
        return calls.submit(message, options, listener);
    }

    @Override
    public StreamCall openStream(final Outbound open, final CallOptions options, final StreamListener listener)
    {
        return streamOpening.open(open, options, listener);
    }

    // ---- going away ----

    @Override
    public void goAway(final io.xio.engine.GoAway value)
    {
        drain.goAway(value);
    }

    @Override
    public io.xio.engine.GoAway goAwayReceived()
    {
        return drain.received();
    }

    @Override
    public boolean isDraining()
    {
        return drain.isDraining();
    }

    @Override
    public int inFlight()
    {
        return admission.inFlight();
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
        final SessionLifecycle previous = life.close(cause);
        if (previous == SessionLifecycle.CLOSED)
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
        if (previous == SessionLifecycle.OPENING)
        {
            life.tellOpener(cause);
        }
        window.releaseHeld();
        joined.closeAll(cause, tellPeer);
        fire(SessionEvent.Type.CLOSED, cause.getMessage(), tellPeer ? null : cause);
    }

    void fire(final SessionEvent.Type type, final String detail, final Throwable cause)
    {
        engine.fire(listener, new SessionEvent(type, this, detail, cause));
    }

    /** Why the session closed, or null. */
    Throwable closedBy()
    {
        return life.closedBy();
    }

    String describe()
    {
        return (id == 0 ? "" : id + " ") + "(" + uri.withResource(resource) + ")";
    }

    // ---- Session ----

    @Override
    public java.security.Principal principal()
    {
        return identity.principal;
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
        return life.isOpen();
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
        return new SessionStatistics(calls.requestsSent.get(), requestsReceived.get(),
            admission.inFlight(), executing.get(), retransmits.get(),
            backPressureRejections.get(), streams.open());
    }

    @Override
    public java.util.List<String> peerAddresses()
    {
        return lanes.upAddresses();
    }

    @Override
    public io.xio.engine.PeerIdentity peer()
    {
        final io.xio.engine.PeerIdentity proven = identity.peerIdentity;
        return proven != null ? proven : io.xio.engine.Session.super.peer();
    }

    @Override
    public int connectionCount()
    {
        return lanes.up();
    }

    @Override
    public CompletableFuture<Integer> cancel(final long firstId, final long lastId)
    {
        return rangeCancels.cancel(firstId, lastId, lanes.all());
    }

    @Override
    public CompletableFuture<Integer> cancelAll()
    {
        return cancel(1, Long.MAX_VALUE);
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
