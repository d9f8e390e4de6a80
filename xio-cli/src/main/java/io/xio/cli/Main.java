package io.xio.cli;

import io.xio.engine.BackPressureException;
import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.IdempotencyKeys;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.RemoteException;
import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.SessionRejectedException;
import io.xio.engine.XioEngine;
import io.xio.engine.XioException;
import io.xio.engine.XioFuture;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.XioUri;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@code xio} command line: lists the services of a running xio server, describes one (its methods with JSON
 * Schemas of their parameters and results), and calls a method with JSON arguments, printing the JSON answer (of a
 * server-streaming method, one line of JSON per message as they come: {@link StreamPrinter}). It reads the server's
 * {@code xio.reflection} resource and sends its calls with the {@code xio-codec: json} metadata entry, so the server
 * decodes the arguments with its own mapper; it needs none of the service's classes. {@code health} asks the
 * server's {@code xio.health} resource, for probes ({@link HealthProbe}). Any transport the engine has
 * (tcp, tls, shm; local only inside one JVM). Runs one command on the calling thread.
 */
public final class Main
{
    /** The command succeeded. */
    public static final int OK = 0;
    /** The server answered the call with an error, or did not answer in time. */
    public static final int CALL_FAILED = 1;
    /** The command line is wrong: unknown command or option, bad JSON, a method the service does not have. */
    public static final int USAGE = 2;
    /** No session: the server could not be reached, or refused it (such as for missing or wrong credentials). */
    public static final int NOT_CONNECTED = 3;
    /** Of {@code health}: the server, or the service asked about, does not take calls (or is not known). */
    public static final int NOT_SERVING = HealthProbe.NOT_SERVING;

    static final String REFLECTION = "xio.reflection";
    static final String CODEC_KEY = "xio-codec";
    static final String JSON_CODEC = "json";

    private static final String USAGE_TEXT = String.join("\n",
        "usage: xio [options] list <uri>",
        "       xio [options] describe <uri> <service>",
        "       xio [options] call <uri> <service> <method> [<json arguments>]",
        "       xio [options] health <uri> [--service <service>]",
        "",
        "<uri> is a server's portal: tcp://host:port, tls://host:port, shm://name",
        "<method> is a method's name, or its wire name such as 'add(int,int)' when it is overloaded",
        "<json arguments> is a JSON array of the arguments, in order (default []); a method with one",
        "  parameter also takes the value alone",
        "A server-streaming method prints one line of JSON per message as it arrives, until the stream ends",
        "  (Ctrl-C cancels it)",
        "health asks the server's xio.health resource whether it (or --service) takes calls: for probes",
        "An exactly-once method is called with an idempotency key, printed to stderr: a call that may have run",
        "  is resumed with --idempotency-key <key>, which runs it at most once and gives its answer",
        "",
        "options:",
        "  --user <name> --password <password>   authenticate with a user name and password",
        "                                        (the password may also come from XIO_PASSWORD)",
        "  --token <token>                       authenticate with a bearer token (or XIO_TOKEN)",
        "  --truststore <file>                   for tls://, trust the certificates in this PKCS12 or JKS file",
        "  --truststore-password <password>      its password (or XIO_TRUSTSTORE_PASSWORD)",
        "  --timeout <duration>                  how long to wait for the server, such as 5s or 500ms (10s;",
        "                                        at most 24h); given, also the deadline of a stream",
        "  --max-messages <n>                    of a server-streaming method, print n messages, then cancel",
        "  --idempotency-key <key>               of an exactly-once method, call it with this key (the one an",
        "                                        earlier call printed): 1 to 128 of A-Z a-z 0-9 - _ . :",
        "  --service <service>                   of health, the service to ask about (default: the server)",
        "  -h, --help                            this text",
        "",
        "exit status: 0 done (health: serving), 1 the call failed, 2 bad command line, 3 no session (unreachable or",
        "  refused), 4 of health: not serving (NOT_SERVING, draining, or SERVICE_UNKNOWN)");

    private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> environment;

    private Main(final PrintStream out, final PrintStream err, final Map<String, String> environment)
    {
        this.out = out;
        this.err = err;
        this.environment = environment;
    }

    public static void main(final String[] args)
    {
        System.exit(ShutdownInterrupt.run(() -> run(args, System.out, System.err, System.getenv())));
    }

    /**
     * Runs one command: its output (JSON) goes to {@code out}, errors to {@code err}.
     *
     * @return the exit status: {@link #OK}, {@link #CALL_FAILED}, {@link #USAGE}, {@link #NOT_CONNECTED} or
     *     (health) {@link #NOT_SERVING}
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err,
        final Map<String, String> environment)
    {
        return new Main(out, err, environment).run(args);
    }

    private int run(final String[] args)
    {
        final Options options;
        try
        {
            options = Options.parse(args, environment);
        }
        catch (final UsageException ex)
        {
            err.println("xio: " + ex.getMessage());
            err.println(USAGE_TEXT);
            return USAGE;
        }
        if (options.help)
        {
            out.println(USAGE_TEXT);
            return OK;
        }
        try (XioEngine engine = XioEngine.builder().name("xio-cli").contexts(1).build())
        {
            try
            {
                return switch (options.command)
                {
                    case "list" -> print(call(engine, options, REFLECTION, "list()", "[]", false));
                    case "describe" -> describe(engine, options);
                    case "health" -> health(engine, options);
                    default -> invoke(engine, options);
                };
            }
            finally
            {
                // An interrupt (Ctrl-C) ended the command, which said so; cleared, as it would cut short the engine's
                // close, which waits for its connections to tell the server (a stream's cancel, say).
                Thread.interrupted();
            }
        }
        catch (final UsageException ex)
        {
            err.println("xio: " + ex.getMessage());
            return USAGE;
        }
        catch (final NotConnected ex)
        {
            err.println("xio: " + ex.getMessage());
            return NOT_CONNECTED;
        }
        catch (final CallFailed ex)
        {
            err.println("xio: " + ex.getMessage());
            return CALL_FAILED;
        }
        catch (final RuntimeException ex)
        {
            // A server's answer this command line did not expect, say: reported, not thrown at the shell.
            err.println("xio: the command failed unexpectedly: " + ex);
            return CALL_FAILED;
        }
    }

    private int health(final XioEngine engine, final Options options)
    {
        final JsonNode answer = HealthProbe.check(engine, options);
        print(answer);
        return HealthProbe.exitStatus(answer);
    }

    private int describe(final XioEngine engine, final Options options)
    {
        return print(describe(engine, options, options.service));
    }

    /** The service's description; fails as a usage error when the server exports no service so named. */
    private static JsonNode describe(final XioEngine engine, final Options options, final String service)
    {
        return described(call(engine, options, REFLECTION, "describe(String)",
            JsonNodeFactory.instance.arrayNode().add(service).toString(), true), options, service);
    }

    /** The description of the methods of {@code service} named {@code method} only: what a call needs. */
    private static JsonNode describe(final XioEngine engine, final Options options, final String service,
        final String method)
    {
        return described(call(engine, options, REFLECTION, "describe(String,String)",
            JsonNodeFactory.instance.arrayNode().add(service).add(method).toString(), true), options, service);
    }

    private static JsonNode described(final JsonNode description, final Options options, final String service)
    {
        if (description == null || description.isNull())
        {
            throw new UsageException("the server exports no service '" + service + "'; 'xio list " +
                options.uri + "' shows those it does");
        }
        return description;
    }

    private int invoke(final XioEngine engine, final Options options)
    {
        final JsonNode method = method(engine, options, describe(engine, options, options.service, options.method));
        final String wireName = field(method, "wireName").asString();
        final String kind = field(method, "kind").asString();
        if ("client-stream".equals(kind) || "bidi-stream".equals(kind))
        {
            throw new UsageException(wireName + " is a " + kind + " method, which streams messages from the " +
                "caller; the xio command line calls server-streaming methods only");
        }
        if (options.maxMessages != null && !"server-stream".equals(kind))
        {
            throw new UsageException("--max-messages is for server-streaming methods; " + wireName + " is " + kind);
        }
        // Absent from the descriptions of servers older than the flag, whose methods take no key.
        final boolean exactlyOnce = method.path("exactlyOnce").asBoolean(false);
        if (options.idempotencyKey != null && !exactlyOnce)
        {
            throw new UsageException("--idempotency-key is for exactly-once methods; " + wireName + " is not one " +
                "(see \"exactlyOnce\" in 'xio describe')");
        }
        final JsonNode parameters = field(method, "parameters");
        for (final JsonNode parameter : parameters)
        {
            if (parameter.path("segment").asBoolean(false))
            {
                throw new UsageException(wireName + " takes " + parameter.path("name").asString() +
                    " as a data segment (byte[] or ByteBuffer), which the xio command line cannot send");
            }
        }
        final String arguments = arguments(options.arguments, parameters.size(), wireName);
        if ("server-stream".equals(kind))
        {
            return stream(engine, options, wireName, arguments);
        }
        if ("one-way".equals(kind))
        {
            send(engine, options, options.service, wireName, arguments);
            return OK;
        }
        final JsonNode answer = exactlyOnce ? callExactlyOnce(engine, options, wireName, arguments)
            : call(engine, options, options.service, wireName, arguments, false);
        return answer == null ? OK : print(answer);
    }

    /**
     * The method a call names among those the server described for that name: the one of that wire name, or the
     * only one of that Java name. When there is none, the whole service is asked for its methods' wire names.
     */
    private static JsonNode method(final XioEngine engine, final Options options, final JsonNode described)
    {
        final List<JsonNode> named = new ArrayList<>();
        for (final JsonNode method : field(described, "methods"))
        {
            if (field(method, "wireName").asString().equals(options.method))
            {
                return method;
            }
            named.add(method);
        }
        if (named.size() == 1)
        {
            return named.get(0);
        }
        if (named.isEmpty())
        {
            final List<String> wireNames = new ArrayList<>();
            field(describe(engine, options, options.service), "methods")
                .forEach(method -> wireNames.add(field(method, "wireName").asString()));
            throw new UsageException("service '" + options.service + "' has no method '" + options.method +
                "'; its methods are " + wireNames);
        }
        throw new UsageException("service '" + options.service + "' has " + named.size() + " methods named '" +
            options.method + "'; name one by its wire name: " +
            named.stream().map(m -> field(m, "wireName").asString()).toList());
    }

    /** A field the server's description must have; a call failure, naming it, when it does not. */
    private static JsonNode field(final JsonNode node, final String name)
    {
        final JsonNode value = node.get(name);
        if (value == null || value.isNull())
        {
            throw new CallFailed("the server's description has no '" + name + "' where this command line " +
                "expects one (a server of another xio version?)");
        }
        return value;
    }

    /**
     * The arguments as the JSON array a call carries: a JSON array is the arguments, in order; any other value is
     * the argument of a one-parameter method (so a list parameter alone is given as {@code [[...]]}).
     */
    private static String arguments(final String given, final int count, final String wireName)
    {
        final JsonNode parsed;
        try
        {
            parsed = given == null ? JsonNodeFactory.instance.arrayNode() : JSON.readTree(given);
        }
        catch (final JacksonException ex)
        {
            throw new UsageException("the arguments are not JSON: " + ex.getOriginalMessage());
        }
        final ArrayNode array;
        if (parsed.isArray())
        {
            array = (ArrayNode)parsed;
        }
        else if (count == 1)
        {
            array = JsonNodeFactory.instance.arrayNode().add(parsed);
        }
        else
        {
            throw new UsageException("the arguments of " + wireName + " are a JSON array of " + count + " values");
        }
        if (array.size() != count)
        {
            throw new UsageException(wireName + " takes " + count + " argument(s), given " + array.size());
        }
        return array.toString();
    }

    private int print(final JsonNode answer)
    {
        out.println(JSON.writeValueAsString(answer));
        return OK;
    }

    /**
     * Calls {@code method} of {@code resource} with JSON arguments; its JSON answer, or null for none (void). A
     * result in a data segment is JSON when {@code segmentIsJson} (a description), else bytes shown as base64.
     */
    static JsonNode call(final XioEngine engine, final Options options, final String resource,
        final String method, final String arguments, final boolean segmentIsJson)
    {
        try (Session session = open(engine, options, resource))
        {
            final XioUri uri = session.uri();
            try (Message answer = await(session.request(request(method, arguments),
                CallOptions.timeout(options.timeout)), options, uri))
            {
                return value(answer, segmentIsJson, uri);
            }
        }
    }

    /**
     * Calls an exactly-once method as such ({@link CallOptions#withExactlyOnce}), so that it carries an idempotency
     * key: the one --idempotency-key gave, sent as an application's own key (its first attempt says 0 previous
     * attempts: the key may have been sent before, so the server looks it up before running the method), else one
     * the engine makes. The key goes to stderr as soon as the call is sent, before its answer, so that a command that
     * never learns the outcome (Ctrl-C, say) still leaves the key to resume the call with.
     */
    private JsonNode callExactlyOnce(final XioEngine engine, final Options options, final String method,
        final String arguments)
    {
        final Outbound request = request(method, arguments);
        if (options.idempotencyKey != null)
        {
            request.metadata().put(IdempotencyKeys.METADATA_KEY, options.idempotencyKey);
        }
        try (Session session = open(engine, options, options.service))
        {
            final XioUri uri = session.uri();
            final XioFuture<Message> sent =
                session.request(request, CallOptions.timeout(options.timeout).withExactlyOnce(true));
            // The session put the key into the metadata it sent, unless it refused the call before (nothing ran).
            final String key = IdempotencyKeys.of(request.metadata());
            if (key != null)
            {
                err.println("xio: exactly-once call, idempotency key " + key);
            }
            try (Message answer = await(sent, options, uri))
            {
                return value(answer, false, uri);
            }
            catch (final CallFailed failed)
            {
                throw key == null ? failed : resumable(failed, key);
            }
        }
    }

    /**
     * The failure of an exactly-once call with {@code key}, saying how to resume the call when it may have run (its
     * request was written, then its connection failed, its deadline passed or the command stopped waiting) or was
     * turned away unsettled (back-pressure: the server busy, or an earlier attempt of the key still running). A
     * call again with the key runs it at most once and gives its answer; one without it may run it twice.
     */
    private static CallFailed resumable(final CallFailed failed, final String key)
    {
        final Throwable cause = failed.getCause();
        final boolean mayHaveRun = cause instanceof ConnectionException lost ? lost.mayHaveRun()
            : cause instanceof XioTimeoutException late ? late.mayHaveRun()
            : cause instanceof TimeoutException || cause instanceof InterruptedException;
        final String again = "call again with --idempotency-key " + key;
        if (mayHaveRun)
        {
            return new CallFailed(failed.getMessage() + "; the exactly-once call may have run, or be running still: " +
                again + " to resume it (it then runs at most once and gives its answer), never without the key", cause);
        }
        if (cause instanceof BackPressureException)
        {
            return new CallFailed(failed.getMessage() + "; the exactly-once call did not run (an earlier attempt " +
                "of its key may be running still): " + again + ", never without the key", cause);
        }
        return failed; // the server's answer, which the key would replay, or a call that did not run
    }

    /**
     * Opens a stream of the server-streaming {@code method} with JSON arguments and prints its messages as they come.
     * Only a --timeout given is the stream's deadline: a feed may rightly last longer than the default.
     */
    private int stream(final XioEngine engine, final Options options, final String method, final String arguments)
    {
        try (Session session = open(engine, options, options.service))
        {
            return StreamPrinter.print(session, request(method, arguments),
                options.timeoutGiven ? CallOptions.timeout(options.timeout) : CallOptions.DEFAULT,
                options.maxMessages == null ? Long.MAX_VALUE : options.maxMessages, out);
        }
    }

    /**
     * The value an answer or a stream message carries, as JSON: its header; a data segment (byte[], ByteBuffer) as
     * JSON when {@code segmentIsJson}, else as base64, as Jackson would show the bytes; null when it has neither.
     */
    static JsonNode value(final Message answer, final boolean segmentIsJson, final XioUri uri)
    {
        if (answer.headerLength() == 0 && answer.segmentCount() > 0)
        {
            final ByteBuffer segment = answer.segment(0);
            final byte[] bytes = new byte[segment.remaining()];
            segment.get(bytes);
            return segmentIsJson ? json(bytes, uri)
                : JsonNodeFactory.instance.stringNode(Base64.getEncoder().encodeToString(bytes));
        }
        if (answer.headerLength() == 0)
        {
            return null;
        }
        return json(answer.headerBytes(), uri);
    }

    private static JsonNode json(final byte[] answer, final XioUri uri)
    {
        try
        {
            return JSON.readTree(answer);
        }
        catch (final JacksonException ex)
        {
            throw new CallFailed(uri + " answered with what is not JSON: " + ex.getOriginalMessage());
        }
    }

    private static void send(final XioEngine engine, final Options options, final String resource,
        final String method, final String arguments)
    {
        try (Session session = open(engine, options, resource))
        {
            // With a receipt, a refusal (no such service, too busy) comes back; what the method makes of its
            // arguments does not, as a one-way message has no answer.
            await(session.send(request(method, arguments), CallOptions.timeout(options.timeout).withReceipt(true)),
                options, session.uri());
        }
    }

    /**
     * A call's header as the Spring layer reads it ({@code u16 name length, name, arguments}, docs/protocol.md),
     * asking for JSON.
     */
    static Outbound request(final String method, final String arguments)
    {
        final byte[] name = method.getBytes(StandardCharsets.UTF_8);
        final byte[] encoded = arguments.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer header = ByteBuffer.allocate(2 + name.length + encoded.length);
        header.putShort((short)name.length).put(name).put(encoded).flip();
        return Outbound.of(header).metadata(new Metadata().add(CODEC_KEY, JSON_CODEC));
    }

    private static Session open(final XioEngine engine, final Options options, final String resource)
    {
        final XioUri server = options.server;
        final XioUri uri = new XioUri(server.scheme(), server.host(), server.port(), resource);
        SessionOptions session = SessionOptions.DEFAULT.withConnections(1).withTimeout(options.timeout)
            .withCredentials(options.credentials);
        if (options.tls != null)
        {
            session = session.withTls(options.tls);
        }
        if (!engine.hasTransport(uri.scheme()))
        {
            throw new UsageException("no transport for " + uri.scheme() + "://; this one has tcp, tls and shm");
        }
        try
        {
            return engine.openSession(uri.toString(), session).get(options.timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException ex)
        {
            throw new NotConnected("no session to " + uri + " within " + options.timeout);
        }
        catch (final ExecutionException ex)
        {
            throw new NotConnected(notConnected(uri, ex.getCause()), ex.getCause());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new NotConnected("interrupted while opening a session to " + uri);
        }
    }

    private static String notConnected(final XioUri uri, final Throwable cause)
    {
        if (cause instanceof SessionRejectedException rejected)
        {
            return rejected.isAuthenticationFailure()
                ? "the server at " + uri.endpoint() + " did not authenticate this client: " + rejected.reason() +
                    " (--user/--password or --token)"
                : REFLECTION.equals(uri.resource())
                    ? "the server at " + uri.endpoint() + " has no " + REFLECTION + " resource: its reflection is " +
                        "off (xio.server.reflection.enabled=false) or it is no xio Spring server (" +
                        rejected.reason() + ")"
                : HealthProbe.RESOURCE.equals(uri.resource()) && !rejected.isDraining()
                    ? "the server at " + uri.endpoint() + " has no " + HealthProbe.RESOURCE + " resource: its " +
                        "health is off (xio.server.health.enabled=false) or it is no xio Spring server (" +
                        rejected.reason() + ")"
                    : "the server at " + uri.endpoint() + " refused the session: " + rejected.reason();
        }
        if (cause instanceof ConnectionException)
        {
            return "cannot reach " + uri.endpoint() + ": " + cause.getMessage();
        }
        return "no session to " + uri + ": " + cause;
    }

    private static <T> T await(final java.util.concurrent.Future<T> future, final Options options, final XioUri uri)
    {
        try
        {
            // The call's own deadline ends it first; the extra second is for its answer to arrive.
            return future.get(options.timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException ex)
        {
            throw new CallFailed("no answer from " + uri + " within " + options.timeout, ex);
        }
        catch (final ExecutionException | CompletionException ex)
        {
            throw new CallFailed(failure(uri, ex.getCause()), ex.getCause());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new CallFailed("interrupted while waiting for " + uri, ex);
        }
    }

    /** A failed call in words: the error code and message the server sent ({@code "message\nCODE"}), its type. */
    static String failure(final XioUri uri, final Throwable cause)
    {
        if (cause instanceof RemoteException remote)
        {
            final String body = remote.remoteMessage() == null ? "" : remote.remoteMessage();
            final int newline = body.lastIndexOf('\n');
            final String code = newline < 0 ? "UNKNOWN" : body.substring(newline + 1);
            final String message = newline < 0 ? body : body.substring(0, newline);
            final String type = remote.remoteType() == null || remote.remoteType().isEmpty() ? ""
                : " (" + remote.remoteType() + ")";
            return uri + " answered " + code + ": " + message + type;
        }
        if (cause instanceof XioTimeoutException)
        {
            return "no answer from " + uri + " in time: " + cause.getMessage();
        }
        if (cause instanceof XioException)
        {
            return "the call to " + uri + " failed: " + cause.getMessage();
        }
        return "the call to " + uri + " failed: " + cause;
    }

    /** The command line is wrong. */
    static final class UsageException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        UsageException(final String message)
        {
            super(message, null, false, false);
        }
    }

    /** No session could be opened. */
    static final class NotConnected extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        NotConnected(final String message)
        {
            super(message, null, false, false);
        }

        /** @param cause why: the refusal or the connection's failure */
        NotConnected(final String message, final Throwable cause)
        {
            super(message, cause, false, false);
        }
    }

    /** The call was answered with an error, or not at all. */
    static final class CallFailed extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        CallFailed(final String message)
        {
            super(message, null, false, false);
        }

        /** @param cause why: what the call failed with, which says whether it may have run */
        CallFailed(final String message, final Throwable cause)
        {
            super(message, cause, false, false);
        }
    }
}
