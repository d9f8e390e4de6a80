package io.xio.spring.autoconfigure;

import io.xio.cluster.DnsEndpointResolver;
import io.xio.cluster.DnsTarget;
import io.xio.cluster.TransportPreference;
import io.xio.engine.ContextFailurePolicy;
import io.xio.engine.SessionOptions;
import io.xio.engine.StreamLimits;
import io.xio.engine.XioUri;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.util.unit.DataSize;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Configuration of xio: the engine's contexts, the portals this application serves on, and the clients it
 * calls.
 */
@ConfigurationProperties("xio")
public class XioProperties
{
    /**
     * Whether xio is configured at all: false leaves out the engine, the service exporter, the clients and the
     * actuator, security and discovery parts, as if xio were not on the class path.
     */
    private boolean enabled = true;

    /** Number of contexts (threads with event loops); default: the number of processors. */
    private @Nullable Integer contexts;

    private final Idle idle = new Idle();

    private final Keepalive keepalive = new Keepalive();

    /** How long a connect or session set-up may take. */
    private @Nullable Duration connectTimeout;

    /**
     * How long a client keeps trying to re-establish a lost connection (and a server keeps the session for it to
     * come back to) before the session fails.
     */
    private @Nullable Duration reconnectTimeout;

    /**
     * Whether the engine tracks received messages and fails its close on any never released (with where each was
     * received). Costs a stack trace per message: for tests.
     */
    private @Nullable Boolean leakDetection;

    /**
     * What the engine does once one of its contexts failed (an Error such as OutOfMemoryError on its thread):
     * close-engine closes the engine, and the xio health stays DOWN with the cause, so that the orchestrator
     * restarts the application, since what the failed context was half-way through is unknown; restart-context
     * puts a fresh context in its place and binds its portals again, so that only its sessions are lost. Either
     * way, the failed context's sessions fail first.
     */
    private @Nullable ContextFailurePolicy onContextFailure;

    /** Server portals, e.g. {@code tcp://0.0.0.0:7000} or {@code shm://kv}; none makes a client-only application. */
    private List<Portal> portals = new ArrayList<>();

    private final Server server = new Server();

    private final Client client = new Client();

    /**
     * Named clients, each under {@code xio.clients.<name>} (the dashed form of the name, e.g. order-service),
     * referred to by {@code @XioClient("<name>")}.
     */
    // Bound here so that a bad value fails start-up when these properties are bound and the IDE describes every
    // client property; a client itself binds its settings under its canonical name (every relaxed spelling of it,
    // merged as Boot merges property sources) and reads this map only for keys that binding cannot see, such as
    // bracketed ones (xio.clients[orderService]).
    private Map<String, NamedClient> clients = new LinkedHashMap<>();

    /** Binary format of method arguments and results. */
    private Codec codec = Codec.SMILE;

    private final Limits limits = new Limits();

    private final Shutdown shutdown = new Shutdown();

    private final Ledger ledger = new Ledger();

    private final Http http = new Http();

    public boolean isEnabled()
    {
        return enabled;
    }

    public void setEnabled(final boolean enabled)
    {
        this.enabled = enabled;
    }

    public @Nullable Integer getContexts()
    {
        return contexts;
    }

    public void setContexts(final @Nullable Integer contexts)
    {
        if (contexts != null && contexts < 1)
        {
            throw new IllegalArgumentException("must be at least 1, was " + contexts);
        }
        this.contexts = contexts;
    }

    public Idle getIdle()
    {
        return idle;
    }

    public Keepalive getKeepalive()
    {
        return keepalive;
    }

    public @Nullable Duration getConnectTimeout()
    {
        return connectTimeout;
    }

    public void setConnectTimeout(final @Nullable Duration connectTimeout)
    {
        this.connectTimeout = connectTimeout == null ? null : positive(connectTimeout);
    }

    public @Nullable Duration getReconnectTimeout()
    {
        return reconnectTimeout;
    }

    public void setReconnectTimeout(final @Nullable Duration reconnectTimeout)
    {
        this.reconnectTimeout = reconnectTimeout == null ? null : positive(reconnectTimeout);
    }

    public @Nullable Boolean getLeakDetection()
    {
        return leakDetection;
    }

    public void setLeakDetection(final @Nullable Boolean leakDetection)
    {
        this.leakDetection = leakDetection;
    }

    public @Nullable ContextFailurePolicy getOnContextFailure()
    {
        return onContextFailure;
    }

    public void setOnContextFailure(final @Nullable ContextFailurePolicy onContextFailure)
    {
        this.onContextFailure = onContextFailure;
    }

    public List<Portal> getPortals()
    {
        return portals;
    }

    public void setPortals(final List<Portal> portals)
    {
        this.portals = portals;
    }

    public Server getServer()
    {
        return server;
    }

    public Client getClient()
    {
        return client;
    }

    public Map<String, NamedClient> getClients()
    {
        return clients;
    }

    public void setClients(final Map<String, NamedClient> clients)
    {
        this.clients = clients;
    }

    public Codec getCodec()
    {
        return codec;
    }

    public void setCodec(final Codec codec)
    {
        this.codec = codec;
    }

    public Limits getLimits()
    {
        return limits;
    }

    public Shutdown getShutdown()
    {
        return shutdown;
    }

    public Http getHttp()
    {
        return http;
    }

    public Ledger getLedger()
    {
        return ledger;
    }

    /** How idle contexts, and callers waiting for a result, wait. */
    public static class Idle
    {
        /**
         * How long an idle context spins before it parks; 0 parks at once. Spinning costs a core per context and
         * saves the wake-up of a parked thread on every message. A bare number is microseconds ({@code 50} is
         * {@code 50us}); other units are written out ({@code 1ms}).
         */
        // Microseconds are this setting's scale: a bare number read as milliseconds would spin a thousand times as
        // long as meant.
        @DurationUnit(ChronoUnit.MICROS)
        private @Nullable Duration busyPoll;

        /**
         * How long a thread blocked on a call's result spins before it parks; worth it only with cores to spare
         * beyond the contexts' own. A bare number is microseconds, as for busy-poll.
         */
        @DurationUnit(ChronoUnit.MICROS)
        private @Nullable Duration callerSpin;

        /**
         * Whether an idle context learns when work comes: it spins after work only while work often comes back
         * within the busy-poll time, and under a steady load (a paced client) it sleeps until shortly before the
         * next call is due and spins through a short window around it, at most an eighth of the gap. Off: spin for
         * the busy-poll time, then park. A busy-poll time of 0 parks at once either way.
         */
        private @Nullable Boolean adaptive;

        public @Nullable Duration getBusyPoll()
        {
            return busyPoll;
        }

        public void setBusyPoll(final @Nullable Duration busyPoll)
        {
            this.busyPoll = notNegative(busyPoll);
        }

        public @Nullable Duration getCallerSpin()
        {
            return callerSpin;
        }

        public void setCallerSpin(final @Nullable Duration callerSpin)
        {
            this.callerSpin = notNegative(callerSpin);
        }

        public @Nullable Boolean getAdaptive()
        {
            return adaptive;
        }

        public void setAdaptive(final @Nullable Boolean adaptive)
        {
            this.adaptive = adaptive;
        }

        private static @Nullable Duration notNegative(final @Nullable Duration value)
        {
            if (value != null && value.isNegative())
            {
                throw new IllegalArgumentException("must not be negative, was " + value);
            }
            return value;
        }
    }

    /**
     * How connections find out that their peer is gone: a keepalive after the interval without traffic, and the
     * connection dropped after the timeout of silence (its sessions reconnect).
     */
    public static class Keepalive
    {
        /** Time without traffic after which a connection sends a keepalive. */
        private @Nullable Duration interval;

        /** Time of silence from the peer after which its connection is dropped; longer than the interval. */
        private @Nullable Duration timeout;

        public @Nullable Duration getInterval()
        {
            return interval;
        }

        public void setInterval(final @Nullable Duration interval)
        {
            this.interval = interval == null ? null : positive(interval);
        }

        public @Nullable Duration getTimeout()
        {
            return timeout;
        }

        public void setTimeout(final @Nullable Duration timeout)
        {
            this.timeout = timeout == null ? null : positive(timeout);
        }
    }

    /** One server portal. */
    public static class Portal
    {
        /**
         * Address to bind, e.g. {@code tcp://0.0.0.0:7000}, {@code tls://0.0.0.0:7443}, {@code tcp://127.0.0.1:0}
         * or {@code shm://kv}.
         */
        private @Nullable String uri;

        private final PortalSsl ssl = new PortalSsl();

        public PortalSsl getSsl()
        {
            return ssl;
        }

        public @Nullable String getUri()
        {
            return uri;
        }

        public void setUri(final String uri)
        {
            XioUri.parse(String.valueOf(uri)); // a malformed address fails start-up naming the property
            this.uri = uri;
        }
    }

    /** How a portal secures its connections; needs a {@code tls://} URI. */
    public static class PortalSsl
    {
        /**
         * Name of the SSL bundle (spring.ssl.bundle.*) with the portal's key and certificate and, for client
         * certificates, the trust material to check them. Its protocols and ciphers apply (TLSv1.3 when it sets
         * none); when the bundle reloads (reload-on-update), new connections use the new material and open ones
         * keep theirs.
         */
        private @Nullable String bundle;

        /**
         * Whether clients are asked for a certificate: none, want (asked; one without a certificate is still let
         * in, and the session acceptor may decide) or need (mutual TLS: refused in the handshake without a trusted
         * one).
         */
        private ClientAuth clientAuth = ClientAuth.NONE;

        public @Nullable String getBundle()
        {
            return bundle;
        }

        public void setBundle(final @Nullable String bundle)
        {
            this.bundle = bundle;
        }

        public ClientAuth getClientAuth()
        {
            return clientAuth;
        }

        public void setClientAuth(final ClientAuth clientAuth)
        {
            this.clientAuth = clientAuth;
        }
    }

    /** Whether a portal asks clients for a certificate. */
    public enum ClientAuth
    {
        /** Does not ask. */
        NONE,
        /** Asks, and lets a client without one in. */
        WANT,
        /** Requires a trusted client certificate (mutual TLS). */
        NEED
    }

    /** The server side: how sessions spread over the portals, and bounds on each service's calls. */
    public static class Server
    {
        /** Redirect policy of the first portal over all portals: none, round-robin or hash. */
        private Redirect redirect = Redirect.NONE;

        /**
         * Bounds on the calls of exported services, each under {@code xio.server.services.<resource>}, the name
         * the service is exported as.
         */
        private Map<String, Service> services = new LinkedHashMap<>();

        private final Error error = new Error();

        private final Security security = new Security();

        private final Registration registration = new Registration();

        private final Reflection reflection = new Reflection();

        private final Health health = new Health();

        /**
         * Name of the Executor bean that runs the service methods. By default Spring Boot's application task
         * executor ({@code applicationTaskExecutor}, virtual threads with {@code spring.threads.virtual.enabled},
         * otherwise the pool of {@code spring.task.execution.pool.*}), or, when the application replaced it with an
         * Executor of its own, a thread per call.
         */
        private @Nullable String executor;

        public Redirect getRedirect()
        {
            return redirect;
        }

        public void setRedirect(final Redirect redirect)
        {
            this.redirect = redirect;
        }

        public Map<String, Service> getServices()
        {
            return services;
        }

        public void setServices(final Map<String, Service> services)
        {
            this.services = services;
        }

        public Error getError()
        {
            return error;
        }

        public Security getSecurity()
        {
            return security;
        }

        /** Announcing this server's portals in Spring Cloud's service registry. */
        public Registration getRegistration()
        {
            return registration;
        }

        public @Nullable String getExecutor()
        {
            return executor;
        }

        public void setExecutor(final @Nullable String executor)
        {
            this.executor = executor;
        }

        /** Describing the exported services to clients without their classes, and taking their calls in JSON. */
        public Reflection getReflection()
        {
            return reflection;
        }

        /** Answering health checks in the protocol, as Kubernetes probes and load balancers ask them. */
        public Health getHealth()
        {
            return health;
        }
    }

    /**
     * The health resource ({@code xio.health}): whether the server, or one of its services, takes calls (serving
     * while its portals are bound, not draining, ready and, with the actuator, its health up), answered in JSON too
     * (with reflection on) and still while the server drains, for probes such as {@code xio health}.
     */
    public static class Health
    {
        /** Whether the health resource is exported. */
        private boolean enabled = true;

        /**
         * Whether a set-up for the health resource is accepted without authentication when the portals
         * authenticate, so that a probe without credentials can ask; such a session reaches the health resource only,
         * which tells whether the server and its services take calls and nothing else. Off by default: the portals'
         * authentication applies to health checks as to every call.
         */
        private boolean allowUnauthenticated;

        /**
         * Most health sessions open at once without credentials when {@code allow-unauthenticated} is on, all
         * clients together (they have no principal for the engine's bounds per principal to hold); a set-up beyond it
         * is refused unless it authenticates.
         */
        private int maxUnauthenticatedSessions = 16;

        public int getMaxUnauthenticatedSessions()
        {
            return maxUnauthenticatedSessions;
        }

        public void setMaxUnauthenticatedSessions(final int maxUnauthenticatedSessions)
        {
            this.maxUnauthenticatedSessions = maxUnauthenticatedSessions;
        }

        public boolean isEnabled()
        {
            return enabled;
        }

        public void setEnabled(final boolean enabled)
        {
            this.enabled = enabled;
        }

        public boolean isAllowUnauthenticated()
        {
            return allowUnauthenticated;
        }

        public void setAllowUnauthenticated(final boolean allowUnauthenticated)
        {
            this.allowUnauthenticated = allowUnauthenticated;
        }
    }

    /**
     * The reflection resource ({@code xio.reflection}): it lists the exported services and describes their methods
     * with JSON Schema, behind the same authentication as every call, and the services take calls whose arguments
     * and answer are JSON, so that a client without the services' classes (the {@code xio} command line) can call
     * them.
     */
    public static class Reflection
    {
        /** Whether the reflection resource is exported and the services take calls in JSON. */
        private boolean enabled = true;

        public boolean isEnabled()
        {
            return enabled;
        }

        public void setEnabled(final boolean enabled)
        {
            this.enabled = enabled;
        }
    }

    /**
     * HTTP/JSON access to every exported service on the application's own web server (Spring MVC or WebFlux):
     * {@code POST {prefix}/{service}/{method}} with the arguments as JSON, behind the web server's security filter
     * chain and the services' own method security, interceptors, deadlines and exception handlers.
     */
    public static class Http
    {
        /** Whether the services are reachable over HTTP on the application's web server. Off unless set. */
        private boolean enabled;

        /** The path every route starts with, followed by the service and the method: {@code /xio/orders/place}. */
        private String prefix = "/xio";

        /**
         * The request headers that become call metadata, which a service's interceptors read (names in any case).
         * Other headers are not passed on; {@code xio-} names and {@code Idempotency-Key} are xio's own.
         */
        private Set<String> metadataHeaders = new LinkedHashSet<>();

        /** The largest request body taken; a larger one is refused with 413 without being read whole. */
        private DataSize maxRequestSize = DataSize.ofMegabytes(1);

        /** The OpenAPI document of the routes. */
        private final OpenApi openapi = new OpenApi();

        public boolean isEnabled()
        {
            return enabled;
        }

        public void setEnabled(final boolean enabled)
        {
            this.enabled = enabled;
        }

        public String getPrefix()
        {
            return prefix;
        }

        public void setPrefix(final String prefix)
        {
            this.prefix = prefix;
        }

        public Set<String> getMetadataHeaders()
        {
            return metadataHeaders;
        }

        public void setMetadataHeaders(final Set<String> metadataHeaders)
        {
            this.metadataHeaders = metadataHeaders;
        }

        public DataSize getMaxRequestSize()
        {
            return maxRequestSize;
        }

        public void setMaxRequestSize(final DataSize maxRequestSize)
        {
            this.maxRequestSize = maxRequestSize;
        }

        public OpenApi getOpenapi()
        {
            return openapi;
        }

        /** The OpenAPI 3.1 document of the routes, served at {@code /openapi.json} after the prefix. */
        public static class OpenApi
        {
            /**
             * Whether the OpenAPI document of the routes is served at {@code /openapi.json} after the prefix, for
             * {@code GET} (behind the web server's security chain, as the routes are). On whenever the routes are.
             */
            private boolean enabled = true;

            public boolean isEnabled()
            {
                return enabled;
            }

            public void setEnabled(final boolean enabled)
            {
                this.enabled = enabled;
            }
        }
    }

    /**
     * How the portals authenticate session set-ups once Spring Security is configured (an AuthenticationManager,
     * AuthenticationProvider, UserDetailsService or JwtDecoder bean): credentials or the client certificate are
     * checked by the AuthenticationManager, and the session's calls run as the authenticated caller.
     */
    public static class Security
    {
        /**
         * Whether a set-up that presents no credentials and no client certificate is refused; when false it is
         * accepted as anonymous (its calls run as an anonymous authentication with ROLE_ANONYMOUS), while
         * credentials presented must still be valid.
         */
        private boolean requireAuthentication = true;

        public boolean isRequireAuthentication()
        {
            return requireAuthentication;
        }

        public void setRequireAuthentication(final boolean requireAuthentication)
        {
            this.requireAuthentication = requireAuthentication;
        }
    }

    /**
     * What a caller learns of a failure nobody chose to expose: an exception the called interface method does not
     * declare and no {@code @XioExceptionHandler} answered, or xio's own failure to decode or encode. Declared
     * exceptions and handlers' answers always keep their type and message; stack traces never leave the server.
     * By default such a failure goes out with a generic message and an error id that the server's log line (with
     * the stack trace) also carries.
     */
    public static class Error
    {
        /**
         * Whether the caller gets the exception's own message: never (a generic message with the error id) or
         * always, for development.
         */
        private IncludeMessage includeMessage = IncludeMessage.NEVER;

        /**
         * Whether the caller gets the exception's class name, so that a client can rebuild an allowed type such as
         * IllegalArgumentException; when false it gets the type xio.InternalError. For development.
         */
        private boolean includeException;

        public IncludeMessage getIncludeMessage()
        {
            return includeMessage;
        }

        public void setIncludeMessage(final IncludeMessage includeMessage)
        {
            this.includeMessage = includeMessage;
        }

        public boolean isIncludeException()
        {
            return includeException;
        }

        public void setIncludeException(final boolean includeException)
        {
            this.includeException = includeException;
        }
    }

    /** When a failure's own message reaches its caller. */
    public enum IncludeMessage
    {
        /** Never: a generic message with an error id. */
        NEVER,
        /** Always: the exception's message, for development. */
        ALWAYS
    }

    /**
     * Bounds on one exported service's calls (services dispatched to workers): how many run at once, and how
     * many may wait for a worker. A call that finds both full is refused at once with back-pressure, which the
     * caller sees as {@code io.xio.engine.BackPressureException}, rather than wait longer than it is worth.
     */
    public static class Service
    {
        /**
         * Most calls of the service in progress at once (running, or until the future it returned completes): its
         * real parallelism, the size of the pool or the number of cores it works with, say. Default: no bound,
         * every call starts at once on a worker of its own, and an overloaded service's calls wait inside it,
         * where they cannot be told from running ones.
         */
        private @Nullable Integer maxConcurrentCalls;

        /**
         * Most calls waiting for one of the {@code max-concurrent-calls} to finish; 0 refuses a call whenever
         * that many are in progress. Needs {@code max-concurrent-calls}. Default: twice
         * {@code max-concurrent-calls}, so an accepted call waits about two calls' time at most, however slow the
         * service.
         */
        private @Nullable Integer maxQueuedCalls;

        public @Nullable Integer getMaxConcurrentCalls()
        {
            return maxConcurrentCalls;
        }

        public void setMaxConcurrentCalls(final @Nullable Integer maxConcurrentCalls)
        {
            if (maxConcurrentCalls != null && maxConcurrentCalls < 1)
            {
                throw new IllegalArgumentException("must be at least 1, was " + maxConcurrentCalls);
            }
            this.maxConcurrentCalls = maxConcurrentCalls;
        }

        public @Nullable Integer getMaxQueuedCalls()
        {
            return maxQueuedCalls;
        }

        public void setMaxQueuedCalls(final @Nullable Integer maxQueuedCalls)
        {
            if (maxQueuedCalls != null && maxQueuedCalls < 0)
            {
                throw new IllegalArgumentException("must not be negative, was " + maxQueuedCalls);
            }
            this.maxQueuedCalls = maxQueuedCalls;
        }
    }

    /** Defaults for every client. */
    public static class Client
    {
        /** Deadline of a call when neither the client nor the method sets one. */
        private Duration timeout = SessionOptions.DEFAULT.timeout();

        /**
         * Exception types every client rebuilds from a server's failure, besides those the called method declares
         * and the JDK's common unchecked exceptions; any other type arrives as {@code XioRemoteException}.
         */
        private List<Class<? extends Exception>> allowedExceptions = new ArrayList<>();

        private final Retry retry = new Retry();

        private final ClientCredentials credentials = new ClientCredentials();

        private final ClientSsl ssl = new ClientSsl();

        private final Discovery discovery = new Discovery();

        private final Dns dns = new Dns();

        public Duration getTimeout()
        {
            return timeout;
        }

        public void setTimeout(final Duration timeout)
        {
            this.timeout = positive(timeout);
        }

        public List<Class<? extends Exception>> getAllowedExceptions()
        {
            return allowedExceptions;
        }

        public void setAllowedExceptions(final List<Class<? extends Exception>> allowedExceptions)
        {
            this.allowedExceptions = exceptions(allowedExceptions);
        }

        public Retry getRetry()
        {
            return retry;
        }

        /** How clients that name a service ({@code xio.clients.<name>.service-id}) follow its instances. */
        public Discovery getDiscovery()
        {
            return discovery;
        }

        /** How clients whose address is a DNS name ({@code dns:///host:port/resource}) follow its addresses. */
        public Dns getDns()
        {
            return dns;
        }

        /** The credentials of every client whose own section sets none. */
        public ClientCredentials getCredentials()
        {
            return credentials;
        }

        /** The TLS settings of every tls:// client whose own section sets no bundle. */
        public ClientSsl getSsl()
        {
            return ssl;
        }
    }

    /**
     * What a client presents in its session set-ups to prove who it is: a bearer token, or a user name and
     * password, never both. A {@code XioCredentialsProvider} bean, asked at every set-up, takes precedence (for a
     * token that is refreshed). The values never appear in logs, and the actuator masks them even where it shows
     * other values.
     */
    public static class ClientCredentials
    {
        /** Bearer token sent at set-up, such as a JWT. */
        private @Nullable String token;

        /** User name sent at set-up, with the password. */
        private @Nullable String username;

        /** Password sent at set-up, with the user name. */
        private @Nullable String password;

        public @Nullable String getToken()
        {
            return token;
        }

        public void setToken(final @Nullable String token)
        {
            this.token = token;
        }

        public @Nullable String getUsername()
        {
            return username;
        }

        public void setUsername(final @Nullable String username)
        {
            this.username = username;
        }

        public @Nullable String getPassword()
        {
            return password;
        }

        public void setPassword(final @Nullable String password)
        {
            this.password = password;
        }

        /** Whether any of the three is set. */
        public boolean hasAny()
        {
            return token != null || username != null || password != null;
        }
    }

    /** How a client secures its connections; needs a {@code tls://} URI. */
    public static class ClientSsl
    {
        /**
         * Name of the SSL bundle (spring.ssl.bundle.*) with the trust material for the server's certificate and,
         * for mutual TLS, the client's own key and certificate. Its protocols and ciphers apply (TLSv1.3 when it
         * sets none); when the bundle reloads (reload-on-update), new connections use the new material.
         */
        private @Nullable String bundle;

        /**
         * Whether the client checks that the server's certificate names the host it dialled. A named client's
         * setting applies also when it uses xio.client.ssl.bundle.
         */
        private boolean verifyHostname = true;

        private boolean verifyHostnameSet;

        public @Nullable String getBundle()
        {
            return bundle;
        }

        public void setBundle(final @Nullable String bundle)
        {
            this.bundle = bundle;
        }

        public boolean isVerifyHostname()
        {
            return verifyHostname;
        }

        public void setVerifyHostname(final boolean verifyHostname)
        {
            this.verifyHostname = verifyHostname;
            this.verifyHostnameSet = true;
        }

        /** Whether verify-hostname was configured here (not a property): a named client's overrides the default's. */
        public boolean hasVerifyHostname()
        {
            return verifyHostnameSet;
        }
    }

    /**
     * How every client tries an idempotent call ({@code @XioMethod(idempotent = true)}) again when its connection,
     * session or server went away, or its answer was lost with its connection: on a fresh session, within the
     * call's deadline, after a jittered exponential backoff. Calls that are not idempotent are never retried.
     */
    public static class Retry
    {
        /** Most attempts of one idempotent or exactly-once call, the first included; 1 never retries. */
        private int maxAttempts = 3;

        /**
         * The ceiling of the wait before the first retry; the ceiling doubles for each further one, up to
         * max-backoff, and each wait is drawn at random from the upper half of its ceiling, so that clients that
         * lost the same server do not come back to it in lock-step.
         */
        private Duration initialBackoff = Duration.ofMillis(50);

        /** The most one wait between attempts may be. */
        private Duration maxBackoff = Duration.ofSeconds(1);

        public int getMaxAttempts()
        {
            return maxAttempts;
        }

        public void setMaxAttempts(final int maxAttempts)
        {
            if (maxAttempts < 1)
            {
                throw new IllegalArgumentException("must be at least 1, was " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
        }

        public Duration getInitialBackoff()
        {
            return initialBackoff;
        }

        public void setInitialBackoff(final Duration initialBackoff)
        {
            this.initialBackoff = positive(initialBackoff);
        }

        public Duration getMaxBackoff()
        {
            return maxBackoff;
        }

        public void setMaxBackoff(final Duration maxBackoff)
        {
            this.maxBackoff = positive(maxBackoff);
        }
    }

    /** One named client's retry settings; each one not set is that of {@code xio.client.retry}. */
    public static class NamedRetry
    {
        /**
         * Most attempts of one idempotent or exactly-once call, the first included; default:
         * xio.client.retry.max-attempts.
         */
        private @Nullable Integer maxAttempts;

        /** The ceiling of the wait before the first retry; default: xio.client.retry.initial-backoff. */
        private @Nullable Duration initialBackoff;

        /** The most one wait between attempts may be; default: xio.client.retry.max-backoff. */
        private @Nullable Duration maxBackoff;

        public @Nullable Integer getMaxAttempts()
        {
            return maxAttempts;
        }

        public void setMaxAttempts(final @Nullable Integer maxAttempts)
        {
            if (maxAttempts != null && maxAttempts < 1)
            {
                throw new IllegalArgumentException("must be at least 1, was " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
        }

        public @Nullable Duration getInitialBackoff()
        {
            return initialBackoff;
        }

        public void setInitialBackoff(final @Nullable Duration initialBackoff)
        {
            this.initialBackoff = initialBackoff == null ? null : positive(initialBackoff);
        }

        public @Nullable Duration getMaxBackoff()
        {
            return maxBackoff;
        }

        public void setMaxBackoff(final @Nullable Duration maxBackoff)
        {
            this.maxBackoff = maxBackoff == null ? null : positive(maxBackoff);
        }
    }

    /** One named client. */
    public static class NamedClient
    {
        /**
         * The service's address, e.g. {@code tcp://localhost:7000/kv}, or a DNS name whose every address the client
         * calls and follows, e.g. {@code dns:///kv.prod.svc.cluster.local:7000/kv} (a Kubernetes headless
         * service; {@code dns+tls:///...} for tls). Either this or {@code service-id}, not both.
         */
        private @Nullable String uri;

        /**
         * The service's id in Spring Cloud's discovery ({@code DiscoveryClient}): the client calls every instance
         * that registered xio portals under it (when none did, as on Kubernetes, every instance at its port named
         * xio or xio-tls; see {@code xio.client.discovery.instance-port-fallback}), and follows instances as they
         * come and go. Either this or {@code uri}, not both.
         */
        private @Nullable String serviceId;

        /** The resource a service client's sessions open at each instance; default: the client's name. */
        private @Nullable String resource;

        /** How a service client spreads calls over the instances. */
        private LoadBalancing loadBalancing = LoadBalancing.ROUND_ROBIN;

        /**
         * The transports a service client tries at each instance, most preferred first, by scheme (local, shm, rdma,
         * tls, tcp); same-host ones only for instances on this host. Default: local, shm, rdma, tls, tcp.
         */
        private @Nullable List<String> transports;

        /** Deadline of a call; default: {@code xio.client.timeout}. */
        private @Nullable Duration timeout;

        /** Parallel connections of the session; default: one per context. */
        private @Nullable Integer connections;

        /**
         * Exception types this client rebuilds from a server's failure, besides those of
         * {@code xio.client.allowed-exceptions}.
         */
        private List<Class<? extends Exception>> allowedExceptions = new ArrayList<>();

        private final NamedRetry retry = new NamedRetry();

        private final ClientCredentials credentials = new ClientCredentials();

        private final ClientSsl ssl = new ClientSsl();

        public @Nullable String getUri()
        {
            return uri;
        }

        public void setUri(final String uri)
        {
            if (DnsTarget.isDns(uri))
            {
                if (DnsTarget.parse(uri).resource().isEmpty())
                {
                    throw new IllegalArgumentException("'" + uri + "' names no resource, e.g. " +
                        "dns:///kv.default.svc.cluster.local:7000/kv");
                }
            }
            else if (XioUri.parse(String.valueOf(uri)).resource().isEmpty())
            {
                throw new IllegalArgumentException("'" + uri + "' names no resource, e.g. tcp://localhost:7000/kv");
            }
            this.uri = uri;
        }

        public @Nullable String getServiceId()
        {
            return serviceId;
        }

        public void setServiceId(final String serviceId)
        {
            if (serviceId == null || serviceId.isBlank())
            {
                throw new IllegalArgumentException("must not be blank");
            }
            this.serviceId = serviceId;
        }

        public @Nullable String getResource()
        {
            return resource;
        }

        public void setResource(final String resource)
        {
            if (resource == null || resource.isBlank() || resource.contains("/"))
            {
                throw new IllegalArgumentException("must be a resource name without '/', was '" + resource + "'");
            }
            this.resource = resource;
        }

        public LoadBalancing getLoadBalancing()
        {
            return loadBalancing;
        }

        public void setLoadBalancing(final LoadBalancing loadBalancing)
        {
            this.loadBalancing = java.util.Objects.requireNonNull(loadBalancing, "loadBalancing");
        }

        public @Nullable List<String> getTransports()
        {
            return transports;
        }

        public void setTransports(final List<String> transports)
        {
            if (transports.isEmpty() || transports.stream().distinct().count() != transports.size() ||
                !TransportPreference.DEFAULT.containsAll(transports))
            {
                throw new IllegalArgumentException("must name each of " + TransportPreference.DEFAULT +
                    " at most once, was " + transports);
            }
            this.transports = List.copyOf(transports);
        }

        public @Nullable Duration getTimeout()
        {
            return timeout;
        }

        public void setTimeout(final Duration timeout)
        {
            this.timeout = positive(timeout);
        }

        public @Nullable Integer getConnections()
        {
            return connections;
        }

        public void setConnections(final @Nullable Integer connections)
        {
            if (connections != null && connections < 1)
            {
                throw new IllegalArgumentException("must be at least 1, was " + connections);
            }
            this.connections = connections;
        }

        public List<Class<? extends Exception>> getAllowedExceptions()
        {
            return allowedExceptions;
        }

        public void setAllowedExceptions(final List<Class<? extends Exception>> allowedExceptions)
        {
            this.allowedExceptions = exceptions(allowedExceptions);
        }

        public NamedRetry getRetry()
        {
            return retry;
        }

        /** This client's credentials; none set: those of {@code xio.client.credentials}. */
        public ClientCredentials getCredentials()
        {
            return credentials;
        }

        /** This client's TLS settings; no bundle set: those of {@code xio.client.ssl}. */
        public ClientSsl getSsl()
        {
            return ssl;
        }
    }

    /**
     * Bounds on messages and calls: what keeps memory finite and turns hostile input away. Each one not set is the
     * engine's ({@code io.xio.engine.Limits.DEFAULT}).
     */
    public static class Limits
    {
        /** Largest message (arguments or result, data included). */
        private @Nullable DataSize maxMessageSize;

        /** Largest encoded arguments or result (what travels outside byte[] and ByteBuffer data). */
        private @Nullable DataSize maxHeaderSize;

        /** Most calls a session may have in flight. */
        private @Nullable Integer maxInFlight;

        /**
         * Unsent bytes above which a connection sends no new calls and starts no new calls of its peer until the
         * peer has read enough.
         */
        private @Nullable DataSize maxQueuedSize;

        /**
         * Unsent bytes at which a connection whose peer stopped reading is closed (the largest message waiting does
         * not count): what such a peer may cost. Default: 64MB, or max-queued-size if that is larger.
         */
        private @Nullable DataSize maxUnsentSize;

        /** How long a peer may read nothing while there are bytes for it before it is disconnected. */
        private @Nullable Duration writeStallTimeout;

        /**
         * How long an accepted connection may carry no session (before its first set-up, or after its last
         * session ended) before it is closed.
         */
        private @Nullable Duration handshakeTimeout;

        /** How long a frame may take to arrive before its arrival rate is checked against the minimum. */
        private @Nullable Duration incompleteFrameTimeout;

        /** Bytes per second a frame slower than the incomplete-frame timeout must have arrived at, on average. */
        private @Nullable DataSize minReceiveRate;

        /** Most sessions the application accepts, all portals together. */
        private @Nullable Integer maxSessions;

        /** Most sessions one accepted connection may carry. */
        private @Nullable Integer maxSessionsPerConnection;

        /** Most sessions the application accepts from one peer host. */
        private @Nullable Integer maxSessionsPerPeer;

        /** Most sessions the application accepts for one authenticated principal (by name), all hosts together. */
        private @Nullable Integer maxSessionsPerPrincipal;

        /** Most calls executing at once for one authenticated principal, all its sessions together. */
        private @Nullable Integer maxInFlightPerPrincipal;

        /**
         * Failed authentications one peer host may have at one portal within the authentication failure interval;
         * further set-ups from it are refused there without asking the acceptor until the interval has passed. All
         * clients behind one NAT or proxy share their host's tries (an IPv6 host counts as its /64).
         */
        private @Nullable Integer maxAuthenticationFailuresPerHost;

        /** How long a host's failed authentications count, from its first. */
        private @Nullable Duration authenticationFailureInterval;

        /** Most connections a portal holds open at once. */
        private @Nullable Integer maxConnectionsPerPortal;

        /** Most connections the application accepts from one peer host. */
        private @Nullable Integer maxConnectionsPerPeer;

        /**
         * Largest call context (deadline and metadata) of one call or result, sent or received; a peer that sends
         * more is disconnected. At most 65535B.
         */
        private @Nullable DataSize maxMetadataSize;

        /**
         * Bytes of results too large to copy for a resend (over 16KB) that one session keeps until its caller
         * acknowledged them, so that a call retransmitted after a connection loss gets its result without running
         * again. A result beyond it is not kept (such a retransmit fails with RESPONSE_LOST). 0 keeps none.
         */
        private @Nullable DataSize maxRetainedSizePerSession;

        /** The same as max-retained-size-per-session, for all sessions of the application together. */
        private @Nullable DataSize maxRetainedSize;

        /** Most data segments (byte[] and ByteBuffer arguments or results) in one message. At most 65535. */
        private @Nullable Integer maxSegments;

        /**
         * How many recent call ids per session the server remembers, so that a call retransmitted after a
         * connection loss runs once; a power of two, at least max-in-flight.
         */
        private @Nullable Integer dedupWindow;

        /**
         * Largest result copied and kept for a resend to a retransmitted call; larger ones are kept by reference,
         * within max-retained-size-per-session. 0 copies none.
         */
        private @Nullable DataSize retainedResponseSize;

        private final Streams streams = new Streams();

        public @Nullable DataSize getMaxHeaderSize()
        {
            return maxHeaderSize;
        }

        public void setMaxHeaderSize(final @Nullable DataSize maxHeaderSize)
        {
            if (maxHeaderSize != null && (maxHeaderSize.toBytes() < 256 || maxHeaderSize.toBytes() > (64 << 20)))
            {
                throw new IllegalArgumentException("must be from 256B to 64MB, was " + maxHeaderSize);
            }
            this.maxHeaderSize = maxHeaderSize;
        }

        public @Nullable DataSize getMaxMessageSize()
        {
            return maxMessageSize;
        }

        public void setMaxMessageSize(final @Nullable DataSize maxMessageSize)
        {
            if (maxMessageSize != null && (maxMessageSize.toBytes() < 1024 ||
                maxMessageSize.toBytes() > Integer.MAX_VALUE))
            {
                throw new IllegalArgumentException("must be from 1KB to 2GB, was " + maxMessageSize);
            }
            this.maxMessageSize = maxMessageSize;
        }

        public @Nullable Integer getMaxInFlight()
        {
            return maxInFlight;
        }

        public void setMaxInFlight(final @Nullable Integer maxInFlight)
        {
            if (maxInFlight != null && maxInFlight < 1)
            {
                throw new IllegalArgumentException("must be at least 1, was " + maxInFlight);
            }
            this.maxInFlight = maxInFlight;
        }

        public @Nullable DataSize getMaxQueuedSize()
        {
            return maxQueuedSize;
        }

        public void setMaxQueuedSize(final @Nullable DataSize maxQueuedSize)
        {
            this.maxQueuedSize = size(maxQueuedSize, Integer.MAX_VALUE);
        }

        public @Nullable DataSize getMaxUnsentSize()
        {
            return maxUnsentSize;
        }

        public void setMaxUnsentSize(final @Nullable DataSize maxUnsentSize)
        {
            this.maxUnsentSize = size(maxUnsentSize, Long.MAX_VALUE);
        }

        public @Nullable Duration getWriteStallTimeout()
        {
            return writeStallTimeout;
        }

        public void setWriteStallTimeout(final @Nullable Duration writeStallTimeout)
        {
            this.writeStallTimeout = writeStallTimeout == null ? null : positive(writeStallTimeout);
        }

        public @Nullable Duration getHandshakeTimeout()
        {
            return handshakeTimeout;
        }

        public void setHandshakeTimeout(final @Nullable Duration handshakeTimeout)
        {
            this.handshakeTimeout = handshakeTimeout == null ? null : positive(handshakeTimeout);
        }

        public @Nullable Duration getIncompleteFrameTimeout()
        {
            return incompleteFrameTimeout;
        }

        public void setIncompleteFrameTimeout(final @Nullable Duration incompleteFrameTimeout)
        {
            this.incompleteFrameTimeout = incompleteFrameTimeout == null ? null : positive(incompleteFrameTimeout);
        }

        public @Nullable DataSize getMinReceiveRate()
        {
            return minReceiveRate;
        }

        public void setMinReceiveRate(final @Nullable DataSize minReceiveRate)
        {
            this.minReceiveRate = size(minReceiveRate, Integer.MAX_VALUE);
        }

        public @Nullable Integer getMaxSessions()
        {
            return maxSessions;
        }

        public void setMaxSessions(final @Nullable Integer maxSessions)
        {
            this.maxSessions = atLeastOne(maxSessions);
        }

        public @Nullable Integer getMaxSessionsPerConnection()
        {
            return maxSessionsPerConnection;
        }

        public void setMaxSessionsPerConnection(final @Nullable Integer maxSessionsPerConnection)
        {
            this.maxSessionsPerConnection = atLeastOne(maxSessionsPerConnection);
        }

        public @Nullable Integer getMaxSessionsPerPeer()
        {
            return maxSessionsPerPeer;
        }

        public void setMaxSessionsPerPeer(final @Nullable Integer maxSessionsPerPeer)
        {
            this.maxSessionsPerPeer = atLeastOne(maxSessionsPerPeer);
        }

        public @Nullable Integer getMaxSessionsPerPrincipal()
        {
            return maxSessionsPerPrincipal;
        }

        public void setMaxSessionsPerPrincipal(final @Nullable Integer maxSessionsPerPrincipal)
        {
            this.maxSessionsPerPrincipal = atLeastOne(maxSessionsPerPrincipal);
        }

        public @Nullable Integer getMaxInFlightPerPrincipal()
        {
            return maxInFlightPerPrincipal;
        }

        public void setMaxInFlightPerPrincipal(final @Nullable Integer maxInFlightPerPrincipal)
        {
            this.maxInFlightPerPrincipal = atLeastOne(maxInFlightPerPrincipal);
        }

        public @Nullable Integer getMaxAuthenticationFailuresPerHost()
        {
            return maxAuthenticationFailuresPerHost;
        }

        public void setMaxAuthenticationFailuresPerHost(final @Nullable Integer maxAuthenticationFailuresPerHost)
        {
            this.maxAuthenticationFailuresPerHost = atLeastOne(maxAuthenticationFailuresPerHost);
        }

        public @Nullable Duration getAuthenticationFailureInterval()
        {
            return authenticationFailureInterval;
        }

        public void setAuthenticationFailureInterval(final @Nullable Duration authenticationFailureInterval)
        {
            this.authenticationFailureInterval = authenticationFailureInterval == null ? null :
                positive(authenticationFailureInterval);
        }

        public @Nullable Integer getMaxConnectionsPerPortal()
        {
            return maxConnectionsPerPortal;
        }

        public void setMaxConnectionsPerPortal(final @Nullable Integer maxConnectionsPerPortal)
        {
            this.maxConnectionsPerPortal = atLeastOne(maxConnectionsPerPortal);
        }

        public @Nullable Integer getMaxConnectionsPerPeer()
        {
            return maxConnectionsPerPeer;
        }

        public void setMaxConnectionsPerPeer(final @Nullable Integer maxConnectionsPerPeer)
        {
            this.maxConnectionsPerPeer = atLeastOne(maxConnectionsPerPeer);
        }

        public @Nullable DataSize getMaxMetadataSize()
        {
            return maxMetadataSize;
        }

        public void setMaxMetadataSize(final @Nullable DataSize maxMetadataSize)
        {
            this.maxMetadataSize = size(maxMetadataSize, 0xFFFF);
        }

        public @Nullable DataSize getMaxRetainedSizePerSession()
        {
            return maxRetainedSizePerSession;
        }

        public void setMaxRetainedSizePerSession(final @Nullable DataSize maxRetainedSizePerSession)
        {
            this.maxRetainedSizePerSession = notNegative(maxRetainedSizePerSession);
        }

        public @Nullable DataSize getMaxRetainedSize()
        {
            return maxRetainedSize;
        }

        public void setMaxRetainedSize(final @Nullable DataSize maxRetainedSize)
        {
            this.maxRetainedSize = notNegative(maxRetainedSize);
        }

        public @Nullable Integer getMaxSegments()
        {
            return maxSegments;
        }

        public void setMaxSegments(final @Nullable Integer maxSegments)
        {
            if (maxSegments != null && (maxSegments < 1 || maxSegments > 0xFFFF))
            {
                throw new IllegalArgumentException("must be from 1 to 65535, was " + maxSegments);
            }
            this.maxSegments = maxSegments;
        }

        public @Nullable Integer getDedupWindow()
        {
            return dedupWindow;
        }

        public void setDedupWindow(final @Nullable Integer dedupWindow)
        {
            if (dedupWindow != null && (dedupWindow < 1 || Integer.bitCount(dedupWindow) != 1))
            {
                throw new IllegalArgumentException("must be a power of two, was " + dedupWindow);
            }
            this.dedupWindow = dedupWindow;
        }

        public @Nullable DataSize getRetainedResponseSize()
        {
            return retainedResponseSize;
        }

        public void setRetainedResponseSize(final @Nullable DataSize retainedResponseSize)
        {
            if (retainedResponseSize != null && (retainedResponseSize.isNegative() ||
                retainedResponseSize.toBytes() > Integer.MAX_VALUE))
            {
                throw new IllegalArgumentException("must be from 0B to 2GB, was " + retainedResponseSize);
            }
            this.retainedResponseSize = retainedResponseSize;
        }

        public Streams getStreams()
        {
            return streams;
        }

        private static @Nullable DataSize notNegative(final @Nullable DataSize value)
        {
            if (value != null && value.isNegative())
            {
                throw new IllegalArgumentException("must not be negative, was " + value);
            }
            return value;
        }

        private static @Nullable Integer atLeastOne(final @Nullable Integer value)
        {
            if (value != null && value < 1)
            {
                throw new IllegalArgumentException("must be at least 1, was " + value);
            }
            return value;
        }

        private static @Nullable DataSize size(final @Nullable DataSize value, final long max)
        {
            if (value != null && (value.toBytes() < 1 || value.toBytes() > max))
            {
                throw new IllegalArgumentException("must be from 1B to " + max + "B, was " + value);
            }
            return value;
        }

        /**
         * Bounds on streams: how many may be open, and what each one's unread messages may hold. Each stream sets its
         * window-size aside from max-window-size-per-session and max-window-size while it is open, so that many
         * streams cannot add up to more than those; a stream over any of these limits is refused. Each one not set is
         * the engine's ({@code io.xio.engine.StreamLimits.DEFAULT}).
         */
        public static class Streams
        {
            /** Most streams open at once in the application, all sessions together. */
            private @Nullable Integer max;

            /** Most streams open at once on one session, those this side opened and those the peer opened together. */
            private @Nullable Integer maxPerSession;

            /** Most streams the peer may have open on one connection, counted on the connection it opened them on. */
            private @Nullable Integer maxPerConnection;

            /** Most streams the peers on one host may have open at once, all their sessions together. */
            private @Nullable Integer maxPerPeer;

            /**
             * Messages one stream's receiving direction holds for the application at most, and the most messages a
             * sender keeps until the receiver acknowledged them. At most 65536.
             */
            private @Nullable Integer windowMessages;

            /**
             * Bytes one stream's receiving direction holds for the application at most (but for one message, which
             * may start while any room is left, so that a message larger than the window still goes, one at a time).
             * At most max-window-size-per-session.
             */
            private @Nullable DataSize windowSize;

            /**
             * Bytes of receive windows the streams of one session may have set aside together: the default has room
             * for the default windows of 256 streams. At most max-window-size.
             */
            private @Nullable DataSize maxWindowSizePerSession;

            /** The same as max-window-size-per-session, for all sessions of the application together. */
            private @Nullable DataSize maxWindowSize;

            public @Nullable Integer getMax()
            {
                return max;
            }

            public void setMax(final @Nullable Integer max)
            {
                this.max = atLeastOne(max);
            }

            public @Nullable Integer getMaxPerSession()
            {
                return maxPerSession;
            }

            public void setMaxPerSession(final @Nullable Integer maxPerSession)
            {
                this.maxPerSession = atLeastOne(maxPerSession);
            }

            public @Nullable Integer getMaxPerConnection()
            {
                return maxPerConnection;
            }

            public void setMaxPerConnection(final @Nullable Integer maxPerConnection)
            {
                this.maxPerConnection = atLeastOne(maxPerConnection);
            }

            public @Nullable Integer getMaxPerPeer()
            {
                return maxPerPeer;
            }

            public void setMaxPerPeer(final @Nullable Integer maxPerPeer)
            {
                this.maxPerPeer = atLeastOne(maxPerPeer);
            }

            public @Nullable Integer getWindowMessages()
            {
                return windowMessages;
            }

            public void setWindowMessages(final @Nullable Integer windowMessages)
            {
                if (windowMessages != null && (windowMessages < 1 || windowMessages > StreamLimits.MAX_WINDOW_MESSAGES))
                {
                    throw new IllegalArgumentException("must be from 1 to " + StreamLimits.MAX_WINDOW_MESSAGES +
                        ", was " + windowMessages);
                }
                this.windowMessages = windowMessages;
            }

            public @Nullable DataSize getWindowSize()
            {
                return windowSize;
            }

            public void setWindowSize(final @Nullable DataSize windowSize)
            {
                this.windowSize = size(windowSize, Integer.MAX_VALUE);
            }

            public @Nullable DataSize getMaxWindowSizePerSession()
            {
                return maxWindowSizePerSession;
            }

            public void setMaxWindowSizePerSession(final @Nullable DataSize maxWindowSizePerSession)
            {
                this.maxWindowSizePerSession = size(maxWindowSizePerSession, Long.MAX_VALUE);
            }

            public @Nullable DataSize getMaxWindowSize()
            {
                return maxWindowSize;
            }

            public void setMaxWindowSize(final @Nullable DataSize maxWindowSize)
            {
                this.maxWindowSize = size(maxWindowSize, Long.MAX_VALUE);
            }
        }
    }

    /** How clients that name a service follow its instances. */
    public static class Discovery
    {
        /**
         * How often the instances are read again from the {@code DiscoveryClient}, besides on Spring Cloud's
         * heartbeat events (which discovery clients with watches, such as ZooKeeper's, publish on changes).
         */
        private Duration refreshInterval = Duration.ofSeconds(1);

        /**
         * Whether an instance of a service none of whose instances announces xio portals, and that has no port
         * named {@code xio} or {@code xio-tls} in its metadata, is called at its own port (tls when it is secure).
         * Off by default: an instance's own port is usually its web port (a server that registered through xio
         * whose metadata the registry lost, say), which xio must not dial.
         */
        private boolean instancePortFallback;

        public Duration getRefreshInterval()
        {
            return refreshInterval;
        }

        public void setRefreshInterval(final Duration refreshInterval)
        {
            this.refreshInterval = positive(refreshInterval);
        }

        public boolean isInstancePortFallback()
        {
            return instancePortFallback;
        }

        public void setInstancePortFallback(final boolean instancePortFallback)
        {
            this.instancePortFallback = instancePortFallback;
        }
    }

    /**
     * How clients whose address is a DNS name follow its addresses: the application's one resolver, shared by all of
     * them (one thread, one rate limit, one lookup per name), looks names up with the JVM's resolver, which caches
     * answers for {@code networkaddress.cache.ttl} seconds (30 when unset; set it to at most the minimum refresh
     * interval, e.g. {@code -Dsun.net.inetaddr.ttl=5}, or an early lookup after a lost connection sees the stale
     * answer).
     */
    public static class Dns
    {
        /** How often a name is looked up again. */
        private Duration refreshInterval = Duration.ofSeconds(30);

        /**
         * The least time between two lookups of a name when a client asks for one early (an address lost or
         * unreachable), however many clients ask; positive.
         */
        private Duration minRefreshInterval = Duration.ofSeconds(5);

        /**
         * The most addresses a name may have, each an endpoint with a session of its own; an answer with more is
         * refused and the last set of addresses stands.
         */
        private int maxAddresses = 256;

        /**
         * Which addresses of a name become endpoints: {@code ipv4} (those of IPv6 only when the name has no IPv4
         * address), {@code ipv6} (the reverse) or {@code both} (a host with both is two endpoints). Unset, one
         * family as the JVM prefers: IPv6 when {@code java.net.preferIPv6Addresses} is true, else IPv4.
         */
        private DnsEndpointResolver.@Nullable AddressFamily addressFamily;

        public Duration getRefreshInterval()
        {
            return refreshInterval;
        }

        public void setRefreshInterval(final Duration refreshInterval)
        {
            this.refreshInterval = positive(refreshInterval);
        }

        public Duration getMinRefreshInterval()
        {
            return minRefreshInterval;
        }

        public void setMinRefreshInterval(final Duration minRefreshInterval)
        {
            this.minRefreshInterval = positive(minRefreshInterval);
        }

        public DnsEndpointResolver.@Nullable AddressFamily getAddressFamily()
        {
            return addressFamily;
        }

        public void setAddressFamily(final DnsEndpointResolver.@Nullable AddressFamily addressFamily)
        {
            this.addressFamily = addressFamily;
        }

        public int getMaxAddresses()
        {
            return maxAddresses;
        }

        public void setMaxAddresses(final int maxAddresses)
        {
            if (maxAddresses < 1)
            {
                throw new IllegalArgumentException("must be at least 1, was " + maxAddresses);
            }
            this.maxAddresses = maxAddresses;
        }
    }

    /** Announcing this server in Spring Cloud's service registry. */
    public static class Registration
    {
        /**
         * Whether the bound portals and this host's identity go into the metadata of Spring Cloud's registration
         * ({@code xio.portals}, {@code xio.host}), where clients with a {@code service-id} find them; an application
         * without a web server is registered by xio itself, once its portals are bound.
         */
        private boolean enabled = true;

        public boolean isEnabled()
        {
            return enabled;
        }

        public void setEnabled(final boolean enabled)
        {
            this.enabled = enabled;
        }
    }

    /**
     * Graceful shutdown, in Spring Boot's graceful-shutdown lifecycle phase (alongside the web server's): the
     * application is marked refusing traffic, the server is withdrawn from service discovery, every session is sent
     * GOAWAY and new ones are refused, the calls in flight finish, then the portals close.
     */
    public static class Shutdown
    {
        /**
         * How long calls in flight may take to finish once the application stops (or the server is drained through
         * the actuator endpoint). Bounded by spring.lifecycle.timeout-per-shutdown-phase less a tenth of it (at
         * most a second, for closing the portals): the shutdown never outlasts its lifecycle phase.
         */
        private Duration gracePeriod = Duration.ofSeconds(10);

        public Duration getGracePeriod()
        {
            return gracePeriod;
        }

        public void setGracePeriod(final Duration gracePeriod)
        {
            if (gracePeriod == null || gracePeriod.isNegative())
            {
                throw new IllegalArgumentException("must not be negative, was " + gracePeriod);
            }
            this.gracePeriod = gracePeriod;
        }
    }

    /** Fails at binding on a type that is no exception: generics do not check what a class name names. */
    private static List<Class<? extends Exception>> exceptions(final List<Class<? extends Exception>> types)
    {
        for (final Class<?> type : types)
        {
            if (!Exception.class.isAssignableFrom(type))
            {
                throw new IllegalArgumentException(type.getName() + " is not an exception");
            }
        }
        return types;
    }

    private static Duration positive(final @Nullable Duration value)
    {
        if (value == null || value.isNegative() || value.isZero())
        {
            throw new IllegalArgumentException("must be positive, was " + value);
        }
        return value;
    }

    /** How a service client spreads calls over a service's instances. */
    public enum LoadBalancing
    {
        /** Each call to the next instance in turn. */
        ROUND_ROBIN,
        /** The instance with the fewest of this client's calls in flight. */
        LEAST_IN_FLIGHT,
        /** Rendezvous hashing of the call's key: equal keys on one instance while it is there. */
        RENDEZVOUS
    }

    /** Redirect policies. */
    public enum Redirect
    {
        NONE, ROUND_ROBIN, HASH
    }

    /**
     * The execution ledger of exactly-once methods ({@code @XioMethod(exactlyOnce = true)}), kept in the
     * application's database (needs io.xio:xio-ledger and spring-boot-starter-jdbc).
     */
    public static class Ledger
    {
        /** The ledger's table, optionally after its schema (billing.xio_execution_ledger). */
        private String tableName = "xio_execution_ledger";

        /**
         * How long a call's idempotency key and answer are kept: an attempt of the call that comes later runs it
         * again. Keep it far beyond the longest a client retries a call (its deadline).
         */
        private Duration timeToLive = Duration.ofHours(24);

        /**
         * The longest a call waits for another attempt of its idempotency key that still runs (a duplicate after
         * a partition), whatever time it has left; past that it is refused with back-pressure, and tried again.
         */
        private Duration maxClaimWait = Duration.ofSeconds(30);

        /**
         * Whether a call of an exactly-once method that carries no idempotency key runs all the same (in a
         * transaction, without the ledger: at least once, as any call) instead of being refused as an invalid
         * argument.
         */
        private boolean runWithoutKey;

        /**
         * When the ledger's table is created at start-up (if absent): embedded for an embedded database only
         * (H2 in memory, for tests and demos), always, or never (created by the application's migrations: the
         * Flyway and Liquibase scripts that xio-ledger ships).
         */
        private SchemaInitialization initializeSchema = SchemaInitialization.EMBEDDED;

        private final Cleanup cleanup = new Cleanup();

        public String getTableName()
        {
            return tableName;
        }

        public void setTableName(final String tableName)
        {
            this.tableName = tableName;
        }

        public Duration getTimeToLive()
        {
            return timeToLive;
        }

        public void setTimeToLive(final Duration timeToLive)
        {
            this.timeToLive = positive(timeToLive);
        }

        public Duration getMaxClaimWait()
        {
            return maxClaimWait;
        }

        public void setMaxClaimWait(final Duration maxClaimWait)
        {
            this.maxClaimWait = positive(maxClaimWait);
        }

        public boolean isRunWithoutKey()
        {
            return runWithoutKey;
        }

        public void setRunWithoutKey(final boolean runWithoutKey)
        {
            this.runWithoutKey = runWithoutKey;
        }

        public SchemaInitialization getInitializeSchema()
        {
            return initializeSchema;
        }

        public void setInitializeSchema(final SchemaInitialization initializeSchema)
        {
            this.initializeSchema = initializeSchema;
        }

        public Cleanup getCleanup()
        {
            return cleanup;
        }

        private static Duration positive(final Duration value)
        {
            if (value == null || value.isNegative() || value.isZero())
            {
                throw new IllegalArgumentException("must be positive, was " + value);
            }
            return value;
        }

        /** The deletion of expired entries: small batches, each a short transaction, never on a call's path. */
        public static class Cleanup
        {
            /** Time between passes over the ledger, each deleting what expired. */
            private Duration interval = Duration.ofMinutes(1);

            /** Most entries deleted in one transaction. */
            private int batchSize = 500;

            public Duration getInterval()
            {
                return interval;
            }

            public void setInterval(final Duration interval)
            {
                this.interval = positive(interval);
            }

            public int getBatchSize()
            {
                return batchSize;
            }

            public void setBatchSize(final int batchSize)
            {
                if (batchSize < 1)
                {
                    throw new IllegalArgumentException("must be at least 1, was " + batchSize);
                }
                this.batchSize = batchSize;
            }
        }

        /** When the ledger's table is created, as Spring Boot's DatabaseInitializationMode says for its scripts. */
        public enum SchemaInitialization
        {
            /** Only in an embedded database. */
            EMBEDDED,
            /** In any database. */
            ALWAYS,
            /** Never: the application's own migrations create it. */
            NEVER
        }
    }

    /** Argument and result formats. */
    public enum Codec
    {
        SMILE, JSON, CBOR
    }
}
