package io.xio.cli;

import io.xio.annotation.XioService;
import io.xio.cli.server.InventoryServer;
import io.xio.cli.server.SecureInventoryServer;
import io.xio.engine.Portal;
import io.xio.engine.XioEngine;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code xio health} against real servers, as a Kubernetes exec probe runs it: 0 while serving, 4 while the server
 * drains (a call still in flight) and for a service it does not know, 3 once it stopped; behind authentication.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class XioCliHealthTest
{
    private final List<ConfigurableApplicationContext> started = new ArrayList<>();
    private final Gate gate = new Gate();

    /** A service whose calls wait at the gate: what keeps a drain under way. */
    public interface Gated
    {
        String pass(String who);
    }

    /** Holds every call until opened. */
    @XioService("gated")
    public static final class Gate implements Gated
    {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch open = new CountDownLatch(1);

        @Override
        public String pass(final String who)
        {
            entered.countDown();
            try
            {
                return open.await(30, TimeUnit.SECONDS) ? who + " passed" : "never opened";
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return "interrupted";
            }
        }
    }

    private ConfigurableApplicationContext start(final Class<?> application, final String... properties)
    {
        final List<String> args = new ArrayList<>(List.of("--spring.main.banner-mode=off", "--xio.contexts=1",
            "--xio.idle.busy-poll=0s", "--xio.portals[0].uri=tcp://127.0.0.1:0", "--xio.shutdown.grace-period=30s",
            "--spring.lifecycle.timeout-per-shutdown-phase=40s"));
        for (final String property : properties)
        {
            args.add("--" + property);
        }
        final ConfigurableApplicationContext server = new SpringApplicationBuilder(application)
            .web(WebApplicationType.NONE)
            .initializers(context -> context.getBeanFactory().registerSingleton("gate", gate))
            .run(args.toArray(String[]::new));
        started.add(server);
        return server;
    }

    @AfterEach
    void stop()
    {
        gate.open.countDown();
        started.forEach(ConfigurableApplicationContext::close);
    }

    @Test
    void servingIsZeroDrainingIsFourWithACallInFlightAndStoppedIsNoSession() throws Exception
    {
        final ConfigurableApplicationContext server = start(InventoryServer.class);
        final String uri = Cli.uri(server.getBean(XioServiceExporter.class));

        final Cli serving = Cli.run("health", uri);
        assertThat(serving.status()).as(serving.err()).isEqualTo(Main.OK);
        assertThat(serving.json().get("status").asString()).isEqualTo("SERVING");
        assertThat(Cli.run("health", uri, "--service", "inventory").status()).isEqualTo(Main.OK);
        final Cli unknown = Cli.run("health", "--service", "nowhere", uri);
        assertThat(unknown.status()).isEqualTo(Main.NOT_SERVING).isEqualTo(4);
        assertThat(unknown.json().get("status").asString()).isEqualTo("SERVICE_UNKNOWN");

        final CompletableFuture<Cli> held = CompletableFuture.supplyAsync(() ->
            Cli.run("--timeout", "60s", "call", uri, "gated", "pass", "\"held\""));
        assertThat(gate.entered.await(20, TimeUnit.SECONDS)).isTrue();
        final CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
        try
        {
            await().atMost(Duration.ofSeconds(20)).until(server.getBean(XioServiceExporter.class)::isDraining);
            final Cli draining = Cli.run("health", uri);
            assertThat(draining.status()).as(draining.err()).isEqualTo(Main.NOT_SERVING);
            assertThat(draining.json().get("status").asString()).isEqualTo("NOT_SERVING");
            // The health resource answered, rather than the drain refusing the session.
            assertThat(draining.json().get("detail").asString()).isEqualTo("the server is draining or stopped");
            assertThat(Cli.run("health", "--service", "inventory", uri).status()).isEqualTo(Main.NOT_SERVING);
            assertThat(held).isNotDone();
        }
        finally
        {
            gate.open.countDown();
        }
        final Cli call = held.get(20, TimeUnit.SECONDS);
        assertThat(call.status()).as(call.err()).isEqualTo(Main.OK);
        assertThat(call.out()).contains("held passed");
        closing.get(20, TimeUnit.SECONDS);

        final Cli stopped = Cli.run("--timeout", "2s", "health", uri);
        assertThat(stopped.status()).as(stopped.out()).isEqualTo(Main.NOT_CONNECTED);
        assertThat(stopped.out()).isEmpty();
    }

    @Test
    void aServerThatRefusesTheSessionBecauseItDrainsIsNotServing() throws Exception
    {
        // A server without the health resource (health off, or another xio server): its draining refusal says it.
        try (XioEngine server = XioEngine.builder().name("bare").contexts(1).build())
        {
            server.register("held", request -> gate.entered.countDown());
            final Portal portal = server.bind("tcp://127.0.0.1:0");
            final String uri = "tcp://127.0.0.1:" + portal.uri().port();
            assertThat(Cli.run("--timeout", "5s", "health", uri).status()).as("no health resource")
                .isEqualTo(Main.NOT_CONNECTED);
            try (XioEngine client = XioEngine.builder().name("holder").contexts(1).build())
            {
                client.connect(portal.uri().withResource("held").toString()).request(
                    io.xio.engine.Outbound.of(java.nio.ByteBuffer.allocate(1)));
                assertThat(gate.entered.await(10, TimeUnit.SECONDS)).isTrue();
                server.drain(List.of(), Duration.ofSeconds(30));
                final Cli draining = Cli.run("--timeout", "5s", "health", uri);
                assertThat(draining.status()).as(draining.err()).isEqualTo(Main.NOT_SERVING);
                assertThat(draining.json().get("status").asString()).isEqualTo("NOT_SERVING");
                assertThat(draining.json().get("detail").asString()).contains("draining");
            }
        }
    }

    @Test
    void behindAuthenticationAProbeNeedsCredentialsUnlessHealthIsAllowedWithout()
    {
        final String secured = Cli.uri(start(SecureInventoryServer.class).getBean(XioServiceExporter.class));
        assertThat(Cli.run("health", secured).status()).isEqualTo(Main.NOT_CONNECTED);
        assertThat(Cli.run("--user", SecureInventoryServer.USER, "--password", SecureInventoryServer.PASSWORD,
            "health", secured).status()).isEqualTo(Main.OK);

        final String open = Cli.uri(start(SecureInventoryServer.class, "xio.server.health.allow-unauthenticated=true")
            .getBean(XioServiceExporter.class));
        final Cli probe = Cli.run("health", open);
        assertThat(probe.status()).as(probe.err()).isEqualTo(Main.OK);
        assertThat(Cli.run("list", open).status()).as("nothing else without credentials")
            .isEqualTo(Main.NOT_CONNECTED);
    }

    @Test
    void serviceIsAnOptionOfHealthOnly()
    {
        final Cli misplaced = Cli.run("--service", "inventory", "list", "tcp://127.0.0.1:1");
        assertThat(misplaced.status()).isEqualTo(Main.USAGE);
        assertThat(misplaced.err()).contains("--service is for 'health'");
        assertThat(Cli.run("health").status()).isEqualTo(Main.USAGE);
    }
}
