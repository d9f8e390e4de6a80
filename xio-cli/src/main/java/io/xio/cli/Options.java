package io.xio.cli;

import io.xio.cli.Main.UsageException;
import io.xio.engine.Credentials;
import io.xio.engine.IdempotencyKeys;
import io.xio.engine.TlsOptions;
import io.xio.engine.XioUri;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

/**
 * The {@code xio} command line, parsed: the command, its operands and its options, checked as far as can be without
 * the server. Made and read by {@link Main} on the thread that runs the command.
 */
final class Options
{
    /** The longest --timeout: a day is more than any call waits, and keeps its milliseconds far from overflow. */
    static final Duration MAX_TIMEOUT = Duration.ofDays(1);

    String command;
    XioUri uri;
    XioUri server;
    String service;
    String method;
    String arguments;
    Credentials credentials = Credentials.NONE;
    TlsOptions tls;
    Duration timeout = Duration.ofSeconds(10);
    /** Whether --timeout was given: only then does it bound a stream. */
    boolean timeoutGiven;
    /** --max-messages, or null for a stream read to its end. */
    Long maxMessages;
    /** --idempotency-key, checked as a key; null for the one the engine makes for an exactly-once call. */
    String idempotencyKey;
    boolean help;

    /** The command line {@code args}, with what {@code environment} gives for options not given. */
    static Options parse(final String[] args, final Map<String, String> environment)
    {
        final Options options = new Options();
        final Deque<String> words = new ArrayDeque<>();
        String user = null;
        String password = environment.get("XIO_PASSWORD");
        String token = environment.get("XIO_TOKEN");
        String truststore = null;
        String truststorePassword = environment.get("XIO_TRUSTSTORE_PASSWORD");
        String healthService = null;
        for (int i = 0; i < args.length; i++)
        {
            final String arg = args[i];
            switch (arg)
            {
                case "-h", "--help" -> options.help = true;
                case "--user" -> user = value(args, ++i, arg);
                case "--password" -> password = value(args, ++i, arg);
                case "--token" -> token = value(args, ++i, arg);
                case "--truststore" -> truststore = value(args, ++i, arg);
                case "--truststore-password" -> truststorePassword = value(args, ++i, arg);
                case "--timeout" ->
                {
                    options.timeout = duration(value(args, ++i, arg));
                    options.timeoutGiven = true;
                }
                case "--max-messages" -> options.maxMessages = count(value(args, ++i, arg), arg);
                case "--idempotency-key" -> options.idempotencyKey = idempotencyKey(value(args, ++i, arg));
                case "--service" -> healthService = value(args, ++i, arg);
                default ->
                {
                    if (arg.startsWith("--"))
                    {
                        throw new UsageException("unknown option " + arg);
                    }
                    words.add(arg);
                }
            }
        }
        if (options.help)
        {
            return options;
        }
        options.command = words.poll();
        final int operands = options.command == null ? -1 : switch (options.command)
        {
            case "list" -> 1;
            case "describe" -> 2;
            case "call" -> 3;
            case "health" -> 1;
            default -> throw new UsageException("unknown command '" + options.command + "'");
        };
        if (operands < 0)
        {
            throw new UsageException("no command");
        }
        if (words.size() < operands || words.size() > operands + ("call".equals(options.command) ? 1 : 0))
        {
            throw new UsageException("'" + options.command + "' takes " + operands +
                ("call".equals(options.command) ? " or " + (operands + 1) : "") + " operands");
        }
        options.uri = uri(words.poll());
        options.server = options.uri;
        options.service = words.poll();
        options.method = words.poll();
        options.arguments = words.poll();
        if (options.maxMessages != null && !"call".equals(options.command))
        {
            throw new UsageException("--max-messages is for 'call' of a server-streaming method");
        }
        if (options.idempotencyKey != null && !"call".equals(options.command))
        {
            throw new UsageException("--idempotency-key is for 'call' of an exactly-once method");
        }
        if (healthService != null)
        {
            if (!"health".equals(options.command))
            {
                throw new UsageException("--service is for 'health'");
            }
            options.service = healthService;
        }
        if (token != null && user != null)
        {
            throw new UsageException("--token and --user are two ways to authenticate; give one");
        }
        if (user != null)
        {
            if (password == null)
            {
                throw new UsageException("--user needs --password (or XIO_PASSWORD)");
            }
            options.credentials = Credentials.password(user, password);
        }
        else if (token != null)
        {
            options.credentials = Credentials.bearer(token);
        }
        if (truststore != null)
        {
            if (!"tls".equals(options.uri.scheme()))
            {
                throw new UsageException("--truststore is for tls:// addresses, not " + options.uri.scheme());
            }
            options.tls = TlsOptions.of(trusting(Path.of(truststore), truststorePassword));
        }
        return options;
    }

    private static String value(final String[] args, final int index, final String option)
    {
        if (index >= args.length)
        {
            throw new UsageException(option + " needs a value");
        }
        return args[index];
    }

    private static XioUri uri(final String text)
    {
        final XioUri uri;
        try
        {
            uri = XioUri.parse(text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new UsageException(ex.getMessage());
        }
        if ("local".equals(uri.scheme()))
        {
            throw new UsageException("local:// portals are reachable only inside their own JVM");
        }
        return uri.endpoint();
    }

    private static long count(final String text, final String option)
    {
        try
        {
            final long count = Long.parseLong(text.trim());
            if (count > 0)
            {
                return count;
            }
        }
        catch (final NumberFormatException ex)
        {
            // said below, as for zero
        }
        throw new UsageException(option + " takes a positive whole number, was " + text);
    }

    private static String idempotencyKey(final String key)
    {
        try
        {
            return IdempotencyKeys.check(key);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new UsageException("--idempotency-key: " + ex.getMessage());
        }
    }

    private static Duration duration(final String text)
    {
        try
        {
            final String lower = text.trim().toLowerCase(java.util.Locale.ROOT);
            final Duration duration;
            if (lower.endsWith("ms"))
            {
                duration = Duration.ofMillis(Long.parseLong(lower.substring(0, lower.length() - 2)));
            }
            else if (lower.endsWith("s"))
            {
                duration = Duration.ofSeconds(Long.parseLong(lower.substring(0, lower.length() - 1)));
            }
            else if (lower.endsWith("m"))
            {
                duration = Duration.ofMinutes(Long.parseLong(lower.substring(0, lower.length() - 1)));
            }
            else if (lower.endsWith("h"))
            {
                duration = Duration.ofHours(Long.parseLong(lower.substring(0, lower.length() - 1)));
            }
            else
            {
                duration = Duration.parse(text);
            }
            if (duration.isNegative() || duration.isZero())
            {
                throw new UsageException("--timeout must be positive, was " + text);
            }
            if (duration.compareTo(MAX_TIMEOUT) > 0)
            {
                throw new UsageException("--timeout is at most " + MAX_TIMEOUT.toHours() + "h, was " + text);
            }
            return duration;
        }
        catch (final ArithmeticException ex)
        {
            throw new UsageException("--timeout is at most " + MAX_TIMEOUT.toHours() + "h, was " + text);
        }
        catch (final NumberFormatException | DateTimeParseException ex)
        {
            throw new UsageException("--timeout " + text + " is not a duration such as 5s or 500ms");
        }
    }

    private static SSLContext trusting(final Path file, final String password)
    {
        try (InputStream in = Files.newInputStream(file))
        {
            final KeyStore store = KeyStore.getInstance(file.toString().endsWith(".jks") ? "JKS" : "PKCS12");
            store.load(in, password == null ? null : password.toCharArray());
            final TrustManagerFactory trust =
                TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            final SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        }
        catch (final java.io.IOException | GeneralSecurityException ex)
        {
            throw new UsageException("cannot read the truststore " + file + ": " + ex.getMessage());
        }
    }
}
