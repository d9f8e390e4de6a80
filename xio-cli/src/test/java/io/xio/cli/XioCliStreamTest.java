package io.xio.cli;

import io.xio.cli.ticker.TickerServer;
import io.xio.cli.ticker.TickerService;
import io.xio.engine.StreamLimits;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The command line calling the stream methods of a live Spring Boot server: JSON Lines, cancels, failures. */
@SpringBootTest(classes = TickerServer.class,
    properties = {"xio.contexts=1", "xio.portals[0].uri=tcp://127.0.0.1:0"})
@Timeout(60) // a stream that is never asked for more would hang the command line
class XioCliStreamTest
{
    @Autowired
    private XioServiceExporter exporter;

    @Autowired
    private TickerService ticker;

    private String uri()
    {
        return Cli.uri(exporter);
    }

    @Test
    void aServerStreamPrintsOneCompactJsonLinePerMessageAndEndsWithZero()
    {
        final Cli three = Cli.run("call", uri(), "ticker", "ticks", "[\"T\", 3]");
        assertThat(three.status()).as(three.err()).isZero();
        assertThat(three.out().lines().toList()).containsExactly("{\"symbol\":\"T\",\"seq\":0}",
            "{\"symbol\":\"T\",\"seq\":1}", "{\"symbol\":\"T\",\"seq\":2}");

        // Far more than are asked for ahead: each printed line asks for the next.
        final int many = StreamPrinter.AHEAD * 20;
        final Cli all = Cli.run("call", uri(), "ticker", "ticks", "[\"T\", " + many + "]");
        assertThat(all.status()).as(all.err()).isZero();
        final List<String> lines = all.out().lines().toList();
        assertThat(lines).hasSize(many);
        for (int i = 0; i < many; i++)
        {
            assertThat(new JsonMapper().readTree(lines.get(i)).get("seq").asInt()).isEqualTo(i);
        }

        final Cli none = Cli.run("call", uri(), "ticker", "ticks", "[\"T\", 0]");
        assertThat(none.status()).as(none.err()).isZero();
        assertThat(none.out()).isEmpty();
    }

    @Test
    void dataMessagesArePrintedAsBase64Strings()
    {
        final Cli chunks = Cli.run("call", uri(), "ticker", "chunks", "3");
        assertThat(chunks.status()).as(chunks.err()).isZero();
        assertThat(chunks.out().lines().toList()).containsExactly("\"AA==\"", "\"AQE=\"", "\"AgIC\"");
    }

    @Test
    void maxMessagesCancelsTheStreamOnceThatManyArePrinted()
    {
        final int cancelled = ticker.cancelled.get();
        final Cli three = Cli.run("call", uri(), "ticker", "endless", "[\"E\", 0]", "--max-messages", "3");
        assertThat(three.status()).as(three.err()).isZero();
        assertThat(three.out().lines().toList()).containsExactly("{\"symbol\":\"E\",\"seq\":0}",
            "{\"symbol\":\"E\",\"seq\":1}", "{\"symbol\":\"E\",\"seq\":2}");
        assertThat(three.err()).isEmpty();
        await().atMost(Duration.ofSeconds(10)).until(() -> ticker.cancelled.get() > cancelled);
    }

    @Test
    void aFailedStreamPrintsWhatCameThenTheServersErrorAndFails()
    {
        final Cli failing = Cli.run("call", uri(), "ticker", "failing", "[\"out of ticks\", 2]");
        assertThat(failing.status()).isEqualTo(Main.CALL_FAILED);
        assertThat(failing.out().lines().toList()).containsExactly("{\"symbol\":\"F\",\"seq\":0}",
            "{\"symbol\":\"F\",\"seq\":1}");
        assertThat(failing.err()).contains("answered").contains("out of ticks").contains("IllegalStateException");

        final Cli wrongType = Cli.run("call", uri(), "ticker", "ticks", "[\"T\", \"many\"]");
        assertThat(wrongType.status()).isEqualTo(Main.CALL_FAILED);
        assertThat(wrongType.err()).contains("INVALID_ARGUMENT");
        assertThat(wrongType.out()).isEmpty();
    }

    @Test
    void aGivenTimeoutIsTheStreamsDeadline()
    {
        final int cancelled = ticker.cancelled.get();
        final Cli slow = Cli.run("--timeout", "500ms", "call", uri(), "ticker", "endless", "[\"S\", 20]");
        assertThat(slow.status()).isEqualTo(Main.CALL_FAILED);
        assertThat(slow.err()).contains("reached its deadline");
        assertThat(slow.out().lines().count()).as("ticks before the deadline").isPositive();
        await().atMost(Duration.ofSeconds(10)).until(() -> ticker.cancelled.get() > cancelled);
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void anInterruptCancelsTheStreamAndStillClosesTheEngineInFull(final CapturedOutput log) throws Exception
    {
        final int cancelled = ticker.cancelled.get();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final Background command = Background.start(out, "call", uri(), "ticker", "endless", "[\"I\", 20]");
        await().atMost(Duration.ofSeconds(10)).until(() -> out.toString(StandardCharsets.UTF_8).contains("\n"));
        command.thread.interrupt();
        assertThat(command.status.get(10, TimeUnit.SECONDS)).isEqualTo(Main.CALL_FAILED);
        assertThat(command.err()).contains("interrupted: cancelled the stream");
        await().atMost(Duration.ofSeconds(10)).until(() -> ticker.cancelled.get() > cancelled);
        assertThat(log.getAll()).as("the interrupt did not cut short the wait for the connections to close")
            .doesNotContain("did not close its connections");
    }

    @Test
    void aReaderThatCannotKeepUpHoldsTheServerBack() throws Exception
    {
        final CountDownLatch release = new CountDownLatch(1);
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();
        final CountDownLatch blocked = new CountDownLatch(1);
        final OutputStream stuck = new OutputStream()
        {
            @Override
            public void write(final int b) throws IOException
            {
                write(new byte[] {(byte)b}, 0, 1);
            }

            @Override
            public void write(final byte[] b, final int off, final int len) throws IOException
            {
                blocked.countDown();
                try
                {
                    release.await();
                }
                catch (final InterruptedException ex)
                {
                    throw new IOException(ex);
                }
                printed.write(b, off, len);
            }
        };
        final long before = ticker.produced.get();
        final Background command = Background.start(stuck, "call", uri(), "ticker", "endless", "[\"B\", 0]",
            "--max-messages", "5");
        assertThat(blocked.await(10, TimeUnit.SECONDS)).as("the first line is being printed").isTrue();
        // What the stream's window holds, what the service asks for ahead of credit, and what is asked for here.
        final long bound = 2L * StreamLimits.DEFAULT.windowMessages();
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5))
            .until(() -> ticker.produced.get() - before < bound);
        release.countDown();
        assertThat(command.status.get(10, TimeUnit.SECONDS)).as(command.err()).isZero();
        assertThat(printed.toString(StandardCharsets.UTF_8).lines()).hasSize(5);
    }

    @Test
    void stdoutThatFailsCancelsTheStream() throws Exception
    {
        final int cancelled = ticker.cancelled.get();
        final OutputStream closed = new OutputStream()
        {
            @Override
            public void write(final int b) throws IOException
            {
                throw new IOException("Broken pipe");
            }
        };
        final Background command = Background.start(closed, "call", uri(), "ticker", "endless", "[\"P\", 0]");
        assertThat(command.status.get(10, TimeUnit.SECONDS)).isEqualTo(Main.CALL_FAILED);
        assertThat(command.err()).contains("cannot write to stdout");
        await().atMost(Duration.ofSeconds(10)).until(() -> ticker.cancelled.get() > cancelled);
    }

    @Test
    void clientAndBidirectionalStreamsAreRefused()
    {
        final Cli count = Cli.run("call", uri(), "ticker", "count", "[null]");
        assertThat(count.status()).isEqualTo(Main.USAGE);
        assertThat(count.err()).contains("client-stream").contains("server-streaming methods only");

        final Cli echo = Cli.run("call", uri(), "ticker", "echo", "[null]");
        assertThat(echo.status()).isEqualTo(Main.USAGE);
        assertThat(echo.err()).contains("bidi-stream");
    }

    @Test
    void maxMessagesIsForServerStreamsOnly()
    {
        final Cli zero = Cli.run("--max-messages", "0", "call", uri(), "ticker", "ticks", "[\"T\", 3]");
        assertThat(zero.status()).isEqualTo(Main.USAGE);
        assertThat(zero.err()).contains("--max-messages takes a positive whole number, was 0");

        final Cli list = Cli.run("--max-messages", "2", "list", uri());
        assertThat(list.status()).isEqualTo(Main.USAGE);
        assertThat(list.err()).contains("--max-messages is for 'call'");

        final Cli add = Cli.run("--max-messages", "2", "call", uri(), "inventory", "add(int,int)", "[1, 2]");
        assertThat(add.status()).isEqualTo(Main.USAGE);
        assertThat(add.err()).contains("--max-messages is for server-streaming methods; add(int,int) is plain");
    }

    @Test
    void describeShowsTheStreamKinds()
    {
        final Cli describe = Cli.run("describe", uri(), "ticker");
        assertThat(describe.status()).as(describe.err()).isZero();
        final Map<String, JsonNode> methods = new HashMap<>();
        describe.json().get("methods").forEach(method -> methods.put(method.get("wireName").asString(), method));
        assertThat(methods.get("ticks(String,int)").get("kind").asString()).isEqualTo("server-stream");
        assertThat(methods.get("count(Flux)").get("kind").asString()).isEqualTo("client-stream");
        assertThat(methods.get("echo(Flux)").get("kind").asString()).isEqualTo("bidi-stream");
        assertThat(methods.get("ticks(String,int)").get("returns").get("$ref").asString())
            .as("the schema of one message").isEqualTo("#/$defs/Tick");
    }

    /** A command line running on a thread of its own, its stdout {@code out}. */
    private record Background(Thread thread, CompletableFuture<Integer> status, ByteArrayOutputStream errBytes)
    {
        static Background start(final OutputStream out, final String... args)
        {
            final CompletableFuture<Integer> status = new CompletableFuture<>();
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final Thread thread = new Thread(() -> status.complete(Main.run(args,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of())), "xio-cli-under-test");
            thread.start();
            return new Background(thread, status, err);
        }

        String err()
        {
            return errBytes.toString(StandardCharsets.UTF_8);
        }
    }
}
