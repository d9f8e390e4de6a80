package io.xio.spring.autoconfigure;

import io.xio.annotation.XioService;
import io.xio.engine.BackPressureException;
import io.xio.engine.RemoteException;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import io.xio.engine.XioTimeoutException;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.observation.XioCall;
import io.xio.spring.observation.XioCallOutcome;
import io.xio.spring.observation.XioInstrumentation;
import io.xio.spring.autoconfigure.sample.slow.Slow;
import io.xio.spring.autoconfigure.sample.slow.client.SlowClient;
import io.xio.spring.autoconfigure.sample.slow.client.SlowClientApplication;
import io.xio.spring.autoconfigure.sample.slow.server.SlowServerApplication;
import io.xio.spring.autoconfigure.sample.slow.server.SlowService;
import io.xio.spring.service.ServiceDispatcher;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Bounds on a service's calls ({@code xio.server.services.<resource>.*}), end to end over tcp: a client flooding a
 * slow service gets {@link BackPressureException} at once for what exceeds them, the accepted calls complete,
 * the calls waiting never exceed the bound, and a call whose caller gave up while it waited never runs (bounded,
 * or waiting in a one-thread executor).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioServiceBoundsTest
{
    /** The server's call outcomes, counted. */
    private static final class Outcomes implements XioInstrumentation
    {
        private final Map<XioCallOutcome, AtomicInteger> counts = new EnumMap<>(XioCallOutcome.class);

        Outcomes()
        {
            for (final XioCallOutcome outcome : XioCallOutcome.values())
            {
                counts.put(outcome, new AtomicInteger());
            }
        }

        @Override
        public CallRecorder recorder(final XioCall call)
        {
            return new CallRecorder()
            {
                @Override
                public Object start(final io.xio.engine.Metadata metadata)
                {
                    return null;
                }

                @Override
                public void stop(final Object started, final long startNanos, final XioCallOutcome outcome,
                    final Throwable failure)
                {
                    counts.get(outcome).incrementAndGet();
                }
            };
        }

        int of(final XioCallOutcome outcome)
        {
            return counts.get(outcome).get();
        }
    }

    private static int port(final ApplicationContext server)
    {
        return server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
    }

    @Test
    void aFloodBeyondTheBoundsIsRefusedAtOnceWithBackPressureWhileAcceptedCallsComplete()
    {
        flood(2, 1, 12, "xio.server.services.slow.max-concurrent-calls=2",
            "xio.server.services.slow.max-queued-calls=1");
    }

    @Test
    void byDefaultTwiceTheConcurrentCallsMayWait()
    {
        flood(1, 2, 10, "xio.server.services.slow.max-concurrent-calls=1");
    }

    private static void flood(final int running, final int waiting, final int calls, final String... bounds)
    {
        final Outcomes outcomes = new Outcomes();
        runner(SlowServerApplication.class).withBean(XioInstrumentation.class, () -> outcomes)
            .withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0").withPropertyValues(bounds).run(server ->
            runner(SlowClientApplication.class).withPropertyValues(
                "xio.clients.slow.uri=tcp://127.0.0.1:" + port(server) + "/slow", "xio.clients.slow.timeout=30s")
                .run(client ->
                {
                    final SlowClient slow = client.getBean(SlowClient.class);
                    final SlowService service = server.getBean(SlowService.class);
                    final ServiceDispatcher dispatcher = server.getBean(XioServiceExporter.class).services().get(0);
                    final XioEngine serverEngine = server.getBean(XioEngine.class);
                    final ExecutorService watching = Executors.newSingleThreadExecutor();
                    final AtomicBoolean flooding = new AtomicBoolean(true);
                    final AtomicInteger mostQueued = new AtomicInteger();
                    final AtomicInteger mostHeld = new AtomicInteger();
                    final Future<?> watcher = watching.submit(() ->
                    {
                        while (flooding.get())
                        {
                            mostQueued.accumulateAndGet(dispatcher.queued(), Math::max);
                            // The engine's count of requests in the service's hands: running, waiting, and for a
                            // moment the one its context thread is handing over.
                            for (final Session session : serverEngine.sessions())
                            {
                                mostHeld.accumulateAndGet(session.statistics().executing(), Math::max);
                            }
                            Thread.onSpinWait();
                        }
                    });
                    try
                    {
                        final List<CompletableFuture<String>> sent = new ArrayList<>();
                        for (int i = 0; i < calls; i++)
                        {
                            sent.add(slow.workAsync("call " + i));
                        }
                        final int refusedCount = calls - running - waiting;
                        await().atMost(Duration.ofSeconds(10)).until(() ->
                            sent.stream().filter(CompletableFuture::isDone).count() == refusedCount);
                        final List<CompletableFuture<String>> refused = sent.stream()
                            .filter(CompletableFuture::isDone).toList();
                        // Refused while the accepted calls are all still held: nobody waited for the service.
                        assertThat(service.ran()).hasSize(running);
                        assertThat(dispatcher.queued()).isEqualTo(waiting);
                        assertThat(refused).allSatisfy(call -> assertThatThrownBy(call::get)
                            .isInstanceOf(ExecutionException.class).cause()
                            .isInstanceOf(BackPressureException.class).hasMessageContaining("workAsync")
                            .cause().isInstanceOfSatisfying(RemoteException.class, remote ->
                                assertThat(remote.isBackPressure()).isTrue()));
                        assertThatThrownBy(() -> slow.work("blocking")).isInstanceOf(BackPressureException.class)
                            .hasMessageContaining("too busy");

                        service.release();
                        for (final CompletableFuture<String> call : sent)
                        {
                            if (!refused.contains(call))
                            {
                                assertThat(call.get(10, TimeUnit.SECONDS)).startsWith("done call ");
                            }
                        }
                        assertThat(service.ran()).hasSize(running + waiting);
                        assertThat(service.mostRunning()).isEqualTo(running);
                        await().atMost(Duration.ofSeconds(5)).until(() ->
                            outcomes.of(XioCallOutcome.SUCCESS) == running + waiting);
                        assertThat(outcomes.of(XioCallOutcome.BACK_PRESSURE)).isEqualTo(refusedCount + 1);
                        assertThat(serverEngine.statistics().backPressureRejections()).isEqualTo(refusedCount + 1);
                    }
                    finally
                    {
                        service.release();
                        flooding.set(false);
                        watcher.get(5, TimeUnit.SECONDS);
                        watching.shutdown();
                    }
                    assertThat(mostQueued.get()).isEqualTo(waiting);
                    assertThat(mostHeld.get()).isBetween(running + waiting, running + waiting + 1);
                }));
    }

    @Test
    void aCallWhoseCallerGaveUpWhileItWaitedNeverRuns()
    {
        final Outcomes outcomes = new Outcomes();
        runner(SlowServerApplication.class).withBean(XioInstrumentation.class, () -> outcomes)
            .withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0",
                "xio.server.services.slow.max-concurrent-calls=1")
            .run(server -> runner(SlowClientApplication.class).withPropertyValues(
                "xio.clients.slow.uri=tcp://127.0.0.1:" + port(server) + "/slow", "xio.clients.slow.timeout=300ms")
                .run(client ->
                {
                    final SlowClient slow = client.getBean(SlowClient.class);
                    final SlowService service = server.getBean(SlowService.class);
                    final XioEngine serverEngine = server.getBean(XioEngine.class);
                    final CompletableFuture<String> running = slow.workAsync("running");
                    await().atMost(Duration.ofSeconds(5)).until(() -> service.ran().size() == 1);
                    final CompletableFuture<String> waiting = slow.workAsync("waiting");
                    for (final CompletableFuture<String> call : List.of(running, waiting))
                    {
                        assertThatThrownBy(() -> call.get(5, TimeUnit.SECONDS)).cause()
                            .isInstanceOf(XioTimeoutException.class);
                    }
                    // Both deadlines' cancels reached the server before the service lets go of its worker.
                    await().atMost(Duration.ofSeconds(5)).until(() -> serverEngine.sessions().stream()
                        .mapToInt(s -> s.statistics().executing()).sum() == 0);
                    service.release();
                    await().atMost(Duration.ofSeconds(5)).until(() -> outcomes.of(XioCallOutcome.CANCELLED) == 2);
                    assertThat(service.ran()).containsExactly("running");
                    assertThat(outcomes.of(XioCallOutcome.SUCCESS)).isZero();
                }));
    }

    @Test
    void aCallCancelledWhileItWaitsForAOneThreadWorkerNeverRuns()
    {
        final Outcomes outcomes = new Outcomes();
        final SlowService service = new SlowService();
        final ExecutorService oneThread = Executors.newSingleThreadExecutor();
        try
        {
            runner(SlowServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0")
                .run(server ->
                {
                    final XioEngine serverEngine = server.getBean(XioEngine.class);
                    // Unbounded: nothing but the executor's own queue holds the second call.
                    serverEngine.register("queued", new ServiceDispatcher("queued", Slow.class, service,
                        server.getBean(XioCodec.class), XioService.Dispatch.WORKER, oneThread, outcomes));
                    runner(SlowClientApplication.class).withPropertyValues(
                        "xio.clients.slow.uri=tcp://127.0.0.1:" + port(server) + "/queued",
                        "xio.clients.slow.timeout=30s").run(client ->
                        {
                            final SlowClient slow = client.getBean(SlowClient.class);
                            final CompletableFuture<String> running = slow.workAsync("running");
                            await().atMost(Duration.ofSeconds(5)).until(() -> service.ran().size() == 1);
                            final CompletableFuture<String> waiting = slow.workAsync("waiting");
                            await().atMost(Duration.ofSeconds(5)).until(() -> executing(serverEngine) == 2);
                            assertThat(waiting.cancel(true)).isTrue();
                            // The cancel reached the server while the call still waited for the worker.
                            await().atMost(Duration.ofSeconds(5)).until(() -> executing(serverEngine) == 1);
                            service.release();
                            assertThat(running.get(5, TimeUnit.SECONDS)).isEqualTo("done running");
                            await().atMost(Duration.ofSeconds(5)).until(() ->
                                outcomes.of(XioCallOutcome.CANCELLED) == 1);
                            assertThat(service.ran()).containsExactly("running");
                            assertThat(outcomes.of(XioCallOutcome.SUCCESS)).isEqualTo(1);
                        });
                });
        }
        finally
        {
            service.release();
            oneThread.shutdownNow();
        }
    }

    private static int executing(final XioEngine engine)
    {
        return engine.sessions().stream().mapToInt(s -> s.statistics().executing()).sum();
    }

    @Test
    void boundsThatCannotApplyFailStartUpNamingTheProperty()
    {
        runner(SlowServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0",
            "xio.server.services.slow.max-queued-calls=3").run(context ->
            {
                assertThat(context).hasFailed();
                assertThat(messages(context.getStartupFailure()))
                    .contains("xio.server.services.slow.max-queued-calls needs " +
                        "xio.server.services.slow.max-concurrent-calls");
            });
        runner(SlowServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0",
            "xio.server.services.slwo.max-concurrent-calls=3").run(context ->
            {
                assertThat(context).hasFailed();
                assertThat(messages(context.getStartupFailure()))
                    .contains("xio.server.services.slwo names no exported service").contains("[slow]");
            });
    }

    private static String messages(final Throwable failure)
    {
        final StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause())
        {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }
}
