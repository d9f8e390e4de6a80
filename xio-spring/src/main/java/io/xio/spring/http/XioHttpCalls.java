package io.xio.spring.http;

import io.xio.engine.IdempotencyKeys;
import io.xio.engine.Metadata;
import io.xio.spring.codec.JacksonXioCodec;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.method.Invocation;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.service.DirectCalls;
import io.xio.spring.service.ServiceDispatcher;
import org.jspecify.annotations.Nullable;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.http.ProblemDetail;
import tools.jackson.databind.ObjectMapper;

import java.nio.ByteBuffer;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * HTTP/JSON calls of the exported services, whatever the web server: {@code POST {prefix}/{service}/{method}} with
 * the arguments as JSON ({@link XioHttpArguments}), run through the same path as the service's xio calls
 * ({@link DirectCalls}: interceptors, security context, exactly-once ledger, observation, exception handlers), the
 * answer as JSON, a failure as a problem ({@link XioHttpProblems}). The router functions of Spring MVC and WebFlux
 * hand their requests here as an {@link Exchange} and write the {@link Outcome} back. Thread-safe.
 *
 * <p>Metadata come from the request headers the allow-list names (names in lower case; {@code xio-} names are
 * xio's own and never taken from a header). The deadline comes from the {@value #TIMEOUT_HEADER} header
 * ({@code 250ms}, {@code 2s}, {@code PT2S}), bounded by the method's {@code @XioMethod(timeout)}; without either the
 * call has none. An exactly-once method takes its idempotency key from the {@value #IDEMPOTENCY_KEY_HEADER}
 * header, which it requires. A deadline over {@link #MAX_TIMEOUT} is cut to it; it bounds a server stream's whole run.
 * The arguments come as {@value #JSON} (or {@code application/*+json}), or raw as {@value #OCTET_STREAM}, or as no
 * body without a {@code Content-Type}; anything else is refused with 415, so that a cross-site form or plain text
 * post cannot make a call without the browser's CORS preflight. An answer's trailers are not sent over HTTP.
 */
public final class XioHttpCalls
{
    /** The request header giving how long the client waits for the answer. */
    public static final String TIMEOUT_HEADER = "xio-timeout";
    /** The request header giving an exactly-once call's idempotency key. */
    public static final String IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
    /** The media type of an answer. */
    public static final String JSON = "application/json";
    /** The media type of raw data segments. */
    public static final String OCTET_STREAM = "application/octet-stream";
    /** The media type of a server stream by default: one JSON value a line. */
    public static final String NDJSON = "application/x-ndjson";
    /** The media type of a server stream as server-sent events, when the client accepts it. */
    public static final String EVENT_STREAM = "text/event-stream";
    /** The longest deadline a client may ask for; a longer one is cut to it. */
    public static final Duration MAX_TIMEOUT = Duration.ofDays(30);

    private final Supplier<List<ServiceDispatcher>> services;
    private final JacksonXioCodec json;
    private final XioHttpArguments arguments;
    private final XioHttpProblems problems;
    private final Set<String> metadataHeaders;
    private final long maxRequestBytes;

    /**
     * What an application configures.
     *
     * @param metadataHeaders the request headers that become call metadata (any case; none by default)
     * @param maxRequestBytes the largest request body taken; a larger one is refused with 413 unread
     */
    public record Settings(Set<String> metadataHeaders, long maxRequestBytes)
    {
        public Settings
        {
            metadataHeaders = metadataHeaders.stream().map(name -> name.toLowerCase(Locale.ROOT))
                .collect(Collectors.toUnmodifiableSet());
            for (final String name : metadataHeaders)
            {
                if (name.startsWith("xio-") || name.equals(IDEMPOTENCY_KEY_HEADER.toLowerCase(Locale.ROOT)))
                {
                    throw new IllegalArgumentException("the header '" + name + "' cannot become call metadata: " +
                        "xio- names and " + IDEMPOTENCY_KEY_HEADER + " are xio's own");
                }
            }
            if (maxRequestBytes <= 0)
            {
                throw new IllegalArgumentException("the request body limit is " + maxRequestBytes + " bytes");
            }
        }
    }

    /** One HTTP request, as a router function hands it over. */
    public interface Exchange
    {
        /** The service the path names. */
        String service();

        /** The method the path names: its wire name, or its Java name when not overloaded. */
        String method();

        /** The values of the request header {@code name} (any case); empty when none. */
        List<String> headers(String name);

        /** Who the web server's security authenticated, or null. */
        @Nullable Principal principal();

        /** The web server's host as the request named it. */
        String host();

        /** The web server's port. */
        int port();

        /** The client's address. */
        String peer();
    }

    /** What a call is answered with. */
    public sealed interface Outcome permits Answer, Streamed
    {
    }

    /**
     * A whole answer.
     *
     * @param status the HTTP status
     * @param contentType its media type, or null without a body
     * @param body the body; empty for none
     */
    public record Answer(int status, @Nullable String contentType, byte[] body) implements Outcome
    {
    }

    /**
     * A server stream's answer: status 200, then each value the stream sends, encoded, until it ends.
     *
     * @param values the stream's {@code Publisher}; cancelling it cancels the call
     * @param events whether to write server-sent events ({@value #EVENT_STREAM}), else {@value #NDJSON}
     * @param call what writes one value and what words a failure
     */
    public record Streamed(Object values, boolean events, Route call) implements Outcome
    {
        /** Ends the call: the web server drops this answer without subscribing to {@link #values()}. */
        public void release()
        {
            if (values instanceof DirectCalls.Stream stream)
            {
                stream.release();
            }
        }
    }

    /**
     * Where a call goes: the service and its method.
     *
     * @param service the service's dispatcher
     * @param method the method
     */
    public record Route(ServiceDispatcher service, ServiceMethod method)
    {
    }

    /**
     * @param services the services exported at the time of each call
     * @param json the JSON mapper of the calls (configured as the binary codec is)
     */
    public XioHttpCalls(final Supplier<List<ServiceDispatcher>> services, final ObjectMapper json,
        final Settings settings)
    {
        this.services = services;
        this.json = new JacksonXioCodec(json);
        this.arguments = new XioHttpArguments(json);
        this.problems = new XioHttpProblems(json);
        this.metadataHeaders = settings.metadataHeaders();
        this.maxRequestBytes = settings.maxRequestBytes();
    }

    /** The largest request body taken, in bytes: a router function refuses a larger one unread ({@link #tooLarge}). */
    public long maxRequestBytes()
    {
        return maxRequestBytes;
    }

    /** The answer to a body over {@link #maxRequestBytes()}. */
    public Answer tooLarge()
    {
        return problem(new XioHttpException(413, XioErrorCode.RESOURCE_EXHAUSTED, "the request body is larger " +
            "than " + maxRequestBytes + " bytes"), null);
    }

    /**
     * Runs the call {@code exchange} names with the arguments in {@code body}.
     *
     * @param contentType the request's media type, or null
     * @param accept the request's {@code Accept} header, or null
     * @return completes with the answer (a failure's as a problem, never exceptionally); cancelling it (the client
     *     went away) cancels the call
     */
    public CompletableFuture<Outcome> call(final Exchange exchange, final byte[] body,
        final @Nullable String contentType, final @Nullable String accept)
    {
        Route route = null;
        try
        {
            route = route(exchange.service(), exchange.method());
            if (route.method().streamParameter() >= 0)
            {
                throw new XioHttpException(XioErrorCode.FAILED_PRECONDITION, route.method().wireName() + " is a " +
                    route.method().kind() + " method: its client streams to it, which takes an xio client");
            }
            final boolean raw = isA(contentType, OCTET_STREAM);
            if (!raw && !(contentType == null ? body.length == 0 : isJson(contentType)))
            {
                // Only what a browser cannot send cross-site without a preflight: no form or plain text body.
                throw new XioHttpException(415, XioErrorCode.INVALID_ARGUMENT, "the arguments are sent as " + JSON +
                    ", not " + (contentType == null ? "without a Content-Type" : bounded(contentType)));
            }
            return call(route, exchange, arguments.decode(route.method(), body, raw), accept);
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.completedFuture(problem(ex, route));
        }
    }

    private CompletableFuture<Outcome> call(final Route route, final Exchange exchange,
        final @Nullable Object[] decoded, final @Nullable String accept)
    {
        final ServiceMethod method = route.method();
        final XioHttpRequest request = new XioHttpRequest(new XioHttpSession(exchange.host(), exchange.port(),
            route.service().resource(), exchange.principal(), exchange.peer()), metadata(exchange, method),
            method.oneWay(), timeout(exchange, method));
        final CompletableFuture<@Nullable Object> running = route.service().direct().call(method, decoded, request);
        if (method.oneWay() && !running.isCompletedExceptionally())
        {
            // Delivered once taken, as over xio: only a refusal (draining, saturated) is answered.
            return CompletableFuture.completedFuture(new Answer(202, null, new byte[0]));
        }
        final CompletableFuture<Outcome> answered = new CompletableFuture<>();
        running.whenComplete((value, failure) ->
        {
            final Outcome done = failure == null ? answer(route, value, accept) : problem(failure, route);
            if (!answered.complete(done) && done instanceof Streamed late)
            {
                late.release(); // the deadline passed as the stream was returned: it is never written
            }
        });
        final Duration left = request.timeRemaining();
        if (left != null)
        {
            answered.orTimeout(left.toNanos(), TimeUnit.NANOSECONDS); // its timer goes once the call is answered
        }
        final CompletableFuture<Outcome> outcome = answered.handle((done, failure) -> failure == null ? done
            : problem(new XioHttpException(XioErrorCode.DEADLINE_EXCEEDED, "the call's deadline passed (" +
                left.toMillis() + " ms) before it was answered"), route));
        outcome.whenComplete((done, failure) ->
        {
            if (running.cancel(true) || failure != null)
            {
                request.cancel(); // the client went away, or the deadline passed: the method's future is let go
            }
            if (failure != null && answered.isDone() && !answered.isCompletedExceptionally() &&
                answered.join() instanceof Streamed dropped)
            {
                dropped.release(); // the client went away as its stream was returned
            }
        });
        return outcome;
    }

    /** The service and method a path names. */
    private Route route(final String service, final String method)
    {
        for (final ServiceDispatcher dispatcher : services.get())
        {
            if (dispatcher.resource().equals(service))
            {
                final ServiceMethod named = dispatcher.methods().get(method);
                if (named != null)
                {
                    return new Route(dispatcher, named);
                }
                final List<ServiceMethod> byJavaName = dispatcher.methods().values().stream()
                    .filter(candidate -> candidate.method().getName().equals(method)).toList();
                if (byJavaName.size() == 1)
                {
                    return new Route(dispatcher, byJavaName.get(0));
                }
                throw new XioHttpException(XioErrorCode.NOT_FOUND, byJavaName.isEmpty() ? "the service '" + service +
                    "' has no method '" + bounded(method) + "'" : "the service '" + service + "' has " +
                    byJavaName.size() + " methods named '" + method + "'; name one by its wire name: " +
                    byJavaName.stream().map(ServiceMethod::wireName).toList());
            }
        }
        throw new XioHttpException(XioErrorCode.NOT_FOUND, "no service named '" + bounded(service) + "'");
    }

    /** The metadata of a call: its allow-listed headers, and an exactly-once call's idempotency key. */
    private Metadata metadata(final Exchange exchange, final ServiceMethod method)
    {
        final Metadata metadata = new Metadata();
        for (final String name : metadataHeaders)
        {
            for (final String value : exchange.headers(name))
            {
                metadata.add(name, value);
            }
        }
        if (method.exactlyOnce())
        {
            final List<String> keys = exchange.headers(IDEMPOTENCY_KEY_HEADER);
            if (keys.size() != 1)
            {
                throw new XioHttpException(XioErrorCode.INVALID_ARGUMENT, method.wireName() + " runs exactly once " +
                    "per idempotency key: send one in the " + IDEMPOTENCY_KEY_HEADER + " header");
            }
            try
            {
                metadata.put(IdempotencyKeys.METADATA_KEY, IdempotencyKeys.check(keys.get(0)));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new XioHttpException(XioErrorCode.INVALID_ARGUMENT, "the " + IDEMPOTENCY_KEY_HEADER +
                    " header is not a valid key: " + ex.getMessage());
            }
            // The client's own key, which it may have sent before: the ledger looks it up.
            metadata.put(IdempotencyKeys.PREVIOUS_ATTEMPTS_KEY, "0");
        }
        return metadata;
    }

    /** The time the client waits, bounded by the method's timeout; null when neither says. */
    private static @Nullable Duration timeout(final Exchange exchange, final ServiceMethod method)
    {
        final List<String> given = exchange.headers(TIMEOUT_HEADER);
        if (given.isEmpty())
        {
            return method.timeout();
        }
        final Duration asked;
        try
        {
            asked = DurationFormatterUtils.detectAndParse(given.get(0).trim());
        }
        catch (final RuntimeException ex)
        {
            throw new XioHttpException(XioErrorCode.INVALID_ARGUMENT, "the " + TIMEOUT_HEADER + " header is not " +
                "a duration such as 250ms, 2s or PT2S");
        }
        if (asked.isNegative() || asked.isZero())
        {
            throw new XioHttpException(XioErrorCode.INVALID_ARGUMENT, "the " + TIMEOUT_HEADER + " header is not " +
                "a positive duration");
        }
        final Duration bounded = asked.compareTo(MAX_TIMEOUT) > 0 ? MAX_TIMEOUT : asked;
        return method.timeout() != null && method.timeout().compareTo(bounded) < 0 ? method.timeout() : bounded;
    }

    /** The answer of a call that returned {@code value}. */
    private Outcome answer(final Route route, final @Nullable Object value, final @Nullable String accept)
    {
        final ServiceMethod method = route.method();
        try
        {
            if (method.isStream())
            {
                return new Streamed(value, isA(accept, EVENT_STREAM), route);
            }
            if (method.returnKind() == ServiceMethod.ReturnKind.VOID)
            {
                return new Answer(204, null, new byte[0]);
            }
            if (method.resultIsSegment() && isA(accept, OCTET_STREAM))
            {
                if (value == null)
                {
                    return new Answer(204, null, new byte[0]);
                }
                final ByteBuffer data = Invocation.asBuffer(value);
                final byte[] bytes = new byte[data.remaining()];
                data.get(bytes);
                return new Answer(200, OCTET_STREAM, bytes);
            }
            return new Answer(200, JSON, json.encode(value, method.resultType()));
        }
        catch (final RuntimeException ex)
        {
            return problem(XioHttpProblems.of(route.service().direct().internal(ex)));
        }
    }

    /** One value of a server stream, as JSON. */
    public byte[] encode(final Route route, final @Nullable Object value)
    {
        return json.encode(value, route.method().resultType());
    }

    /** The problem a failure is answered with, as the service words it for an xio caller. */
    public Answer problem(final Throwable thrown, final @Nullable Route route)
    {
        final Throwable failure = thrown instanceof CompletionException && thrown.getCause() != null
            ? thrown.getCause() : thrown;
        final ProblemDetail problem;
        if (failure instanceof XioHttpException refused)
        {
            problem = XioHttpProblems.of(refused.status(), refused.code(), refused.getMessage());
        }
        else if (failure instanceof CancellationException)
        {
            problem = XioHttpProblems.of(XioHttpStatus.CLIENT_CLOSED_REQUEST, XioErrorCode.CANCELLED,
                "the call was cancelled");
        }
        else if (route == null)
        {
            // Not a service's failure: nothing of it is told, its type and words may name the server's internals.
            problem = XioHttpProblems.of(XioHttpStatus.of(XioErrorCode.INTERNAL), XioErrorCode.INTERNAL,
                "the call could not be made");
        }
        else
        {
            problem = XioHttpProblems.of(route.service().direct().answer(failure, route.method()));
        }
        return problem(problem);
    }

    /** {@code problem} as an answer. */
    public Answer problem(final ProblemDetail problem)
    {
        return new Answer(problem.getStatus(), XioHttpProblems.PROBLEM_JSON, problems.encode(problem));
    }

    /** Whether a {@code Content-Type} header names JSON: {@code application/json} or {@code application/*+json}. */
    private static boolean isJson(final String header)
    {
        final int parameters = header.indexOf(';');
        final String type = (parameters < 0 ? header : header.substring(0, parameters)).trim().toLowerCase(Locale.ROOT);
        return type.equals(JSON) || type.startsWith("application/") && type.endsWith("+json");
    }

    /** Whether a {@code Content-Type} or {@code Accept} header names {@code type} (parameters aside). */
    private static boolean isA(final @Nullable String header, final String type)
    {
        if (header == null)
        {
            return false;
        }
        for (final String part : header.split(","))
        {
            final int parameters = part.indexOf(';');
            if ((parameters < 0 ? part : part.substring(0, parameters)).trim().equalsIgnoreCase(type))
            {
                return true;
            }
        }
        return false;
    }

    private static String bounded(final String text)
    {
        return text.length() <= 64 ? text : text.substring(0, 64) + "...";
    }
}
