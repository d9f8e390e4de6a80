package io.xio.spring.autoconfigure;

import io.xio.engine.SessionRejectedException;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.sample.slow.client.SlowClient;
import io.xio.spring.autoconfigure.sample.slow.server.SlowService;
import io.xio.spring.autoconfigure.service.XioGracefulShutdownLifecycle;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A server with a web server (Tomcat on a random port) shut down with 200 calls of this client application in
 * flight: the portals drain in Spring Boot's graceful-shutdown phase, alongside the web server, the application
 * refuses traffic meanwhile, new sessions are refused as draining, and every call completes. The server runs in a
 * context of its own, since the test closes it.
 */
@SpringBootTest(classes = XioGracefulShutdownWebTest.ClientApp.class,
    properties = {"xio.contexts=1", "xio.idle.busy-poll=0s", "xio.clients.slow.timeout=60s"})
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class XioGracefulShutdownWebTest
{
    private static final int CALLS = 200;

    private static ConfigurableApplicationContext server;

    /** The client application: its package scan finds {@link SlowClient}. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @AutoConfigurationPackage(basePackageClasses = SlowClient.class)
    static class ClientApp
    {
    }

    /** The slow service's application, with everything Boot auto-configures, a web server among it. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @AutoConfigurationPackage(basePackageClasses = SlowService.class)
    static class ServerApp
    {
    }

    @BeforeAll
    static void startServer()
    {
        server = new SpringApplicationBuilder(ServerApp.class).web(WebApplicationType.SERVLET)
            .run("--spring.main.banner-mode=off", "--server.port=0", "--xio.contexts=1", "--xio.idle.busy-poll=0s",
                "--xio.portals[0].uri=tcp://127.0.0.1:0", "--xio.shutdown.grace-period=30s",
                "--spring.lifecycle.timeout-per-shutdown-phase=40s");
    }

    @AfterAll
    static void stopServer()
    {
        if (server.isActive())
        {
            server.close();
        }
    }

    @DynamicPropertySource
    static void clientSettings(final DynamicPropertyRegistry registry)
    {
        registry.add("xio.clients.slow.uri", XioGracefulShutdownWebTest::portal);
    }

    private static String portal()
    {
        return "tcp://127.0.0.1:" + server.getBean(XioServiceExporter.class).portals().get(0).uri().port() + "/slow";
    }

    @Autowired
    private SlowClient slow;

    @Test
    void closingTheServerWith200CallsInFlightCompletesThemAllAndRefusesNewSessionsAsDraining() throws Exception
    {
        assertThat(Integer.parseInt(server.getEnvironment().getProperty("local.server.port"))).isPositive();
        assertThat(server.getBean(XioGracefulShutdownLifecycle.class).getPhase())
            .isEqualTo(WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE);
        // bound before the web server starts, which registers the instance with its portals
        assertThat(server.getBean(XioServiceExporter.class).getPhase())
            .isLessThan(WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE - 1024);
        final XioServiceExporter exporter = server.getBean(XioServiceExporter.class);
        final SlowService service = server.getBean(SlowService.class);
        final String portal = portal();
        final List<CompletableFuture<String>> calls = new ArrayList<>();
        for (int i = 0; i < CALLS; i++)
        {
            calls.add(slow.workAsync("call-" + i));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> exporter.services().get(0).running() == CALLS);

        final CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
        try
        {
            await().atMost(Duration.ofSeconds(20)).until(exporter::isDraining);
            assertThat(server.getBean(ApplicationAvailability.class).getReadinessState())
                .isEqualTo(ReadinessState.REFUSING_TRAFFIC);
            try (XioEngine newcomer = XioEngine.builder().name("newcomer").contexts(1).build())
            {
                assertThatThrownBy(() -> newcomer.connect(portal).close())
                    .isInstanceOfSatisfying(SessionRejectedException.class,
                        refused -> assertThat(refused.isDraining()).isTrue());
            }
            assertThat(closing).isNotDone();
        }
        finally
        {
            service.release();
        }
        closing.get(60, TimeUnit.SECONDS);
        for (int i = 0; i < CALLS; i++)
        {
            assertThat(calls.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("done call-" + i);
        }
        assertThat(exporter.portals()).isEmpty();
    }
}
