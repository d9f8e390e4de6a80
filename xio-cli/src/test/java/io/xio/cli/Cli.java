package io.xio.cli;

import io.xio.spring.service.XioServiceExporter;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One run of the command line in this JVM, its output captured.
 *
 * @param status the exit status
 * @param out what it printed on stdout
 * @param err what it printed on stderr
 */
record Cli(int status, String out, String err)
{
    static Cli run(final String... args)
    {
        return run(Map.of(), args);
    }

    static Cli run(final Map<String, String> environment, final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), environment);
        return new Cli(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The output, read as JSON. */
    JsonNode json()
    {
        return new JsonMapper().readTree(out);
    }

    /** The idempotency key an exactly-once call printed on stderr; fails the test when it printed none. */
    String idempotencyKey()
    {
        final Matcher key = Pattern.compile("idempotency key (\\S+)").matcher(err);
        assertThat(key.find()).as("a key on stderr: " + err).isTrue();
        return key.group(1);
    }

    /** The tcp address of the exporter's first portal. */
    static String uri(final XioServiceExporter exporter)
    {
        return "tcp://127.0.0.1:" + exporter.portals().get(0).uri().port();
    }
}
