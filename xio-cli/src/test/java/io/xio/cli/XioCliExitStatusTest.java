package io.xio.cli;

import io.xio.cli.server.InventoryServer;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.XioEngine;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whatever goes wrong, the command line ends with an exit status and a message, never with an exception: a
 * --timeout past the cap, a server whose answers are not what it expects, a server without reflection.
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
