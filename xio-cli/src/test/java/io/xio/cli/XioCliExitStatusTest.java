package io.xio.cli;

import io.xio.cli.server.InventoryServer;
import io.xio.engine.IdempotencyKeys;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.XioEngine;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whatever goes wrong, the command line ends with an exit status and a message, never with an exception: a
 * --timeout past the cap, a server whose answers are not what it expects, an exactly-once call that may have run, a
 * server without reflection.
 */
@SpringBootTest(classes = InventoryServer.class,
    properties = {"xio.contexts=1", "xio.portals[0].uri=tcp://127.0.0.1:0"})
class XioCliExitStatusTest
{
    @Autowired
    private XioServiceExporter exporter;

    @Test
    void aHugeTimeoutIsAUsageErrorNotAnException()
    {
        for (final String timeout : new String[] {"9223372036854775s", "153722867280912931m", "25h", "P400D"})
        {
            final Cli list = Cli.run("--timeout", timeout, "list", Cli.uri(exporter));
            assertThat(list.status()).as(timeout + ": " + list.err()).isEqualTo(Main.USAGE);
            assertThat(list.err()).contains("--timeout is at most 24h");
        }
        assertThat(Cli.run("--timeout", "24h", "list", Cli.uri(exporter)).status()).isEqualTo(Main.OK);
    }

    @Test
    void anAnswerThatIsNotJsonIsAFailedCall()
    {
        withServer(engine -> engine.register(Main.REFLECTION, request ->
        {
            request.message().close();
            request.respond(Outbound.of(ByteBuffer.wrap("<html>".getBytes(StandardCharsets.UTF_8))));
        }), uri ->
        {
            final Cli list = Cli.run("--timeout", "5s", "list", uri);
            assertThat(list.status()).as(list.err()).isEqualTo(Main.CALL_FAILED);
            assertThat(list.err()).contains("answered with what is not JSON");
        });
    }

    @Test
    void aDescriptionWithoutAFieldIsAFailedCallNamingIt()
    {
        withServer(engine -> engine.register(Main.REFLECTION, request ->
        {
            request.message().close();
            request.respond(Outbound.of(ByteBuffer.allocate(0),
                ByteBuffer.wrap("{\"name\": \"inventory\"}".getBytes(StandardCharsets.UTF_8))));
        }), uri ->
        {
            final Cli call = Cli.run("--timeout", "5s", "call", uri, "inventory", "get", "\"hammer\"");
            assertThat(call.status()).as(call.err()).isEqualTo(Main.CALL_FAILED);
            assertThat(call.err()).contains("has no 'methods'");
        });
    }

    @Test
    void anExactlyOnceCallThatMayHaveRunSaysSoAndResumesWithItsKey()
    {
        final String description = "{\"name\": \"inventory\", \"methods\": [{\"name\": \"take\", " +
            "\"wireName\": \"take(String,int)\", \"parameters\": [{\"name\": \"sku\", \"schema\": {}}, " +
            "{\"name\": \"count\", \"schema\": {}}], \"kind\": \"plain\", \"idempotent\": false, " +
            "\"exactlyOnce\": true}]}";
        // What each call carried: its key and previous attempts. The first is never answered, the second turned
        // away unrun, the third answered.
        final List<String> sent = new CopyOnWriteArrayList<>();
        withServer(engine ->
        {
            engine.register(Main.REFLECTION, request ->
            {
                request.message().close();
                request.respond(Outbound.of(ByteBuffer.allocate(0),
                    ByteBuffer.wrap(description.getBytes(StandardCharsets.UTF_8))));
            });
            engine.register("inventory", request ->
            {
                sent.add(request.metadata().get(IdempotencyKeys.METADATA_KEY) + " " +
                    request.metadata().get(IdempotencyKeys.PREVIOUS_ATTEMPTS_KEY));
                request.message().close();
                if (sent.size() == 2)
                {
                    request.refuse();
                }
                else if (sent.size() == 3)
                {
                    request.respond(Outbound.of(ByteBuffer.wrap("7".getBytes(StandardCharsets.UTF_8))));
                }
            });
        }, uri ->
        {
            final Cli lost = Cli.run("--timeout", "1s", "call", uri, "inventory", "take", "[\"chisel\", 3]");
            assertThat(lost.status()).as(lost.err()).isEqualTo(Main.CALL_FAILED);
            final String key = lost.idempotencyKey();
            assertThat(lost.err()).contains("may have run").contains("--idempotency-key " + key);
            assertThat(sent).as("the engine's key, on its first attempt").containsExactly(key + " null");

            final Cli refused = Cli.run("--timeout", "5s", "--idempotency-key", key, "call", uri, "inventory", "take",
                "[\"chisel\", 3]");
            assertThat(refused.status()).as(refused.err()).isEqualTo(Main.CALL_FAILED);
            assertThat(refused.err()).contains("the exactly-once call did not run")
                .contains("--idempotency-key " + key);

            final Cli resumed = Cli.run("--timeout", "5s", "--idempotency-key", key, "call", uri, "inventory",
                "take", "[\"chisel\", 3]");
            assertThat(resumed.status()).as(resumed.err()).isZero();
            assertThat(resumed.out().trim()).isEqualTo("7");
            assertThat(sent).as("the key given, as an application's: it may have been sent before")
                .containsExactly(key + " null", key + " 0", key + " 0");
        });
    }

    @Test
    void aServerWithoutReflectionIsSaidToHaveItOff()
    {
        withServer(engine -> engine.register("inventory", request -> request.message().close()), uri ->
        {
            final Cli list = Cli.run("--timeout", "5s", "list", uri);
            assertThat(list.status()).as(list.err()).isEqualTo(Main.NOT_CONNECTED);
            assertThat(list.err()).contains("xio.server.reflection.enabled=false");
        });
    }

    /** Runs {@code test} against a bare engine set up by {@code setUp}, on a port of its own. */
    private static void withServer(final Consumer<XioEngine> setUp, final Consumer<String> test)
    {
        try (XioEngine engine = XioEngine.builder().name("fake-server").contexts(1).build())
        {
            setUp.accept(engine);
            final Portal portal = engine.bind("tcp://127.0.0.1:0");
            test.accept("tcp://127.0.0.1:" + portal.uri().port());
        }
    }
}
