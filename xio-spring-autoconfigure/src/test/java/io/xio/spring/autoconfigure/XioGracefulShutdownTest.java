package io.xio.spring.autoconfigure;

import io.xio.engine.BlockedCommonPool;
import io.xio.spring.autoconfigure.sample.slow.client.SlowClient;
import io.xio.spring.autoconfigure.sample.slow.client.SlowClientApplication;
import io.xio.spring.autoconfigure.sample.slow.server.SlowService;
import io.xio.spring.autoconfigure.service.XioGracefulShutdownLifecycle;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.task.ThreadPoolTaskExecutorCustomizer;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
        start(null, properties);
    }

    /** Starts the server, with the beans {@code registrar} registers (unless null). */
    private void start(final ApplicationContextInitializer<GenericApplicationContext> registrar,
        final String... properties)
    {
        final List<String> args = new ArrayList<>(List.of("--spring.main.banner-mode=off", "--xio.contexts=1",
            "--xio.idle.busy-poll=0s", "--xio.portals[0].uri=tcp://127.0.0.1:0"));
        for (final String property : properties)
        {
            args.add("--" + property);
        }
        final SpringApplicationBuilder builder =
            new SpringApplicationBuilder(XioGracefulShutdownWebTest.ServerApp.class).web(WebApplicationType.NONE);
        if (registrar != null)
        {
            builder.initializers(context -> registrar.initialize((GenericApplicationContext)context));
        }
        server = builder.run(args.toArray(String[]::new));
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
                // Well within the phase's 40 s: on Java 25 (or with more than one worker) the close runs on a
                // worker of the common pool, which xio's stop must not wait for.
                closing.get(20, TimeUnit.SECONDS);
                for (int i = 0; i < 200; i++)
                {
                    assertThat(calls.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("done call-" + i);
                }
            });
    }

    /**
     * Boot's default pool, without virtual threads: on Spring Framework 7 it still takes tasks until it is destroyed;
     * with strict early shutdown (here through Boot's customizer) it takes none from the context's close on.
     */
    @ParameterizedTest(name = "strict early shutdown: {0}")
    @ValueSource(booleans = {false, true})
    void callsArrivingAsTheContextClosesAllCompleteOnBootsPooledExecutor(final boolean strictEarlyShutdown)
    {
        final Latecomers latecomers = new Latecomers();
        start(context ->
        {
            context.registerBean("latecomers", Latecomers.class, () -> latecomers);
            if (strictEarlyShutdown)
            {
                context.registerBean(ThreadPoolTaskExecutorCustomizer.class,
                    () -> executor -> executor.setStrictEarlyShutdown(true));
            }
        }, "xio.shutdown.grace-period=30s", "spring.lifecycle.timeout-per-shutdown-phase=40s");
        final XioServiceExporter exporter = server.getBean(XioServiceExporter.class);
        final ThreadPoolTaskExecutor pool = server.getBean(
            TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME, ThreadPoolTaskExecutor.class);
        assertThat(pool.getCorePoolSize()).isEqualTo(8);
        runner(SlowClientApplication.class)
            .withPropertyValues("xio.clients.slow.uri=" + portal(), "xio.clients.slow.timeout=60s")
            .run(client ->
            {
                final SlowClient slow = client.getBean(SlowClient.class);
                final List<CompletableFuture<String>> held = new ArrayList<>();
                for (int i = 0; i < Latecomers.HELD; i++)
                {
                    held.add(slow.workAsync("held-" + i));
                }
                await().atMost(Duration.ofSeconds(20)).until(() -> service.ran().size() == Latecomers.HELD);
                latecomers.call(slow, exporter, pool);
                final CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
                try
                {
                    await().atMost(Duration.ofSeconds(30)).until(exporter::isDraining);
                }
                finally
                {
                    service.release();
                }
                closing.get(60, TimeUnit.SECONDS);
                assertThat(latecomers.poolTookTasks).isEqualTo(!strictEarlyShutdown);
                assertThat(latecomers.calls).hasSize(Latecomers.CALLS);
                for (int i = 0; i < Latecomers.CALLS; i++)
                {
                    assertThat(latecomers.calls.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("done late-" + i);
                }
                for (int i = 0; i < held.size(); i++)
                {
                    assertThat(held.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("done held-" + i);
                }
            });
    }

    @Test
    void aStopThenAStartInTheSameContextMarksTheApplicationAcceptingTrafficAgain()
    {
        start("xio.shutdown.grace-period=5s");
        service.release();
        final XioServiceExporter exporter = server.getBean(XioServiceExporter.class);
        final ApplicationAvailability availability = server.getBean(ApplicationAvailability.class);
        exporter.stop();
        assertThat(exporter.isRunning()).isFalse();
        assertThat(availability.getReadinessState()).isEqualTo(ReadinessState.REFUSING_TRAFFIC);
        exporter.start();
        assertThat(exporter.isRunning()).isTrue();
        assertThat(exporter.isDraining()).isFalse();
        assertThat(availability.getReadinessState()).isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
        runner(SlowClientApplication.class)
            .withPropertyValues("xio.clients.slow.uri=" + portal(), "xio.clients.slow.timeout=30s")
            .run(client -> assertThat(client.getBean(SlowClient.class).work("again")).isEqualTo("done again"));
    }

    /**
     * Stops just before the exporter, once the context is closing: sends calls on the client's open session then,
     * as a client that has not heard of the shutdown yet does, and waits until each reached the service or failed.
     */
    static final class Latecomers implements SmartLifecycle
    {
        static final int HELD = 4;
        static final int CALLS = 40;

        private final List<CompletableFuture<String>> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
        private volatile SlowClient slow;
        private volatile XioServiceExporter exporter;
        private volatile ThreadPoolTaskExecutor pool;
        private volatile boolean poolTookTasks;
        private volatile boolean running;

        void call(final SlowClient client, final XioServiceExporter called, final ThreadPoolTaskExecutor executor)
        {
            this.pool = executor;
            this.exporter = called;
            this.slow = client;
        }

        @Override
        public void start()
        {
            running = true;
        }

        @Override
        public void stop()
        {
            running = false;
            if (slow == null)
            {
                return;
            }
            poolTookTasks = !pool.getThreadPoolExecutor().isShutdown();
            for (int i = 0; i < CALLS; i++)
            {
                calls.add(slow.workAsync("late-" + i));
            }
            // Each is running or waiting for a worker in the service (they all wait for the release), or failed.
            await().atMost(Duration.ofSeconds(30)).until(() -> exporter.services().get(0).running() - HELD +
                calls.stream().filter(CompletableFuture::isCompletedExceptionally).count() == CALLS);
        }

        @Override
        public boolean isRunning()
        {
            return running;
        }

        @Override
        public int getPhase()
        {
            return XioGracefulShutdownLifecycle.PHASE + 1;
        }
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

    /**
     * The lifecycle processor stops waiting for the graceful-shutdown phase at its timeout and goes on: the context
     * closes while the exporter's stop is still under way (begun here by hand, as the processor begins it, with a
     * call held so that it goes on), and the processor skips the exporter's own phase, which no longer runs. The
     * calls run on a plain pool: Boot's would hold the close until the held call ended (its own lifecycle waits).
     */
    @Test
    void aGracefulStopStillUnderWayWhenTheContextClosesLeavesNoPortalBound()
    {
        start(context -> context.registerBean("callWorker", ExecutorService.class,
            () -> Executors.newCachedThreadPool()), "xio.shutdown.grace-period=30s", "xio.server.executor=callWorker");
        withACallHeld((exporter, graceful, held) ->
        {
            final CompletableFuture<Void> gracefulStopped = new CompletableFuture<>();
            graceful.stop(() -> gracefulStopped.complete(null));
            assertThat(exporter.isRunning()).isFalse();
            assertTimeout(Duration.ofSeconds(10), server::close);
            assertThat(exporter.portals()).isEmpty();
            assertThat(exporter.services()).isEmpty();
            service.release();
            gracefulStopped.get(30, TimeUnit.SECONDS);
            held.handle((answer, failure) -> null).get(30, TimeUnit.SECONDS);
        });
    }

    @Test
    void aGracefulStopEndsWhileTheApplicationBlocksEveryWorkerOfTheCommonPool()
    {
        start("xio.shutdown.grace-period=30s", "spring.lifecycle.timeout-per-shutdown-phase=40s");
        withACallHeld((exporter, graceful, held) ->
        {
            try (BlockedCommonPool blocked = new BlockedCommonPool())
            {
                final CompletableFuture<Void> gracefulStopped = new CompletableFuture<>();
                graceful.stop(() -> gracefulStopped.complete(null));
                service.release();
                assertThat(held.get(10, TimeUnit.SECONDS)).isEqualTo("done held");
                gracefulStopped.get(10, TimeUnit.SECONDS);
            }
            assertThat(exporter.portals()).isEmpty();
        });
    }

    /** A test given the server's exporter and graceful-stop bean, with one call of a client held in the service. */
    @FunctionalInterface
    private interface WithACallHeld
    {
        void run(XioServiceExporter exporter, XioGracefulShutdownLifecycle graceful, CompletableFuture<String> held)
            throws Exception;
    }

    private void withACallHeld(final WithACallHeld test)
    {
        final XioServiceExporter exporter = server.getBean(XioServiceExporter.class);
        runner(SlowClientApplication.class)
            .withPropertyValues("xio.clients.slow.uri=" + portal(), "xio.clients.slow.timeout=60s")
            .run(client ->
            {
                final CompletableFuture<String> held = client.getBean(SlowClient.class).workAsync("held");
                await().atMost(Duration.ofSeconds(20)).until(() -> exporter.services().get(0).running() == 1);
                test.run(exporter, server.getBean(XioGracefulShutdownLifecycle.class), held);
            });
    }
}
