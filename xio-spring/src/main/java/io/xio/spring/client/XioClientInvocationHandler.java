package io.xio.spring.client;

import io.xio.engine.SessionOptions;
import io.xio.engine.XioEngine;
import io.xio.engine.XioException;
import io.xio.spring.call.XioClientInterceptor;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.kotlin.CoroutineClientCalls;
import io.xio.spring.kotlin.KotlinDependencies;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioCall;
import io.xio.spring.observation.XioInstrumentation;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Behind a client proxy: each call becomes one transaction on a session opened on first use (so an
 * application starts while its server is down, and the first call reports why it cannot reach it); an
 * idempotent call whose session or server went away may become a few, on fresh sessions ({@link RetryPolicy}), and
 * so may any call that a draining server's session refused unsent. Each attempt takes its session from
 * {@link ClientSessions}: the one session of a URI, or for a client that names a service the instance its
 * {@link io.xio.cluster.ServiceClient} picks, so an attempt tried again lands on another instance.
 * Every call takes the one {@link ClientCallPipeline}. Without client interceptors a call takes the engine's
 * allocation-free listener path, so its result is decoded on the context thread that received the response (the
 * response is valid only there): a codec must not block or make a blocking xio call while decoding. Kotlin's
 * {@code suspend} functions and {@code Flow}s are called through {@link CoroutineClientCalls}. Thread-safe.
 */
final class XioClientInvocationHandler implements InvocationHandler
{
    private static final Object[] NO_ARGUMENTS = new Object[0];
    private final Class<?> api;
    private final String name;
    private final ClientSessions sessions;
    /** What each method's calls share, made with the proxy: no lookup or encoding of it per call. */
    private final Map<Method, ClientMethodState> states = new ConcurrentHashMap<>();
    private final ClientCallPipeline pipeline;

    /** A client whose attempts take their sessions from {@code sessions} (one address, or a service's instances). */
    XioClientInvocationHandler(final Class<?> api, final @Nullable String name, final ClientSessions sessions,
        final XioEngine engine, final XioCodec codec, final SessionOptions options,
        final XioInstrumentation instrumentation, final AllowedExceptions allowedExceptions, final RetryPolicy retry,
        final Supplier<List<XioClientInterceptor>> interceptors)
    {
        this.api = api;
        this.name = name == null ? "" : name;
        this.sessions = sessions;
        final String resource = sessions.resource();
        for (final Method method : api.getMethods())
        {
            if (!method.isDefault() && !Modifier.isStatic(method.getModifiers()))
            {
                final ServiceMethod described = ServiceMethod.of(method, api); // fails fast on bad settings
                final XioInstrumentation.CallRecorder recorder = instrumentation.recorder(new XioCall(
                    XioCall.Side.CLIENT, resource, method.getName(), described.wireName(), sessions.transport()));
                states.put(method, new ClientMethodState(described, recorder, codec, options.timeout()));
            }
        }
        KotlinDependencies.check(states.values().stream().map(state -> state.call).toList(), false,
            "client " + api.getName(), api.getClassLoader());
        final AttemptSessions attemptSessions = new AttemptSessions(sessions);
        final ResponseDecoder decoder = new ResponseDecoder(codec);
        final CallFailures failures = new CallFailures(api, sessions.target(), allowedExceptions);
        final ClientInterceptors chain =
            new ClientInterceptors(interceptors, api, this.name.isEmpty() ? sessions.target() : this.name, resource);
        final RequestEncoder encoder = new RequestEncoder(codec, retry);
        this.pipeline = new ClientCallPipeline(
            chain,
            new CallingThread(api, engine),
            encoder,
            new BlockingCompletion(attemptSessions, retry, decoder, engine.callerSpin().toNanos()),
            new AsyncCompletion(attemptSessions, retry, decoder, failures, new EngineContextExecutor(engine)),
            failures,
            states.values().stream().anyMatch(state -> state.call.isStream())
                ? new StreamingCalls(chain, attemptSessions, encoder, codec, failures) : null);
    }

    @Override
    public @Nullable Object invoke(final Object proxy, final Method method, final @Nullable Object @Nullable [] args)
        throws Throwable
    {
        if (method.getDeclaringClass() == Object.class)
        {
            return switch (method.getName())
            {
                case "toString" -> "xio client " + api.getName() + " -> " + sessions.target();
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> throw new UnsupportedOperationException(method.getName());
            };
        }
        if (method.isDefault())
        {
            return InvocationHandler.invokeDefault(proxy, method, args);
        }
        final ClientMethodState state = states.get(method);
        if (state.call.coroutines())
        {
            return CoroutineClientCalls.call(state.call, args == null ? NO_ARGUMENTS : args,
                arguments -> pipeline.call(state, method, arguments));
        }
        return pipeline.call(state, method, args == null ? NO_ARGUMENTS : args);
    }

    /** Where this client's session (or a service client's instances) stand; never blocks. */
    XioClientStatus status()
    {
        return sessions.status(name, api);
    }

    /** Lets go of a service client's watch and sessions; a URI client's session closes with the engine. */
    void close()
    {
        sessions.close();
    }

    /** Opens the session if there is none (or it failed or closed), without waiting. */
    void probe()
    {
        sessions.session();
    }

    /** {@link BlockingCompletion#interrupted}: what a proxy's caller interrupted while it waited gets. */
    static XioException interrupted(final CompletableFuture<?> future, final String method,
        final InterruptedException ex)
    {
        return BlockingCompletion.interrupted(future, method, ex);
    }
}
