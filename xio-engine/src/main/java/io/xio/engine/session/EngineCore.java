package io.xio.engine.session;

import io.xio.engine.Limits;
import io.xio.engine.PeerRefusal;
import io.xio.engine.RequestHandler;
import io.xio.engine.ServerInterceptor;
import io.xio.engine.SessionEvent;
import io.xio.engine.SessionListener;
import io.xio.engine.XioException;
import io.xio.engine.context.EventLoop;
import io.xio.engine.session.admission.AuthenticationFailures;
import io.xio.engine.session.admission.ByteBudget;
import io.xio.engine.session.admission.HeldResponse;
import io.xio.engine.session.admission.PeerCounts;
import io.xio.engine.session.admission.Principals;
import io.xio.engine.session.admission.Refusals;
import io.xio.engine.session.admission.StreamAdmission;
import io.xio.engine.session.call.CallSubmission;
import io.xio.engine.session.call.ClientInterceptorChain;
import io.xio.engine.session.call.ReusingHandler;
import io.xio.engine.session.connection.Connection;
import io.xio.engine.session.connection.Peers;
import io.xio.engine.session.connection.PortalImpl;
import io.xio.engine.session.connection.ServerSetups;
import io.xio.engine.session.handshake.ClientHandshake;
import io.xio.engine.session.handshake.ServerHandshake;
import io.xio.engine.transport.Transport;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * What the session layer of one engine shares: its contexts and their connection registries, transports,
 * registered services, accepted sessions and settings. Immutable after construction except for the
 * concurrent maps (and the reconnect jitter tests pin); thread-safe.
 */
public final class EngineCore
{
    private static final Logger LOG = LoggerFactory.getLogger(EngineCore.class);
    static final int SECRET_BYTES = 16;

    final String name;
    final EventLoop[] loops;
    final Peers[] peers;
    final Map<String, Transport> transports;
    public final Map<String, RequestHandler> services = new ConcurrentHashMap<>();
    public final Map<Long, SessionImpl> accepted = new ConcurrentHashMap<>();
    final java.util.Set<SessionImpl> opened = ConcurrentHashMap.newKeySet();
    /** The portals bound and open: what an acceptor's connection portals are looked up in. */
    public final java.util.Set<PortalImpl> portals = ConcurrentHashMap.newKeySet();
    /** Whether, and how, the server side drains ({@link #drain}). */
    public final EngineDrain drain = new EngineDrain(this);
    final LeakTracker leaks;
    public final Limits limits;
    public final Duration keepaliveInterval;
    public final Duration keepaliveTimeout;
    public final Duration reconnectTimeout;
    public final Duration connectTimeout;
    final long callerSpinNanos;
    public final SessionListener listener;
    final NanoClock clock;
    /** The engine's TLS options: for portals and sessions that bring none of their own; null when not set. */
    public final io.xio.engine.TlsOptions tls;
    /** Empty when none were added: the send path then costs one length check. */
    final ClientInterceptorChain clientInterceptors;
    /** What every session's calls need of the engine ({@link CallSubmission}). */
    final CallSubmission.Engine calls;
    private final java.util.List<ServerInterceptor> serverInterceptors;
    /** Refusals happen on callers' threads too, so not in a context's counters. */
    private final AtomicLong backPressureRejections = new AtomicLong();
    public final Refusals refusals;
    /** Failed TLS handshakes a host may have at a portal within the interval: more than a client set up wrong makes. */
    public static final int TLS_HANDSHAKE_FAILURES = 16;
    public static final long TLS_HANDSHAKE_FAILURE_INTERVAL_NANOS = 10_000_000_000L;
    public final PeerCounts sessionsByPeer = new PeerCounts();
    public final PeerCounts connectionsByPeer = new PeerCounts();
    public final Principals principals = new Principals();
    public final AuthenticationFailures authenticationFailures;
    /**
     * Failed TLS handshakes per portal and host, limited as failed authentications are, with a budget of their own:
     * a host over it has its connections to that portal closed before any handshake work (each full handshake costs
     * the context thread a millisecond or two of CPU).
     */
    public final AuthenticationFailures tlsHandshakeFailures;
    /** Responses of all sessions kept by reference until acknowledged ({@link HeldResponse}). */
    final ByteBudget retained;
    /** The engine's open streams, and the bytes their receive windows set aside, which its sessions share. */
    final ByteBudget streams;
    final ByteBudget streamWindows;
    /** The streams each peer host opened, engine-wide. */
    final PeerCounts streamsByPeer = new PeerCounts();
    /**
     * Where the reconnect backoff draws its jitter from ({@link ClientHandshake#RECONNECT}); read on context
     * threads. Tests that drive a manual context pin it before a connection is lost, to know each wait exactly.
     */
    LongSupplier reconnectJitter = () -> ThreadLocalRandom.current().nextLong();
    /** Session secrets: what an ATTACH must show to join a session. */
    private final SecureRandom secrets = new SecureRandom();

    public EngineCore(final EngineSettings settings, final EventLoop[] loops, final Map<String, Transport> transports,
        final LeakTracker leaks)
    {
        this.name = settings.name();
        this.loops = loops;
        this.transports = Map.copyOf(transports);
        this.leaks = leaks;
        this.limits = settings.limits();
        this.keepaliveInterval = settings.keepaliveInterval();
        this.keepaliveTimeout = settings.keepaliveTimeout();
        this.reconnectTimeout = settings.reconnectTimeout();
        this.connectTimeout = settings.connectTimeout();
        this.callerSpinNanos = settings.callerSpin().toNanos();
        this.listener = settings.listener();
        this.clock = settings.clock();
        this.tls = settings.tls();
        this.clientInterceptors = new ClientInterceptorChain(settings.clientInterceptors());
        this.calls = new CallSubmission.Engine(clientInterceptors, clock, loops, callerSpinNanos, limits.maxInFlight());
        this.serverInterceptors = settings.serverInterceptors();
        this.refusals = new Refusals(clock);
        this.authenticationFailures = new AuthenticationFailures(clock, limits.maxAuthenticationFailuresPerHost(),
            limits.authenticationFailureInterval().toNanos());
        this.tlsHandshakeFailures = new AuthenticationFailures(clock, TLS_HANDSHAKE_FAILURES,
            TLS_HANDSHAKE_FAILURE_INTERVAL_NANOS);
        for (final EventLoop loop : loops)
        {
            loop.refusalsTo(refusals::refused);
        }
        this.retained = new ByteBudget(limits.maxRetainedBytes(), null);
        this.streams = StreamAdmission.engineStreams(limits.streams());
        this.streamWindows = StreamAdmission.engineWindows(limits.streams());
        this.peers = new Peers[loops.length];
        for (int i = 0; i < loops.length; i++)
        {
            peers[i] = new Peers(this, loops[i]);
        }
    }

    /** Requests refused for lack of room, here or by the peer, over all sessions. Any thread. */
    public long backPressureRejections()
    {
        return backPressureRejections.get();
    }

    /** Streams open now on all sessions, both sides' (what {@code maxStreams} bounds). Any thread. */
    public int openStreams()
    {
        return (int)streams.used();
    }

    /** What was refused to peers, by kind, since the engine started. Any thread. */
    public Map<PeerRefusal, Long> refusals()
    {
        return refusals.snapshot();
    }

    /** How many refusals of {@code kind} since the engine started. Any thread. */
    public long refusals(final PeerRefusal kind)
    {
        return refusals.count(kind);
    }

    void rejected()
    {
        backPressureRejections.incrementAndGet();
    }

    /** Starts keepalive on every context; called once the contexts run. */
    public void start()
    {
        for (final Peers p : peers)
        {
            p.loop.execute(p::startKeepalive);
        }
    }

    public boolean hasTransport(final String scheme)
    {
        return transports.containsKey(scheme);
    }

    public Transport transport(final String scheme)
    {
        final Transport transport = transports.get(scheme);
        if (transport == null)
        {
            throw new XioException("no transport for scheme '" + scheme + "'; this engine has " +
                transports.keySet() + ("rdma".equals(scheme) ? " (rdma comes with the io.xio:xio-rdma jar)" :
                " (a transport plugs in through a TransportProvider on the class path)"));
        }
        return transport;
    }

    public Peers peers(final int index)
    {
        return peers[index];
    }

    /** Serves {@code resource} with {@code handler}, calls pooled when {@code reuseCalls}; replaces an earlier one. */
    public void register(final String resource, final RequestHandler handler, final boolean reuseCalls)
    {
        final RequestHandler intercepted = ServerInterceptor.wrap(handler, serverInterceptors);
        services.put(resource, reuseCalls ? new ReusingHandler(intercepted) : intercepted);
    }

    public void unregister(final String resource)
    {
        services.remove(resource);
    }

    public int loopCount()
    {
        return loops.length;
    }

    public EventLoop loop(final int index)
    {
        return loops[index];
    }

    public long newSessionId()
    {
        while (true)
        {
            final long id = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
            if (id != 0 && !accepted.containsKey(id))
            {
                return id;
            }
        }
    }

    /** A new session secret: 128 random bits. */
    byte[] newSecret()
    {
        final byte[] secret = new byte[SECRET_BYTES];
        secrets.nextBytes(secret);
        return secret;
    }

    /** An accepted session ended: it no longer counts against its peer's share. */
    public void forgetAccepted(final SessionImpl session)
    {
        if (accepted.remove(session.id(), session))
        {
            sessionsByPeer.release(session.identity.peerHost);
            if (session.identity.principalShare != null)
            {
                principals.release(session.identity.principalShare);
            }
            drain.sessionGone(session);
        }
    }

    /**
     * Drains the server side: set-ups refused from now on, every accepted session sent {@code goAway}; completes
     * once none is left, or after {@code grace}, closing those left; the {@code served} resources' sessions and
     * set-ups are left alone. A second call returns the first's future.
     * Any thread.
     */
    public java.util.concurrent.CompletableFuture<Void> drain(final io.xio.engine.GoAway goAway,
        final Duration grace, final java.util.Set<String> served)
    {
        return drain.start(goAway, grace, served);
    }

    /** Ends a drain that is over: see {@link EngineDrain#end()}. Any thread. */
    public void endDrain()
    {
        drain.end();
    }

    /** Whether a drain began and was not ended since. Any thread. */
    public boolean isDraining()
    {
        return drain.isDraining();
    }

    /** The server handshake of a connection accepted at {@code portal}: made here, as it lies above connections. */
    public ServerSetups serverHandshake(final Connection connection, final PortalImpl portal)
    {
        return new ServerHandshake(connection, portal);
    }

    /** The open portal of this engine at {@code uri}'s endpoint, or null. Any thread. */
    public PortalImpl portal(final io.xio.engine.XioUri uri)
    {
        final io.xio.engine.XioUri endpoint = uri.endpoint();
        for (final PortalImpl portal : portals)
        {
            if (portal.isOpen() && endpoint.equals(portal.uri().endpoint()))
            {
                return portal;
            }
        }
        return null;
    }

    /** Tells the engine's listener of an engine-wide event (a context's failure). */
    public void fire(final SessionEvent event)
    {
        notify(listener, event);
    }

    public void fire(final SessionListener sessionListener, final SessionEvent event)
    {
        notify(sessionListener, event);
        if (sessionListener != listener)
        {
            notify(listener, event);
        }
    }

    private static void notify(final SessionListener target, final SessionEvent event)
    {
        try
        {
            target.onEvent(event);
        }
        catch (final Throwable ex)
        {
            if (ex instanceof VirtualMachineError error)
            {
                throw error; // out of memory or stack: on a context's thread, it fails the context (EventLoop)
            }
            LOG.warn("session listener failed on {}", event, ex);
        }
    }

    /**
     * Context {@code index} failed: fails every session with a lane there, so that their callers hear
     * {@code cause} instead of waiting for a loop that no longer runs, and closes the context's connections.
     * On the failed context's thread, which still owns them. Each session on its own: one that cannot be
     * failed keeps none of the others from it.
     */
    public void contextFailed(final int index, final Throwable cause)
    {
        final EventLoop failed = loops[index];
        for (final SessionImpl session : sessions())
        {
            try
            {
                if (session.usesContext(failed))
                {
                    session.fail(cause);
                }
            }
            catch (final Throwable ex)
            {
                LOG.error("session {} could not be failed with its context {}", session, failed.name(), ex);
            }
        }
        peers[index].closeAll();
    }

    /**
     * Puts {@code fresh} in the place of the failed context {@code index} and starts its keepalive. Sessions
     * opened from now on use it; a thread still holding the failed one gets a ContextFailedException from it.
     * Both arrays' elements are read without a lock: their objects' fields are final, so a reader sees either
     * the failed context or the whole fresh one.
     */
    public void replace(final int index, final EventLoop fresh)
    {
        fresh.refusalsTo(refusals::refused);
        final Peers replacement = new Peers(this, fresh);
        loops[index] = fresh;
        peers[index] = replacement;
        fresh.execute(replacement::startKeepalive);
    }

    /** Closes every connection on every context; called on the contexts while the engine closes. */
    public void closeAll(final int index)
    {
        peers[index].closeAll();
    }

    /** Every session open or opening, both sides: what closing the engine closes. */
    public java.util.List<SessionImpl> sessions()
    {
        final java.util.List<SessionImpl> all = new java.util.ArrayList<>(opened);
        all.addAll(accepted.values());
        return all;
    }
}
