package io.xio.cli;

import io.xio.cli.server.InventoryServer;
import io.xio.cli.ticker.TickerServer;
import io.xio.cli.ticker.TickerService;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged command line as an operator runs it: {@code java -jar xio-cli-*-all.jar}, against a live server; and
 * stopped by a signal, as Ctrl-C stops it.
 */
class XioCliJarIT
{
    private static final Path JAR = Path.of(System.getProperty("xio.cli.jar", "target/xio-cli-all.jar"));

    @Test
    void theShadedJarListsAndCalls() throws Exception
    {
        assertThat(JAR).exists();
        try (ConfigurableApplicationContext server = server(InventoryServer.class))
        {
            final String uri = Cli.uri(server.getBean(XioServiceExporter.class));
            final Result list = xio("list", uri);
            assertThat(list.status).as(list.err).isZero();
            assertThat(list.out).contains("\"name\" : \"inventory\"");

            final Result add = xio("call", uri, "inventory", "add(int,int)", "[20, 22]");
            assertThat(add.status).as(add.err).isZero();
            assertThat(add.out.trim()).isEqualTo("42");

            final Result unknown = xio("call", uri, "inventory", "remove");
            assertThat(unknown.status).isEqualTo(Main.USAGE);
            assertThat(unknown.err).contains("no method 'remove'");
        }
    }

    @Test
    void aSignalCancelsTheStreamBeforeTheJarExits() throws Exception
    {
        assertThat(JAR).exists();
        try (ConfigurableApplicationContext server = server(TickerServer.class))
        {
            final TickerService ticker = server.getBean(TickerService.class);
            final Path out = Files.createTempFile("xio-cli", ".out");
            final Path err = Files.createTempFile("xio-cli", ".err");
            final String uri = Cli.uri(server.getBean(XioServiceExporter.class));
            final Process process = start(out, err, "call", uri, "ticker", "endless", "[\"J\", 20]");
            try
            {
                await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(out).contains("\n"));
                assertThat(Files.readString(out).lines().findFirst()).hasValue("{\"symbol\":\"J\",\"seq\":0}");
                process.destroy(); // SIGTERM: the JVM shuts down, as after Ctrl-C
                assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("the command ended").isTrue();
                assertThat(process.exitValue()).as(Files.readString(err)).isEqualTo(128 + 15);
                // Well before the server would give up on a client that vanished without a word.
                await().atMost(Duration.ofSeconds(5)).until(() -> ticker.cancelled.get() == 1);
            }
            finally
            {
                process.destroyForcibly();
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        }
    }

    /** A live server of {@code application} on a random tcp port. */
    private static ConfigurableApplicationContext server(final Class<?> application)
    {
        return new SpringApplicationBuilder(application)
            .properties("xio.contexts=1", "xio.portals[0].uri=tcp://127.0.0.1:0", "spring.main.banner-mode=off")
            .run();
    }

    private record Result(int status, String out, String err)
    {
    }

    private static Result xio(final String... args) throws IOException, InterruptedException
    {
        final Path out = Files.createTempFile("xio-cli", ".out");
        final Path err = Files.createTempFile("xio-cli", ".err");
        final Process process = start(out, err, args);
        try
        {
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the command ended").isTrue();
            return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        }
        finally
        {
            process.destroyForcibly();
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** Runs the jar with {@code args}, its stdout and stderr going to those files. */
    private static Process start(final Path out, final Path err, final String... args) throws IOException
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    }
}
