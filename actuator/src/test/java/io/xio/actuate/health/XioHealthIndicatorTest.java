package io.xio.actuate.health;


import io.xio.actuate.sample.Runners;
import io.xio.engine.Context;
import io.xio.engine.XioEngine;
import io.xio.spring.client.XioClientStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@SuppressWarnings("unchecked")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioHealthIndicatorTest
{
    @Test
    void upWithPortalsContextsSessionsAndEstablishedClients()
    {
        Runners.server().run(server ->
        {
            assertThat(health(server.getBean(XioHealthIndicator.class))).satisfies(health ->
            {
                assertThat(health.getStatus()).isEqualTo(Status.UP);
                final Map<String, Object> portals = (Map<String, Object>)(Map<?, ?>)health.getDetails().get("portals");
                assertThat(portals).hasSize(1).containsValue("bound");
                assertThat(portals.keySet())
                    .allSatisfy(uri -> assertThat(uri).asString().startsWith("tcp://127.0.0.1:"));
                assertThat((Map<String, Object>)(Map<?, ?>)health.getDetails().get("contexts"))
                    .containsValue("running");
            });
            Runners.client(Runners.greeterUri(server)).run(client ->
            {
                final XioHealthIndicator indicator = client.getBean(XioHealthIndicator.class);
                // The check itself opens the session of a client not used yet.
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(clientState(health(indicator))).isEqualTo(XioClientStatus.State.ESTABLISHED));
                assertThat(health(indicator).getDetails().get("connections")).isEqualTo(1);
                assertThat(health(server.getBean(XioHealthIndicator.class)).getDetails().get("sessions"))
                    .isEqualTo(Map.of("server", 1, "client", 0));
            });
        });
    }

    @Test
    void aClientWhoseServerIsDownIsShownWithoutTakingTheApplicationDownUnlessRequired() throws Exception
    {
        final int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            closedPort = socket.getLocalPort();
        }
        final String uri = "tcp://127.0.0.1:" + closedPort + "/greeter";
        Runners.client(uri).run(client ->
        {
            final XioHealthIndicator indicator = client.getBean(XioHealthIndicator.class);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(clientState(health(indicator))).isEqualTo(XioClientStatus.State.UNREACHABLE));
            assertThat(health(indicator).getStatus()).isEqualTo(Status.UP);
            assertThat(clientDetails(health(indicator))).containsEntry("uri", uri).containsKey("reason");
        });
        Runners.client(uri).withPropertyValues("management.health.xio.require-clients=true").run(client ->
        {
            final XioHealthIndicator indicator = client.getBean(XioHealthIndicator.class);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(health(indicator).getStatus()).isEqualTo(Status.DOWN));
        });
    }

    @Test
    void downOnceTheEngineStopped()
    {
        Runners.server().run(server ->
        {
            final XioHealthIndicator indicator = server.getBean(XioHealthIndicator.class);
            server.getBean(XioEngine.class).close();
            final Health health = health(indicator);
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat((Map<String, Object>)(Map<?, ?>)health.getDetails().get("contexts")).containsValue("stopped");
        });
    }

    @Test
    void downWithTheFailedContextAndItsCauseOnceAContextFailed()
    {
        Runners.server().run(server ->
        {
            final XioHealthIndicator indicator = server.getBean(XioHealthIndicator.class);
            final XioEngine engine = server.getBean(XioEngine.class);
            engine.contexts().get(0).execute(() ->
            {
                throw new OutOfMemoryError("injected for the health check");
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> !engine.isOpen());
            final Health health = health(indicator);
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat((Map<String, Object>)(Map<?, ?>)health.getDetails().get("contexts")).containsExactly(
                Map.entry("xio-ctx-0", "failed: java.lang.OutOfMemoryError: injected for the health check"));
            assertThat((Map<String, Object>)(Map<?, ?>)health.getDetails().get("failures")).containsExactly(
                Map.entry("xio-ctx-0", "java.lang.OutOfMemoryError: injected for the health check"));
            assertThat((Map<String, Object>)(Map<?, ?>)health.getDetails().get("portals")).containsValue("closed");
        });
    }

    @Test
    void upAgainOnceTheFailedContextRestartedWithTheFailureStillListed()
    {
        Runners.server().withPropertyValues("xio.on-context-failure=restart-context").run(server ->
        {
            final XioHealthIndicator indicator = server.getBean(XioHealthIndicator.class);
            final XioEngine engine = server.getBean(XioEngine.class);
            final Context failed = engine.contexts().get(0);
            failed.execute(() ->
            {
                throw new StackOverflowError("injected");
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> engine.contexts().get(0) != failed);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(health(indicator).getStatus()).isEqualTo(Status.UP));
            final Health health = health(indicator);
            assertThat((Map<String, Object>)(Map<?, ?>)health.getDetails().get("contexts"))
                .containsExactly(Map.entry("xio-ctx-0", "running"));
            assertThat((Map<String, Object>)(Map<?, ?>)health.getDetails().get("failures"))
                .containsExactly(Map.entry("xio-ctx-0", "java.lang.StackOverflowError: injected"));
            // The portal listens again where it did, so a client finds the service.
            Runners.client(Runners.greeterUri(server)).run(client ->
                assertThat(Runners.greeter(client).greet("again")).isEqualTo("hello again"));
        });
    }

    @Test
    void backsOffWhenDisabled()
    {
        Runners.server().withPropertyValues("management.health.xio.enabled=false")
            .run(server -> assertThat(server).hasNotFailed().doesNotHaveBean(XioHealthIndicator.class));
    }

    private static Health health(final XioHealthIndicator indicator)
    {
        return indicator.health(true);
    }

    private static Map<String, Object> clientDetails(final Health health)
    {
        return (Map<String, Object>)((Map<String, Object>)(Map<?, ?>)health.getDetails().get("clients")).get("greeter");
    }

    private static XioClientStatus.State clientState(final Health health)
    {
        return (XioClientStatus.State)clientDetails(health).get("state");
    }
}
