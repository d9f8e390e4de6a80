package io.xio.spring.autoconfigure;

import io.xio.spring.autoconfigure.sample.slow.client.SlowClient;
import io.xio.spring.autoconfigure.sample.slow.client.SlowClientApplication;
import io.xio.spring.autoconfigure.sample.slow.server.SlowService;
import io.xio.spring.autoconfigure.service.XioServiceExporter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeout;
import static org.awaitility.Awaitility.await;

/**
 * Graceful shutdown of a plain (non-web) Spring Boot application: calls in flight finish, the application refuses
 * traffic while they do, and a call that never finishes does not keep the shutdown past its lifecycle phase's
 * timeout.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class XioGracefulShutdownTest
{
    private ConfigurableApplicationContext server;
    private SlowService service;

    private void start(final String... properties)
    {
        final List<String> args = new ArrayList<>(List.of("--spring.main.banner-mode=off", "--xio.contexts=1",
            "--xio.idle.busy-poll=0s", "--xio.portals[0].uri=tcp://127.0.0.1:0"));
        for (final String property : properties)
        {
            args.add("--" + property);
        }
        server = new SpringApplicationBuilder(XioGracefulShutdownWebTest.ServerApp.class)
            .web(WebApplicationType.NONE).run(args.toArray(String[]::new));
        service = server.getBean(SlowService.class);
    }

    @AfterEach
    void stop()
    {
        service.release();
        server.close(); // a second close does nothing
    }

    private String portal()
    {
        return "tcp://127.0.0.1:" + server.getBean(XioServiceExporter.class).portals().get(0).uri().port() + "/slow";
    }

    @Test
    void closingTheContextWith200CallsInFlightCompletesThemAllWhileTheApplicationRefusesTraffic()
    {
        start("xio.shutdown.grace-period=30s", "spring.lifecycle.timeout-per-shutdown-phase=40s");
        final XioServiceExporter exporter = server.getBean(XioServiceExporter.class);
        final ApplicationAvailability availability = server.getBean(ApplicationAvailability.class);
        assertThat(availability.getReadinessState()).isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
        runner(SlowClientApplication.class)
            .withPropertyValues("xio.clients.slow.uri=" + portal(), "xio.clients.slow.timeout=60s")
            .run(client ->
            {
                final SlowClient slow = client.getBean(SlowClient.class);
                final List<CompletableFuture<String>> calls = new ArrayList<>();
                for (int i = 0; i < 200; i++)
                {
                    calls.add(slow.workAsync("call-" + i));
                }
                await().atMost(Duration.ofSeconds(20)).until(() -> exporter.services().get(0).running() == 200);
                final CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
                try
                {
                    await().atMost(Duration.ofSeconds(20)).until(exporter::isDraining);
                    // Boot itself marks only web applications refusing traffic as they close: this is xio's.
                    assertThat(availability.getReadinessState()).isEqualTo(ReadinessState.REFUSING_TRAFFIC);
                    assertThat(closing).isNotDone();
                }
                finally
                {
                    service.release();
                }
                closing.get(60, TimeUnit.SECONDS);
                for (int i = 0; i < 200; i++)
                {
                    assertThat(calls.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("done call-" + i);
                }
            });
    }

    @Test
    void aCallThatNeverFinishesEndsTheShutdownAtThePhaseTimeoutNotAtTheLongerGracePeriod()
    {
        start("xio.shutdown.grace-period=5m", "spring.lifecycle.timeout-per-shutdown-phase=2s");
        final XioServiceExporter exporter = server.getBean(XioServiceExporter.class);
        assertThat(exporter.gracePeriod()).isEqualTo(Duration.ofMillis(1800));
        runner(SlowClientApplication.class)
            .withPropertyValues("xio.clients.slow.uri=" + portal(), "xio.clients.slow.timeout=60s")
            .run(client ->
            {
                final CompletableFuture<String> held = client.getBean(SlowClient.class).workAsync("held");
                await().atMost(Duration.ofSeconds(20)).until(() -> exporter.services().get(0).running() == 1);
                // The lifecycle processor stops waiting at the timeout whatever the exporter does; the exporter
                // must have closed its portals and let go of its services by then, not minutes later.
                assertTimeout(Duration.ofSeconds(20), server::close);
                assertThat(exporter.services()).isEmpty();
                assertThat(exporter.portals()).isEmpty();
                assertThatThrownBy(() -> held.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
            });
    }
}
