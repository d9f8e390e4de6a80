package io.xio.spring.service;

import io.xio.annotation.XioService;
import io.xio.annotation.XioServiceAdvice;
import io.xio.engine.Portal;
import io.xio.engine.PortalOptions;
import io.xio.engine.SessionAcceptor;
import io.xio.engine.SetupDecision;
import io.xio.engine.TlsOptions;
import io.xio.engine.XioEngine;
import io.xio.engine.XioException;
import io.xio.engine.XioUri;
import io.xio.engine.support.QueueingHandler;
import io.xio.engine.support.Redirectors;
import io.xio.spring.call.XioServerInterceptor;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.error.XioErrorDisclosure;
import io.xio.spring.health.XioHealth;
import io.xio.spring.health.XioHealthService;
import io.xio.spring.observation.XioInstrumentation;
import io.xio.spring.reflection.XioReflectionService;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.util.StringUtils;

import java.beans.Introspector;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Once the application context is refreshed: registers every {@code @XioService} bean with the engine (its
 * failures mapped by its own and the {@code @XioServiceAdvice} beans' exception handlers) and binds the
 * {@linkplain Server#portals() portals} (the first one redirecting over the others when a redirect policy is set;
 * tls:// ones with the TLS options they were given). What to bind and bound comes resolved as a {@link Server}:
 * with Spring Boot, from the {@code xio.*} properties, whose names the failures give.
 * Service methods run on the worker executor given (with Spring Boot, its {@code applicationTaskExecutor} or the
 * bean {@code xio.server.executor} names) in the context each call arrived with ({@link XioCallContext}).
 * <p>
 * A call that reached the server while the application closes is never lost to the worker: Boot's pooled
 * executor stops taking tasks as the context closes ({@code ContextClosedEvent}, before any lifecycle bean stops,
 * unless {@code spring.task.execution.pool.shutdown.accept-tasks-after-context-close} is set), while the portals
 * still take calls until their sessions drained. A task the worker refuses once the context is closing, or this
 * exporter draining, runs on a thread of its own instead (a virtual one with {@link Settings#virtualThreads()});
 * the dispatcher's bounds hold those threads in check as they hold the worker's tasks: a service's bounds
 * ({@code xio.server.services.<name>.*}) when it has some, else its most calls queued or running at once. The
 * alternative, making the application's executor keep taking tasks, would change it for every other user, and
 * an executor given as {@code xio.server.executor} may refuse for the same reason; a refusal outside a shutdown
 * is still back-pressure.
 * <p>
 * On shutdown, and on demand ({@link #drain()}): tells the {@link XioExportListener}s (which deregister the server
 * from service discovery), drains the engine (every session is sent GOAWAY, calls in flight finish, new sessions are
 * refused; the health service, {@value XioHealth#RESOURCE}, still answers) within {@code xio.shutdown.grace-period};
 * on shutdown it then closes the portals and unregisters the
 * services (after an on-demand drain they stay bound, refusing set-ups, until the application stops). With Spring
 * Boot the shutdown runs in its graceful-shutdown phase, alongside the web server's graceful shutdown and before
 * the web server stops; it is asynchronous ({@link #stop(Runnable)}), first tells the listeners that the server
 * {@linkplain XioExportListener#stopping() stops} (Boot's marks the application refusing traffic), and ends within
 * the phase's timeout ({@code spring.lifecycle.timeout-per-shutdown-phase}), which bounds the grace period.
 * Once the portals are bound it publishes a {@link XioPortalsExportedEvent}.
 * <p>
 * Lifecycle methods are called by Spring's lifecycle processor; {@link #drain()}, {@link #portals()} and
 * {@link #services()} from any thread.
 */
public final class XioServiceExporter implements SmartLifecycle, DisposableBean
{
    private static final Logger LOG = LoggerFactory.getLogger(XioServiceExporter.class);

    /**
     * Just before the web server (whose lifecycle is in phase {@code DEFAULT_PHASE - 2048}) starts: the portals are
     * bound when the web server's start registers the instance with service discovery. With Spring Boot the stop
     * comes earlier, in its graceful-shutdown phase; by this phase nothing is left to do. Should
     * that stop outlast its phase's timeout, the lifecycle processor goes on without it, and {@link #destroy()}
     * closes the portals.
     */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 2049;

    /** The most of the phase's timeout kept for closing the portals after the grace period. */
    private static final Duration CLOSING = Duration.ofSeconds(1);

    private final ApplicationContext context;
    private final XioEngine engine;
    private final XioCodec codec;
    private final Server server;
    private final XioInstrumentation instrumentation;
    private final List<XioServerInterceptor> interceptors;
    private final SessionAcceptor acceptor;
    /** The worker given, or the one made here, with the shutdown's fallback. */
    private final Executor worker;
    /** The worker made here when none was given, closed with the exporter. */
    private final @Nullable SimpleAsyncTaskExecutor ownWorker;
    /** Runs the tasks the worker refuses during a shutdown; made on the first, closed with the exporter. */
    private volatile @Nullable SimpleAsyncTaskExecutor closingWorker;
    /**
     * Runs a stop's last step (closing the portals, calling back), a thread each time. Never closed: a stop that
     * outlasts its phase ends after {@link #destroy()}, and still calls back.
     */
    private final SimpleAsyncTaskExecutor stopWorker;
    /** Not the exporter's own monitor: an engine thread makes the fallback, while unexport may wait for one. */
    private final Object closingWorkerLock = new Object();
    /** Whether the service methods' own threads are virtual ones. */
    private final boolean virtualThreads;
    private final XioCallContext callContext;
    /** {@code spring.lifecycle.timeout-per-shutdown-phase}, or null when the stop is not bounded by one. */
    private final @Nullable Duration phaseTimeout;
    // Read from any thread (the actuator, reflection) while a start or a stop's end changes them.
    private final List<ServiceDispatcher> dispatchers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final List<Portal> portals = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final List<XioExportListener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean running;
    private volatile java.util.concurrent.@Nullable CompletableFuture<Drained> drain;

    /**
     * What the server binds and how it bounds its services, resolved (with Spring Boot, from {@code xio.portals},
     * {@code xio.server.*} and {@code xio.shutdown.*}). Immutable.
     *
     * @param portals the portals to bind, in their order
     * @param redirect how the first portal redirects new sessions over the others, when there are others
     * @param services the bounds of the services that have some, by resource
     * @param servicesProperty the property the bounds are set under ({@code xio.server.services}), which the
     *                         failures name with the resource and the setting
     * @param errorDisclosure what of a failure's message and type the callers are told
     * @param gracePeriod how long a drain waits for the calls in flight
     */
    public record Server(List<PortalBinding> portals, Redirect redirect, Map<String, ServiceBounds> services,
        String servicesProperty, XioErrorDisclosure errorDisclosure, Duration gracePeriod)
    {
        /** Copies the lists; the services keep their order, which a failure naming one of them follows. */
        public Server
        {
            portals = List.copyOf(portals);
            services = Collections.unmodifiableMap(new LinkedHashMap<>(services));
        }
    }

    /**
     * One portal to bind.
     *
     * @param uri where
     * @param tls the TLS options of a tls:// portal (key material, client authentication), or null for none
     * @param property the property that configured the portal ({@code xio.portals[0].uri}), which a failure names
     */
    public record PortalBinding(String uri, @Nullable TlsOptions tls, String property)
    {
    }

    /**
     * The bounds of one service's calls.
     *
     * @param maxConcurrentCalls the most calls running at once, or null for no bound
     * @param maxQueuedCalls the most calls waiting for one of those, or null for twice {@code maxConcurrentCalls};
     *                       needs {@code maxConcurrentCalls}
     */
    public record ServiceBounds(@Nullable Integer maxConcurrentCalls, @Nullable Integer maxQueuedCalls)
    {
    }

    /** How the first of several portals spreads new sessions over the others. */
    public enum Redirect
    {
        /** It does not: every portal takes the sessions that reach it. */
        NONE,
        /** In turn. */
        ROUND_ROBIN,
        /** By the client's host, so that one client's sessions land together. */
        HASH
    }

    /**
     * How the services are exported, beyond the {@link Server}: each component has a default when null.
     *
     * @param instrumentation records the calls (default: none)
     * @param interceptors around the services each {@code appliesTo}, in their order (default: none)
     * @param acceptor decides on session set-ups, such as one that authenticates; a first portal that redirects over
     *                 the others redirects instead, and the portal a client lands on decides (default: accept all)
     * @param worker where the service methods run (default: a thread per call made here, closed with the exporter)
     * @param callContext the context a call carries over onto its worker (default: none)
     * @param phaseTimeout the lifecycle phase's timeout, which bounds the shutdown (default: the grace period only)
     * @param virtualThreads whether the threads made here (per call without a worker, for the tasks a closing
     *                       worker refuses) are virtual ones
     */
    public record Settings(XioInstrumentation instrumentation, List<XioServerInterceptor> interceptors,
        SessionAcceptor acceptor, @Nullable Executor worker, XioCallContext callContext,
        @Nullable Duration phaseTimeout, boolean virtualThreads)
    {
        /** Every default. */
        public static final Settings DEFAULTS = new Settings(null, null, null, null, null, null, false);

        /** Takes null for a default: only {@link #worker()} and {@link #phaseTimeout()} may be null afterwards. */
        public Settings(final @Nullable XioInstrumentation instrumentation,
            final @Nullable List<XioServerInterceptor> interceptors, final @Nullable SessionAcceptor acceptor,
            final @Nullable Executor worker, final @Nullable XioCallContext callContext,
            final @Nullable Duration phaseTimeout, final boolean virtualThreads)
        {
            this.instrumentation = instrumentation == null ? XioInstrumentation.NONE : instrumentation;
            this.interceptors = interceptors == null ? List.of() : List.copyOf(interceptors);
            this.acceptor = acceptor == null ? SessionAcceptor.DEFAULT : acceptor;
            this.worker = worker;
            this.callContext = callContext == null ? XioCallContext.NONE : callContext;
            this.phaseTimeout = phaseTimeout;
            this.virtualThreads = virtualThreads;
        }
    }

    /** Exports the application's {@code @XioService} beans with the engine, as {@code server} and settings say. */
    public XioServiceExporter(final ApplicationContext context, final XioEngine engine, final XioCodec codec,
        final Server server, final Settings settings)
    {
        this.virtualThreads = settings.virtualThreads();
        this.ownWorker = settings.worker() == null ? threadPerTask("xio-worker-") : null;
        this.stopWorker = threadPerTask("xio-stop-");
        this.worker = settings.worker() == null ? ownWorker : closingFallback(settings.worker());
        this.callContext = settings.callContext();
        this.phaseTimeout = settings.phaseTimeout();
        this.acceptor = settings.acceptor();
        this.instrumentation = settings.instrumentation();
        this.interceptors = settings.interceptors();
        this.context = context;
        this.engine = engine;
        this.codec = codec;
        this.server = server;
    }

    /**
     * A daemon thread per task (per call, for an exporter made without the application's executor): virtual threads
     * when the settings ask for them (on Java 21 and later).
     */
    private SimpleAsyncTaskExecutor threadPerTask(final String threadNamePrefix)
    {
        final SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor(threadNamePrefix);
        executor.setDaemon(true);
        executor.setVirtualThreads(virtualThreads);
        return executor;
    }

    /**
     * {@code worker}, except that a task it refuses while the application shuts down runs on a thread of its own
     * (see the class's documentation); the dispatcher bounds how many it is given.
     */
    private Executor closingFallback(final Executor worker)
    {
        return task ->
        {
            try
            {
                worker.execute(task);
            }
            catch (final RejectedExecutionException ex)
            {
                if (!isShuttingDown())
                {
                    throw ex;
                }
                closingWorker().execute(task);
            }
        };
    }

    /** Whether the application context is closing or this exporter drains: the portals still take calls. */
    private boolean isShuttingDown()
    {
        return drain != null || context instanceof ConfigurableApplicationContext closing && closing.isClosed();
    }

    private SimpleAsyncTaskExecutor closingWorker()
    {
        SimpleAsyncTaskExecutor made = closingWorker;
        if (made == null)
        {
            synchronized (closingWorkerLock)
            {
                made = closingWorker;
                if (made == null)
                {
                    made = threadPerTask("xio-closing-");
                    closingWorker = made;
                }
            }
        }
        return made;
    }

    /**
     * Adds listeners told of the portals once bound and before a drain, such as the Spring Cloud registration;
     * before {@link #start()}.
     */
    public void addListeners(final List<XioExportListener> added)
    {
        listeners.addAll(added);
    }

    /**
     * Exports the services and binds the portals, then tells the listeners (after a {@link #stop(Runnable) stop} in
     * the same context, that is how the application accepts traffic again).
     */
    @Override
    public void start()
    {
        if (drain != null)
        {
            engine.endDrain(); // the stop drained it, and it would refuse every new session
        }
        try
        {
            export();
        }
        catch (final RuntimeException ex)
        {
            unexport(); // Spring does not stop what failed to start: let go of what was bound already
            throw ex;
        }
        drain = null;
        running = true;
        final List<Portal> bound = portals();
        listeners.forEach(listener -> listener.exported(bound));
        context.publishEvent(new XioPortalsExportedEvent(this, context, bound));
    }

    private void export()
    {
        final List<Object> advices = List.copyOf(context.getBeansWithAnnotation(XioServiceAdvice.class).values());
        final XioCodec json = context.getBeanProvider(XioReflectionService.class).stream()
            .map(XioReflectionService::json).findFirst().orElse(null); // calls in JSON go with reflection
        // Health checks take JSON whether reflection is on or not: probes in any language ask them.
        final XioCodec healthJson = context.getBeanProvider(XioHealthService.class).stream()
            .map(XioHealthService::json).filter(java.util.Objects::nonNull).findFirst().orElse(json);
        final XioErrorDisclosure disclosure = server.errorDisclosure();
        // Only an application with exactly-once methods needs one: a service with such methods and none fails.
        final ExactlyOnceCalls.Factory exactlyOnce = context.getBeanProvider(ExactlyOnceCalls.Factory.class)
            .getIfAvailable();
        for (final Map.Entry<String, Object> bean : context.getBeansWithAnnotation(XioService.class).entrySet())
        {
            final Object target = bean.getValue();
            final Class<?> type = org.springframework.aop.support.AopUtils.getTargetClass(target);
            final XioService settings = AnnotatedElementUtils.findMergedAnnotation(type, XioService.class);
            final Class<?> api = exportedInterface(type, settings);
            final String resource = StringUtils.hasText(settings.value()) ? settings.value()
                : Introspector.decapitalize(api.getSimpleName());
            if (XioReflectionService.isReserved(resource) && type != XioReflectionService.class &&
                type != XioHealthService.class)
            {
                throw new IllegalStateException("@XioService on " + type.getName() + " exports the resource '" +
                    resource + "'; names starting with '" + XioReflectionService.RESERVED_PREFIX + "' are xio's own");
            }
            if (dispatchers.stream().anyMatch(d -> d.resource().equals(resource)))
            {
                throw new IllegalStateException("two @XioService beans export the resource '" + resource +
                    "' (the second is " + type.getName() + "); give one of them another name");
            }
            final ServiceBounds bounds = type == XioHealthService.class
                ? healthBounds(server.services().get(resource)) : server.services().get(resource);
            final String property = server.servicesProperty() + "." + resource;
            final int maxConcurrent = maxConcurrentCalls(property, settings, bounds);
            final ServiceDispatcher dispatcher = new ServiceDispatcher(resource, api, target, codec,
                settings.dispatch(), worker, instrumentation, new ServiceDispatcher.Settings(
                    XioExceptionHandlers.of(target, resource, api, advices, disclosure), maxConcurrent,
                    maxQueuedCalls(property, bounds),
                    interceptors.stream().filter(interceptor -> interceptor.appliesTo(resource)).toList(),
                    type == XioHealthService.class ? healthJson : json,
                    callContext, property, exactlyOnce));
            dispatchers.add(dispatcher);
            engine.register(resource, dispatcher, dispatcher.reuse());
        }
        for (final String named : server.services().keySet())
        {
            if (dispatchers.stream().noneMatch(d -> d.resource().equals(named)))
            {
                throw new IllegalStateException(server.servicesProperty() + "." + named + " names no exported " +
                    "service; " +
                    "the @XioService resources are " + dispatchers.stream().map(ServiceDispatcher::resource).toList());
            }
        }
        final List<PortalBinding> configured = server.portals();
        for (int i = configured.size() - 1; i >= 0; i--) // the first portal last: it may redirect to the others
        {
            final PortalBinding portal = configured.get(i);
            SessionAcceptor acceptor = this.acceptor;
            if (i == 0 && configured.size() > 1 && server.redirect() != Redirect.NONE)
            {
                final List<XioUri> targets = portals.stream().map(Portal::uri).toList();
                acceptor = authenticatedThenRedirected(this.acceptor, server.redirect() == Redirect.ROUND_ROBIN
                    ? Redirectors.roundRobin(targets)
                    : Redirectors.hash(targets, request -> clientHost(request.clientAddress()).hashCode()));
            }
            portals.add(0, bind(portal.uri(), acceptor, portal.tls(), portal.property()));
        }
    }

    /** {@code configured}, or the health service's default bound on its calls running at once when it sets none. */
    private static ServiceBounds healthBounds(final @Nullable ServiceBounds configured)
    {
        return configured != null && configured.maxConcurrentCalls() != null ? configured
            : new ServiceBounds(XioHealthService.DEFAULT_MAX_CONCURRENT_CALLS,
                configured == null ? null : configured.maxQueuedCalls());
    }

    /** Binds one portal; a failure names the property that configured it. */
    private Portal bind(final String uri, final SessionAcceptor acceptor, final @Nullable TlsOptions tls,
        final String property)
    {
        try
        {
            return engine.bind(uri, PortalOptions.DEFAULT.withAcceptor(acceptor).withTls(tls));
        }
        catch (final XioException ex)
        {
            throw new XioPortalBindException(property, uri, ex);
        }
    }

    /**
     * The bound on a service's calls running at once, 0 for none; fails naming the property (under {@code property},
     * the service's) it cannot apply.
     */
    private static int maxConcurrentCalls(final String property, final XioService settings,
        final @Nullable ServiceBounds bounds)
    {
        if (bounds == null || bounds.maxConcurrentCalls() == null)
        {
            if (bounds != null && bounds.maxQueuedCalls() != null)
            {
                throw new IllegalStateException(property + ".max-queued-calls needs " + property +
                    ".max-concurrent-calls: without a bound on the calls running, every call starts at once and " +
                    "none waits");
            }
            return 0;
        }
        if (settings.dispatch() == XioService.Dispatch.INLINE)
        {
            throw new IllegalStateException(property + ".max-concurrent-calls cannot apply: the service runs " +
                "inline on the context thread (@XioService(dispatch = INLINE))");
        }
        return bounds.maxConcurrentCalls();
    }

    /** The bound on a service's calls waiting; by default twice those it runs at once. */
    private static int maxQueuedCalls(final String property, final @Nullable ServiceBounds bounds)
    {
        if (bounds == null || bounds.maxConcurrentCalls() == null)
        {
            return 0;
        }
        return bounds.maxQueuedCalls() != null ? bounds.maxQueuedCalls()
            : QueueingHandler.defaultMaxQueued(bounds.maxConcurrentCalls());
    }

    /**
     * The interface {@code type} exports: {@code settings.type()}, or the class's only interface; any other
     * case fails naming the class. Also used ahead of time, for the runtime hints of the exported methods.
     */
    public static Class<?> exportedInterface(final Class<?> type, final XioService settings)
    {
        if (settings.type() != void.class)
        {
            if (!settings.type().isInterface() || !settings.type().isAssignableFrom(type))
            {
                throw new IllegalStateException("@XioService(type = " + settings.type().getName() + ") on " +
                    type.getName() + " must name an interface the class implements");
            }
            return settings.type();
        }
        final Class<?>[] interfaces = type.getInterfaces();
        if (interfaces.length != 1)
        {
            throw new IllegalStateException("@XioService on " + type.getName() + " implements " + interfaces.length +
                " interfaces; name the one to export with @XioService(type = ...)");
        }
        return interfaces[0];
    }

    /**
     * The redirecting portal's acceptor: {@code authenticating} decides first, so that a peer it does not accept
     * never learns the other portals; only a session it accepted is redirected. A set-up that says it was
     * redirected already (the hops come from the client, so a peer may claim any) is decided by
     * {@code authenticating} alone. A health check is never redirected: it asks about this server, and one let in
     * without credentials must not learn the other portals.
     */
    static SessionAcceptor authenticatedThenRedirected(final SessionAcceptor authenticating,
        final SessionAcceptor redirector)
    {
        return request ->
        {
            final SetupDecision decision = authenticating.onSetup(request);
            return decision instanceof SetupDecision.Accept && request.redirects() == 0 &&
                !XioHealth.RESOURCE.equals(request.resource()) ? redirector.onSetup(request) : decision;
        };
    }

    /** The client's host without its ephemeral port, so a client's sessions land together. */
    private static String clientHost(final String address)
    {
        final int colon = address.lastIndexOf(':');
        return colon > address.indexOf("://") + 2 ? address.substring(0, colon) : address;
    }

    /** The exported services. */
    public List<ServiceDispatcher> services()
    {
        return List.copyOf(dispatchers);
    }

    /** The bound portals, with their real ports. */
    public synchronized List<Portal> portals()
    {
        return List.copyOf(portals);
    }

    /**
     * Drains this server without stopping the application: the listeners deregister it, every session is sent
     * GOAWAY and its calls in flight finish (or the {@linkplain #gracePeriod() grace period} passes), new sessions
     * are refused; the portals
     * stay bound until the application stops, so the sessions' clients can finish. Any thread; a second call
     * returns the first one's future.
     *
     * @return completes once the sessions drained, with what was drained
     */
    public synchronized java.util.concurrent.CompletableFuture<Drained> drain()
    {
        if (drain != null)
        {
            return drain;
        }
        final java.util.Set<String> served = servedWhileDraining();
        final int sessions = (int)engine.sessions().stream()
            .filter(session -> session.isServerSide() && !served.contains(session.resource())).count();
        for (final XioExportListener listener : listeners)
        {
            try
            {
                listener.draining();
            }
            catch (final RuntimeException ex)
            {
                // A registry that cannot be reached must not keep the server from draining: its entry expires.
                LOG.warn("could not withdraw the server before draining: {}", ex.toString());
            }
        }
        final Duration grace = gracePeriod();
        final long begun = System.nanoTime();
        java.util.concurrent.CompletableFuture<Void> drained;
        try
        {
            drained = engine.drain(List.of(), grace, served);
        }
        catch (final RuntimeException ex)
        {
            // An engine that cannot drain: the portals close as before, and calls running finish within the grace.
            LOG.warn("xio engine could not drain: {}", ex.toString());
            drained = java.util.concurrent.CompletableFuture.completedFuture(null);
        }
        drain = drained.handle((done, ex) ->
        {
            if (ex != null)
            {
                LOG.warn("xio drain failed: {}", ex.toString());
            }
            return new Drained(sessions, Duration.ofNanos(System.nanoTime() - begun));
        });
        return drain;
    }

    /**
     * The resources that answer until the server stops (their sessions closed after the portals): the health
     * service, which says the server drains (its calls are not waited for, so they cannot hold the drain).
     */
    private java.util.Set<String> servedWhileDraining()
    {
        return dispatchers.stream().anyMatch(d -> d.resource().equals(XioHealth.RESOURCE))
            ? java.util.Set.of(XioHealth.RESOURCE) : java.util.Set.of();
    }

    /** Whether {@link #drain()} was called (or a shutdown began) since the services were exported. */
    public boolean isDraining()
    {
        return drain != null;
    }

    /**
     * What a drain did.
     *
     * @param sessions the server sessions that were sent GOAWAY
     * @param took how long until the last of them closed (at most the grace period)
     */
    public record Drained(int sessions, Duration took)
    {
    }

    /**
     * The server's grace period ({@code xio.shutdown.grace-period}), bounded by the lifecycle phase's timeout less
     * what closing the portals takes (a tenth of the timeout, at most a second), so that the portals close within
     * the phase.
     */
    public Duration gracePeriod()
    {
        final Duration grace = server.gracePeriod();
        if (phaseTimeout == null)
        {
            return grace;
        }
        final Duration closing = phaseTimeout.dividedBy(10).compareTo(CLOSING) < 0 ? phaseTimeout.dividedBy(10)
            : CLOSING;
        final Duration bound = phaseTimeout.minus(closing);
        return grace.compareTo(bound) < 0 ? grace : bound;
    }

    @Override
    public void stop()
    {
        final java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        stop(done::countDown);
        try
        {
            done.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Tells the listeners that the server stops (with Spring Boot the readiness probe then fails, so load balancers
     * stop sending), drains (see {@link #drain()}), gives the calls still running what is left of the grace period,
     * then closes the portals; returns at once, {@code callback} runs once that is done, on another thread.
     */
    @Override
    public synchronized void stop(final Runnable callback)
    {
        if (!running)
        {
            callback.run(); // stopped already, in the graceful-shutdown phase
            return;
        }
        running = false;
        final long deadline = System.nanoTime() + gracePeriod().toNanos();
        for (final XioExportListener listener : listeners)
        {
            try
            {
                listener.stopping();
            }
            catch (final RuntimeException ex)
            {
                // As for draining: a listener that fails must not keep the server from stopping, nor the callback.
                LOG.warn("could not tell a listener that the server stops: {}", ex.toString());
            }
        }
        // Not on the thread that completed the last call, which may be an engine context's: portals close here. Nor
        // on the common pool, CompletableFuture's default from Java 25 on, which the application may keep busy (a
        // context closed from a pool task waits for this very callback there).
        drain().thenCompose(drained -> callsFinished(deadline)).whenCompleteAsync((done, ex) ->
        {
            try
            {
                if (ex != null)
                {
                    LOG.warn("xio shutdown: waiting for the calls to finish failed", ex);
                }
                unexport();
            }
            finally
            {
                callback.run();
            }
        }, stopWorker);
    }

    /**
     * Completes once the calls still running after the sessions closed finished, or at {@code deadline}; sessions
     * still open get a clear refusal from now on.
     */
    private CompletableFuture<Void> callsFinished(final long deadline)
    {
        final java.util.Set<String> served = servedWhileDraining();
        final CompletableFuture<Void> finished = CompletableFuture.allOf(dispatchers.stream()
            .filter(d -> !served.contains(d.resource())).map(ServiceDispatcher::drain)
            .toArray(CompletableFuture[]::new));
        return finished.completeOnTimeout(null, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
            .thenRun(() ->
            {
                final int unfinished = dispatchers.stream().filter(d -> !served.contains(d.resource()))
                    .mapToInt(ServiceDispatcher::running).sum();
                if (unfinished > 0)
                {
                    LOG.warn("{} xio call(s) still running after the {} grace period", unfinished, gracePeriod());
                }
            });
    }

    /** Closes the portals (one that fails keeps neither the others nor the services) and unregisters the services. */
    private synchronized void unexport()
    {
        for (final Portal portal : portals)
        {
            try
            {
                portal.close();
            }
            catch (final RuntimeException ex)
            {
                LOG.warn("could not close the xio portal {}", portal, ex);
            }
        }
        portals.clear();
        // A portal's close stops its listener only; the drain left the served resources' sessions open.
        final java.util.Set<String> served = servedWhileDraining();
        for (final io.xio.engine.Session session : engine.sessions())
        {
            if (session.isServerSide() && served.contains(session.resource()))
            {
                session.close();
            }
        }
        dispatchers.forEach(d -> engine.unregister(d.resource()));
        dispatchers.clear();
    }

    @Override
    public boolean isRunning()
    {
        return running;
    }

    @Override
    public int getPhase()
    {
        return PHASE;
    }

    @Override
    public void destroy()
    {
        // Nothing after a stop; a stop that outlasted its phase's timeout, or a context closed without stopping its
        // lifecycle beans, ends here.
        unexport();
        if (ownWorker != null)
        {
            ownWorker.close();
        }
        final SimpleAsyncTaskExecutor closing = closingWorker;
        if (closing != null)
        {
            closing.close();
        }
    }
}
