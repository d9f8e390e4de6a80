package io.xio.engine;

import io.xio.engine.context.EventLoop;
import io.xio.engine.memory.RegisteredMemory;
import io.xio.engine.session.EngineCore;
import io.xio.engine.session.EngineSettings;
import io.xio.engine.session.LeakTracker;
import io.xio.engine.session.SessionImpl;
import io.xio.engine.session.connection.PortalImpl;
import io.xio.engine.transport.Transport;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The entry point: an engine owns N {@link Context}s (threads with event loops), the portals bound on them,
 * the services registered for resources and the sessions opened from and to it. Build one with
 * {@link #builder()}, close it when done. Thread-safe.
 *
 * <pre>{@code
 * try (XioEngine server = XioEngine.builder().build();
 *      XioEngine client = XioEngine.builder().build()) {
 *     server.register("echo", req -> req.respond(Outbound.of(req.message().header()).releaseAfterSend(req.message())));
 *     Portal portal = server.bind("tcp://127.0.0.1:0");
 *     try (Session session = client.connect(portal.uri().withResource("echo").toString());
 *          Message reply = session.request(Outbound.of("hi".getBytes())).get()) { ... }
 * }
 * }</pre>
 *
 * <p>Should a context fail (an {@link Error} on its thread; see {@link Context}), its sessions fail, the
 * listener hears {@link SessionEvent.Type#CONTEXT_FAILED}, and the engine closes or restarts that context as
 * {@link Builder#onContextFailure} says: it never goes on with a context that no longer answers.
 */
public final class XioEngine implements AutoCloseable
{
    /** How long an idle context spins before it parks, unless {@link Builder#busyPoll} says otherwise. */
    public static final Duration DEFAULT_BUSY_POLL = Duration.ofNanos(50_000);

    /** Whether idle contexts learn when work comes, unless {@link Builder#adaptivePolling} says otherwise. */
    public static final boolean DEFAULT_ADAPTIVE_POLLING = true;

    /** How long a caller blocked on a {@link XioFuture} spins before it parks, unless {@link Builder#callerSpin}. */
    public static final Duration DEFAULT_CALLER_SPIN = Duration.ZERO;

    /** Traffic-free time after which a connection sends a keepalive, unless {@link Builder#keepalive}. */
    public static final Duration DEFAULT_KEEPALIVE_INTERVAL = Duration.ofSeconds(1);

    /** Time a silent peer is given before its connection is dropped, unless {@link Builder#keepalive}. */
    public static final Duration DEFAULT_KEEPALIVE_TIMEOUT = Duration.ofSeconds(10);

    /** How long a lost connection is re-tried (and its session kept), unless {@link Builder#reconnectTimeout}. */
    public static final Duration DEFAULT_RECONNECT_TIMEOUT = Duration.ofSeconds(30);

    /** How long a connect or session set-up may take, unless {@link Builder#connectTimeout}. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

    /** What the engine does once a context failed, unless {@link Builder#onContextFailure}. */
    public static final ContextFailurePolicy DEFAULT_CONTEXT_FAILURE_POLICY = ContextFailurePolicy.CLOSE_ENGINE;

    private static final Logger LOG = LoggerFactory.getLogger(XioEngine.class);
    private static final AtomicInteger ENGINES = new AtomicInteger();

    private final String name;
    /** The core's array of loops: an element is replaced when a context restarts, under {@link #lifecycle}. */
    private final EventLoop[] loops;
    private final EngineContexts contexts;
    private final EngineCore core;
    private final ContextSupervisor supervisor;
    /** Orders restarting a failed context against closing the engine. */
    private final Object lifecycle = new Object();
    private final EngineContexts.LoopSettings loopSettings;
    private final LeakTracker leaks;
    private final EnginePortals portals;
    /** Buffers from {@link #allocateShared} not freed yet: their files go when the engine closes. */
    private final SharedBuffers sharedBuffers = new SharedBuffers();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final EngineSettings settings;
    private final ContextFailurePolicy contextFailurePolicy;

    private XioEngine(final Builder builder)
    {
        name = builder.name != null ? builder.name : "xio-" + ENGINES.incrementAndGet();
        leaks = builder.leakDetection ? new LeakTracker() : null;
        portals = new EnginePortals(closed::get);
        supervisor = new ContextSupervisor(this, builder.contextFailurePolicy);
        loopSettings = new EngineContexts.LoopSettings(name, builder.limits, builder.busyPoll, builder.adaptivePolling,
            builder.manualContexts, builder.clock, supervisor);
        contexts = new EngineContexts(loopSettings, builder.contexts);
        loops = contexts.loops();
        settings = new EngineSettings(name, builder.limits, builder.keepaliveInterval,
            builder.keepaliveTimeout, builder.reconnectTimeout, builder.connectTimeout, builder.callerSpin,
            builder.listener, builder.clock, builder.clientInterceptors, builder.serverInterceptors, builder.tls);
        contextFailurePolicy = builder.contextFailurePolicy;
        core = new EngineCore(settings, loops, Transports.discovered(builder.transports), leaks);
        contexts.start();
        core.start();
    }

    /**
     * Puts a fresh context in the place of {@code failed}, on a thread of its own, and binds the failed one's
     * portals again on it. False when the engine closed meanwhile. On the failed context's thread.
     */
    boolean restart(final EventLoop failed)
    {
        final int index = failed.index();
        final EventLoop fresh;
        synchronized (lifecycle)
        {
            if (closed.get())
            {
                return false;
            }
            fresh = contexts.replace(failed); // throws without a thread for it: the caller closes the engine
            core.replace(index, fresh);
        }
        portals.rebind(failed, core);
        LOG.warn("context {} restarted on a new thread", fresh.name());
        return true;
    }

    EngineCore core()
    {
        return core;
    }

    /** The portals served by {@code loop}, open or not. */
    List<Portal> portalsOn(final EventLoop loop)
    {
        return portals.servedBy(loop);
    }

    public static Builder builder()
    {
        return new Builder();
    }

    public String name()
    {
        return name;
    }

    /**
     * The engine's contexts, in index order. A restarted context ({@link ContextFailurePolicy#RESTART_CONTEXT})
     * is a new one in the failed one's place: ask again rather than keep the list.
     */
    public List<Context> contexts()
    {
        return List.of(loops);
    }

    /**
     * The contexts that failed since the engine started, oldest first (at most the last 16). Each tells its
     * {@link Context#failure() cause}; a restarted one is no longer among {@link #contexts()}. Any thread.
     */
    public List<Context> failedContexts()
    {
        return supervisor.failures();
    }

    /** False once the engine is closed: by {@link #close()}, or by itself after a context failed. Any thread. */
    public boolean isOpen()
    {
        return !closed.get();
    }

    /** Registers the handler of requests to sessions for {@code resource}; replaces an earlier one. */
    public void register(final String resource, final RequestHandler handler)
    {
        register(resource, handler, RequestReuse.NEVER);
    }

    /**
     * Registers the handler of requests to sessions for {@code resource}, replacing an earlier one;
     * {@link RequestReuse#AFTER_ANSWER} makes the server side of a request allocation-free, under that
     * constant's rules. Sessions accepted before keep the handler they started with.
     */
    public void register(final String resource, final RequestHandler handler, final RequestReuse reuse)
    {
        java.util.Objects.requireNonNull(handler, "handler");
        core.register(resource, handler, reuse == RequestReuse.AFTER_ANSWER);
    }

    public void unregister(final String resource)
    {
        core.unregister(resource);
    }

    /**
     * Marks an application buffer as memory xio may send from without copying (Accelio's reg_mr). It must be a
     * direct buffer; transports that need registration (RDMA) register it with their devices.
     */
    public ByteBuffer registerMemory(final ByteBuffer buffer)
    {
        RegisteredMemory.add(buffer);
        return buffer;
    }

    /**
     * Undoes {@link #registerMemory}: RDMA devices drop their registration of the buffer on each context's next turn.
     * Call it only once no message or output buffer in it is still with xio (a peer reading or writing it then
     * fails its connection). Returns false when the buffer was not registered.
     */
    public boolean unregisterMemory(final ByteBuffer buffer)
    {
        return RegisteredMemory.remove(buffer);
    }

    /**
     * A new direct buffer of {@code bytes} in shared memory (a file in the shm transport's directory, {@code
     * /dev/shm} by default), for large messages over shm: a data segment that lies in it travels to a peer process of
     * the same user as a reference, the peer reads it in place ({@link Message#inShared()}), and the send completes
     * only once the peer closed the message, so write into it again only after that. A peer that keeps the message
     * open for the connection's {@link Limits#writeStallTimeout()} (or reads none of our releases) is cut off ({@link
     * PeerRefusal#SHARED_RELEASE}). When a connection closes, its pending sends complete as not written, but the
     * peer's messages still open may still view the buffer: what is written into it then is visible to that peer.
     * Over other transports it is an ordinary direct buffer, sent by copy. Its file is deleted by {@link
     * #freeShared} or when the engine closes; the memory lasts while the buffer is referenced. Any thread.
     */
    public ByteBuffer allocateShared(final int bytes)
    {
        if (!isOpen())
        {
            throw new IllegalStateException("engine " + name + " is closed");
        }
        final java.nio.file.Path own = core.hasTransport("shm") ? core.transport("shm").sharedMemoryDirectory() : null;
        return sharedBuffers.allocate(own != null ? own : io.xio.engine.memory.SharedMemory.defaultDirectory(), bytes);
    }

    /**
     * Undoes {@link #allocateShared}: deletes the buffer's file; connections that mapped it keep their mapping, and
     * later sends from it go by copy. Call it once no message in it is still with xio. False when it was not (or no
     * longer) a shared buffer of this engine. Any thread.
     */
    public boolean freeShared(final ByteBuffer buffer)
    {
        return sharedBuffers.free(buffer);
    }

    /** Binds a portal on the next context in turn, with the default acceptor. Blocks until bound. */
    public Portal bind(final String uri)
    {
        return bind(uri, SessionAcceptor.DEFAULT);
    }

    /** Binds a portal on the next context in turn, its sessions decided on by {@code acceptor}. Blocks until bound. */
    public Portal bind(final String uri, final SessionAcceptor acceptor)
    {
        return bind(uri, PortalOptions.DEFAULT.withAcceptor(acceptor));
    }

    /** Binds a portal as {@code options} say. Blocks until it listens. */
    public Portal bind(final String uri, final PortalOptions options)
    {
        return await(bindAsync(uri, options), "binding " + uri);
    }

    /**
     * Binds a portal as {@code options} say; completes once it listens. The way to bind with
     * {@link Builder#manualContexts manual contexts}, whose application runs the context meanwhile.
     *
     * @throws IllegalArgumentException when the options name a context the engine does not have
     */
    public CompletableFuture<Portal> bindAsync(final String uri, final PortalOptions options)
    {
        checkOpen();
        final int contextIndex = options.context() == PortalOptions.NEXT_CONTEXT ? portals.nextContext(loops.length)
            : options.context();
        if (contextIndex >= loops.length)
        {
            throw new IllegalArgumentException("context index " + contextIndex + " outside 0.." + (loops.length - 1));
        }
        return PortalImpl.bind(core, XioUri.parse(uri), contextIndex, options.acceptor(), options.tls())
            .thenApply(portals::bound);
    }

    /** Opens a client session and waits until it is established. */
    public Session connect(final String uri)
    {
        return connect(uri, SessionOptions.DEFAULT);
    }

    public Session connect(final String uri, final SessionOptions options)
    {
        final CompletableFuture<Session> opening = openSession(uri, options);
        try
        {
            return await(opening, "opening a session to " + uri);
        }
        catch (final ConnectionException ex)
        {
            opening.thenAccept(Session::close); // should it open after all, nobody holds it
            throw ex;
        }
    }

    /** Whether this engine has a transport for {@code scheme} (tcp, shm, rdma...). Any thread. */
    public boolean hasTransport(final String scheme)
    {
        return core.hasTransport(scheme);
    }

    /** Opens a client session asynchronously. */
    public CompletableFuture<Session> openSession(final String uri, final SessionOptions options)
    {
        checkOpen();
        final XioUri parsed = XioUri.parse(uri);
        if (parsed.resource().isEmpty())
        {
            throw new IllegalArgumentException("session URI " + uri + " names no resource (e.g. " +
                parsed.withResource("kv") + ")");
        }
        core.transport(parsed.scheme());
        return SessionImpl.open(core, parsed, options);
    }

    private <T> T await(final CompletableFuture<T> future, final String what)
    {
        if (loops.length > 0 && loopSettings.manual())
        {
            throw new IllegalStateException("with manual contexts, use the asynchronous methods and run the " +
                "contexts while " + what);
        }
        try
        {
            final long wait = settings.connectTimeout().toNanos() * 2 + TimeUnit.SECONDS.toNanos(1);
            return future.get(wait, TimeUnit.NANOSECONDS);
        }
        catch (final ExecutionException ex)
        {
            final Throwable cause = ex.getCause();
            if (cause instanceof XioException xio)
            {
                throw xio;
            }
            throw new XioException(what + " failed: " + cause, cause);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new XioException("interrupted while " + what, ex);
        }
        catch (final TimeoutException ex)
        {
            throw new ConnectionException("timed out while " + what);
        }
    }

    private void checkOpen()
    {
        if (closed.get())
        {
            throw new XioException("engine " + name + " is closed");
        }
    }

    /** Totals over all contexts, plus the requests refused for lack of room. Any thread. */
    public EngineStatistics statistics()
    {
        return contexts.statistics(core.backPressureRejections());
    }

    /**
     * Streams open now on all this engine's sessions, those of both sides, counted as each session's
     * {@link SessionStatistics#openStreams()} (what {@code StreamLimits.maxStreams()} bounds). Any thread.
     */
    public int openStreams()
    {
        return core.openStreams();
    }

    /** The bounds this engine holds its peers and itself to. */
    public Limits limits()
    {
        return core.limits;
    }

    /** How long an idle context spins before it parks ({@link Builder#busyPoll}). */
    public Duration busyPoll()
    {
        return loopSettings.busyPoll();
    }

    /** Whether idle contexts learn when work comes ({@link Builder#adaptivePolling}). */
    public boolean adaptivePolling()
    {
        return loopSettings.adaptive();
    }

    /**
     * Whether the application runs the contexts on its threads ({@link Builder#manualContexts}): then a context's
     * thread is whichever ran it last, and a thread may become one, or stop being one, at any time.
     */
    public boolean manualContexts()
    {
        return loopSettings.manual();
    }

    /** How long a caller blocked on a {@link XioFuture} spins before it parks ({@link Builder#callerSpin}). */
    public Duration callerSpin()
    {
        return settings.callerSpin();
    }

    /** Traffic-free time after which a connection sends a keepalive ({@link Builder#keepalive}). */
    public Duration keepaliveInterval()
    {
        return settings.keepaliveInterval();
    }

    /** Silence after which a peer's connection is dropped ({@link Builder#keepalive}). */
    public Duration keepaliveTimeout()
    {
        return settings.keepaliveTimeout();
    }

    /** How long a lost connection is re-tried and its session kept ({@link Builder#reconnectTimeout}). */
    public Duration reconnectTimeout()
    {
        return settings.reconnectTimeout();
    }

    /** How long a connect or session set-up may take ({@link Builder#connectTimeout}). */
    public Duration connectTimeout()
    {
        return settings.connectTimeout();
    }

    /** What this engine does once a context failed ({@link Builder#onContextFailure}). */
    public ContextFailurePolicy onContextFailure()
    {
        return contextFailurePolicy;
    }

    /** Whether received messages are tracked for leaks ({@link Builder#leakDetection}). */
    public boolean isLeakDetection()
    {
        return leaks != null;
    }

    /**
     * What this engine refused its peers or cut them off for, by kind, since it started: a snapshot, any thread.
     * Each refusal is also logged, at most once a second per peer host.
     */
    public java.util.Map<PeerRefusal, Long> refusals()
    {
        return core.refusals();
    }

    /** How many times this engine refused a peer {@code kind} since it started. Any thread. */
    public long refusals(final PeerRefusal kind)
    {
        return core.refusals(kind);
    }

    /** The portals bound and still open. Any thread; a snapshot. */
    public List<Portal> portals()
    {
        return portals.open();
    }

    /** Every session of this engine, opened here or accepted here, not yet closed. Any thread; a snapshot. */
    public List<Session> sessions()
    {
        return List.copyOf(core.sessions());
    }

    /**
     * Drains the engine's server side for a graceful shutdown or a rolling restart: from now on its portals refuse new
     * sessions ({@link SessionRejectedException#isDraining()}) but still take re-attaches of sessions they have; every
     * server session is sent a GOAWAY ({@link GoAway#of}, or a redirect to {@code redirect} when not empty); requests
     * that arrive meanwhile are still served. The future completes once every server session is closed (its client
     * closes it after its last answer), or when {@code grace} has passed, after closing those left. Client sessions of
     * this engine are not touched. Any thread; a second call returns the first call's future.
     * <p>
     * The future completes on a thread the drain starts, never on one of the engine's contexts nor on the common
     * pool, so its dependents may block: {@code drain(...).thenRun(engine::close)} closes the engine.
     * Only clients that announced they understand GOAWAY are sent one; older ones are closed at the end of the grace.
     *
     * @param redirect where clients should re-open their sessions; empty for anywhere else
     * @param grace    how long the sessions have to close; one too long to count in nanoseconds (such as
     *                 {@code Duration.ofSeconds(Long.MAX_VALUE)}) has no end
     * @throws IllegalArgumentException when {@code grace} is negative
     */
    public CompletableFuture<Void> drain(final List<XioUri> redirect, final Duration grace)
    {
        return drain(redirect, grace, java.util.Set.of());
    }

    /**
     * As {@link #drain(List, Duration)}, but set-ups for the {@code served} resources are still taken, and their
     * sessions neither sent GOAWAY nor waited for (the caller closes them): for a resource that must answer
     * while the server drains, such as a health check saying that it does. Any thread.
     */
    public CompletableFuture<Void> drain(final List<XioUri> redirect, final Duration grace,
        final java.util.Set<String> served)
    {
        java.util.Objects.requireNonNull(redirect, "redirect");
        if (grace.isNegative())
        {
            throw new IllegalArgumentException("the grace of a drain cannot be negative: " + grace);
        }
        final String reason = "the server is draining";
        return core.drain(redirect.isEmpty() ? GoAway.of(reason) : GoAway.redirect(redirect, reason), grace,
            served);
    }

    /**
     * Ends a drain whose future completed, for a server started again in place: its portals take new sessions again
     * and {@link #isDraining()} is false; nothing when no drain began. Any thread.
     *
     * @throws IllegalStateException when the drain's future has not completed yet
     */
    public void endDrain()
    {
        core.endDrain();
    }

    /** Whether {@link #drain} was called (and not {@linkplain #endDrain() ended}). Any thread. */
    public boolean isDraining()
    {
        return core.isDraining();
    }

    /** Received messages not yet released; empty unless leak detection is on. */
    public List<Throwable> unreleasedMessages()
    {
        return leaks == null ? List.of() : leaks.unreleased();
    }

    /**
     * Closes sessions, portals and connections and stops the contexts. With leak detection on, then fails
     * with an {@link IllegalStateException} listing every received message that was never released. Does
     * nothing once closed, also when a failed context closed the engine ({@link ContextFailurePolicy#CLOSE_ENGINE}).
     */
    @Override
    public void close()
    {
        synchronized (lifecycle)
        {
            if (!closed.compareAndSet(false, true))
            {
                return;
            }
        }
        core.sessions().forEach(Session::close);
        portals.closeAll();
        contexts.stop(core);
        sharedBuffers.freeAll();
        if (leaks != null)
        {
            leaks.requireAllReleased(name);
        }
    }

    /**
     * Builds an {@link XioEngine}. Not thread-safe.
     */
    public static final class Builder
    {
        private String name;
        private int contexts = Math.max(1, Runtime.getRuntime().availableProcessors());
        private Duration busyPoll = DEFAULT_BUSY_POLL;
        private boolean adaptivePolling = DEFAULT_ADAPTIVE_POLLING;
        private Limits limits = Limits.DEFAULT;
        private Duration keepaliveInterval = DEFAULT_KEEPALIVE_INTERVAL;
        private Duration keepaliveTimeout = DEFAULT_KEEPALIVE_TIMEOUT;
        private Duration reconnectTimeout = DEFAULT_RECONNECT_TIMEOUT;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration callerSpin = DEFAULT_CALLER_SPIN;
        private boolean leakDetection;
        private boolean manualContexts;
        private SessionListener listener = SessionListener.NONE;
        private ContextFailurePolicy contextFailurePolicy = DEFAULT_CONTEXT_FAILURE_POLICY;
        private NanoClock clock = SystemNanoClock.INSTANCE;
        private TlsOptions tls;
        private final Map<String, Transport> transports = new LinkedHashMap<>();
        private final java.util.List<ClientInterceptor> clientInterceptors = new java.util.ArrayList<>();
        private final java.util.List<ServerInterceptor> serverInterceptors = new java.util.ArrayList<>();

        private Builder()
        {
        }

        /** Names threads and log lines; default {@code xio-N}. */
        public Builder name(final String value)
        {
            name = value;
            return this;
        }

        /** Number of contexts (threads with event loops); default: the number of processors. */
        public Builder contexts(final int value)
        {
            if (value < 1)
            {
                throw new IllegalArgumentException("contexts must be >= 1, was " + value);
            }
            contexts = value;
            return this;
        }

        /**
         * How long an idle context spins after work before it sleeps; 0 parks at once (and turns
         * {@link #adaptivePolling} off), a time longer than any gap spins throughout. Default 50µs.
         */
        public Builder busyPoll(final Duration value)
        {
            requireNonNegative("busyPoll", value);
            busyPoll = value;
            return this;
        }

        /**
         * Whether an idle context learns from the gaps between work: it keeps spinning after work only while work
         * often comes back within {@link #busyPoll}, and when work comes at regular intervals (a paced client) it
         * sleeps until shortly before the next is due and spins through a short window around it, at most an
         * eighth of the gap. Irregular or no load parks after the spin, as without it. False: spin for
         * {@code busyPoll}, then park. Default true.
         */
        public Builder adaptivePolling(final boolean value)
        {
            adaptivePolling = value;
            return this;
        }

        /**
         * How long a thread blocked on a {@link XioFuture} spins before it parks. Worth it only when cores are
         * spare beyond the contexts' own: on a machine with no spare core the spinning caller slows the context
         * it waits for. Default 0.
         */
        public Builder callerSpin(final Duration value)
        {
            requireNonNegative("callerSpin", value);
            callerSpin = value;
            return this;
        }

        public Builder limits(final Limits value)
        {
            limits = value;
            return this;
        }

        /**
         * Keepalive: send one after {@code interval} without traffic; drop a peer silent for {@code timeout}.
         * Default 1s and 10s.
         */
        public Builder keepalive(final Duration interval, final Duration timeout)
        {
            requirePositive("keepalive interval", interval);
            requirePositive("keepalive timeout", timeout);
            if (timeout.compareTo(interval) <= 0)
            {
                throw new IllegalArgumentException("keepalive timeout (" + timeout + ") must exceed the interval (" +
                    interval + ")");
            }
            keepaliveInterval = interval;
            keepaliveTimeout = timeout;
            return this;
        }

        /**
         * How long a client keeps trying to re-establish a lost connection, and a server keeps its session.
         * Default 30s.
         */
        public Builder reconnectTimeout(final Duration value)
        {
            requirePositive("reconnectTimeout", value);
            reconnectTimeout = value;
            return this;
        }

        /** How long a connect or session set-up may take. Default 5s. */
        public Builder connectTimeout(final Duration value)
        {
            requirePositive("connectTimeout", value);
            connectTimeout = value;
            return this;
        }

        /** Track received messages; {@link XioEngine#close()} then fails on any never released. For tests. */
        public Builder leakDetection(final boolean value)
        {
            leakDetection = value;
            return this;
        }

        /** Contexts run on the application's threads ({@link Context#runOnce}) instead of their own. */
        public Builder manualContexts(final boolean value)
        {
            manualContexts = value;
            return this;
        }

        /**
         * Adds an interceptor around every request and one-way message the engine's sessions send (both sides);
         * they run in the order added.
         */
        public Builder clientInterceptor(final ClientInterceptor value)
        {
            clientInterceptors.add(java.util.Objects.requireNonNull(value, "clientInterceptor"));
            return this;
        }

        /**
         * Adds an interceptor around the handler of every service registered on the engine; the first added is the
         * outermost (sees each request first). For one service only, register it wrapped with
         * {@link ServerInterceptor#wrap}.
         */
        public Builder serverInterceptor(final ServerInterceptor value)
        {
            serverInterceptors.add(java.util.Objects.requireNonNull(value, "serverInterceptor"));
            return this;
        }

        /** Receives lifecycle events of every session of the engine, both sides. */
        public Builder sessionListener(final SessionListener value)
        {
            listener = value == null ? SessionListener.NONE : value;
            return this;
        }

        /**
         * What the engine does once a context failed (an {@link Error} on its thread): close itself (the default,
         * {@link ContextFailurePolicy#CLOSE_ENGINE}: the failed context's state is unknown, and a clean stop with
         * the health DOWN lets an orchestrator restart the process whole) or put a fresh context in the failed
         * one's place ({@link ContextFailurePolicy#RESTART_CONTEXT}). Either way, the failed context's sessions
         * fail first.
         */
        public Builder onContextFailure(final ContextFailurePolicy value)
        {
            contextFailurePolicy = java.util.Objects.requireNonNull(value, "onContextFailure");
            return this;
        }

        /**
         * The clock deadlines, timers, keepalive and reconnect backoff follow; default {@code System.nanoTime}.
         * Tests drive a fake one with {@link #manualContexts} to step through time without waiting for it.
         */
        public Builder nanoClock(final NanoClock value)
        {
            clock = java.util.Objects.requireNonNull(value, "nanoClock");
            return this;
        }

        /**
         * The TLS options of the engine's {@code tls://} portals and sessions (tcp with TLS): its certificate and
         * trust material, client certificates asked for or required, protocols. A portal bound with {@link
         * PortalOptions#withTls options of its own}, and a session opened with
         * {@link SessionOptions#withTls}, use theirs instead. Without any, a {@code tls://} bind or connect fails.
         */
        public Builder tls(final TlsOptions value)
        {
            tls = value;
            return this;
        }

        /** Adds a transport to this engine only, replacing the provided one of the same scheme, if any. */
        public Builder transport(final Transport value)
        {
            transports.put(value.scheme(), value);
            return this;
        }

        public XioEngine build()
        {
            return new XioEngine(this);
        }

        private static void requirePositive(final String what, final Duration value)
        {
            if (value == null || value.isNegative() || value.isZero())
            {
                throw new IllegalArgumentException(what + " must be positive, was " + value);
            }
        }

        private static void requireNonNegative(final String what, final Duration value)
        {
            if (value == null || value.isNegative())
            {
                throw new IllegalArgumentException(what + " must be >= 0, was " + value);
            }
        }
    }
}
