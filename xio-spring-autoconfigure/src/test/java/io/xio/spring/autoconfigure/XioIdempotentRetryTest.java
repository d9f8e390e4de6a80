package io.xio.spring.autoconfigure;

import io.xio.engine.BlockedCommonPool;
import io.xio.engine.ConnectionException;
import io.xio.engine.XioEngine;
import io.xio.engine.XioTimeoutException;
import io.xio.spring.call.XioClientInterceptor;
import io.xio.spring.observation.XioCallOutcome;
import io.xio.spring.observation.XioInstrumentation;
import io.xio.spring.autoconfigure.sample.retry.client.FlakyClient;
import io.xio.spring.autoconfigure.sample.retry.client.FlakyClientApplication;
import io.xio.spring.autoconfigure.sample.retry.server.FlakyServerApplication;
import io.xio.spring.autoconfigure.sample.retry.server.FlakyService;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code @XioMethod(idempotent = true)} end to end over tcp: the server closes its sessions in the middle of a call
 * (it ran, its caller gets no answer), and the service counts how often each call ran. An idempotent call is tried
 * again on a fresh session and its caller sees one result; a call that is not idempotent fails and has run once;
 * retries end at max-attempts and at the call's deadline, which is the budget of all attempts together.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioIdempotentRetryTest
{
    /** A test given the server's service and the client application. */
    @FunctionalInterface
    private interface WithClient
    {
        void run(FlakyService service, ApplicationContext client) throws Exception;
    }

    /**
     * Runs {@code test} against a flaky server, with a client application that {@code clientBeans} may add to and
     * {@code clientProperties} may set (short backoffs unless they say otherwise); held executions are released.
     */
    private static void run(final UnaryOperator<ApplicationContextRunner> clientBeans, final WithClient test,
        final String... clientProperties)
    {
        runner(FlakyServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0")
            .run(server -> clientBeans.apply(runner(FlakyClientApplication.class))
                .withPropertyValues("xio.clients.flaky.uri=tcp://127.0.0.1:" + port(server) + "/flaky",
                    "xio.client.retry.initial-backoff=10ms", "xio.client.retry.max-backoff=20ms")
                .withPropertyValues(clientProperties)
                .run(client ->
                {
                    assertThat(client).hasNotFailed();
                    final FlakyService service = server.getBean(FlakyService.class);
                    try
                    {
                        test.run(service, client);
                    }
                    finally
                    {
                        service.release();
                    }
                }));
    }

    private static void run(final BiConsumer<FlakyService, FlakyClient> test, final RecordedOutcomes outcomes,
        final String... clientProperties)
    {
        run(client -> client.withBean(XioInstrumentation.class, () -> outcomes),
            (service, client) -> test.accept(service, client.getBean(FlakyClient.class)), clientProperties);
    }

    private static int port(final ApplicationContext server)
    {
        return server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
    }

    @Test
    void anIdempotentCallWhoseServerWentAwayIsRetriedOnAFreshSessionAndReturnsOnce()
    {
        final RecordedOutcomes outcomes = new RecordedOutcomes();
        run((service, flaky) ->
        {
            assertThat(flaky.read("warm-up")).isEqualTo("read warm-up");
            service.goAwayNext(1);
            assertThat(flaky.read("a")).isEqualTo("read a");
            assertThat(service.executions()).as("warm-up, the lost attempt, the retry").isEqualTo(3);
            assertThat(outcomes.recorded).as("one result per call").containsExactly(XioCallOutcome.SUCCESS,
                XioCallOutcome.SUCCESS);
        }, outcomes);
    }

    @Test
    void anIdempotentCallReturningAFutureIsRetriedTheSameWay() throws Exception
    {
        final RecordedOutcomes outcomes = new RecordedOutcomes();
        run((service, flaky) ->
        {
            service.goAwayNext(2);
            assertThat(flaky.readAsync("a").join()).isEqualTo("read a");
            assertThat(service.executions()).as("two lost attempts, the third answered").isEqualTo(3);
            assertThat(outcomes.recorded).containsExactly(XioCallOutcome.SUCCESS);
        }, outcomes);
    }

    @Test
    void anAsyncRetryStartsWhileTheApplicationBlocksEveryWorkerOfTheCommonPool()
    {
        // With and without a client interceptor: the engine's listener path and the interceptors' chain retry apart.
        asyncRetryWithTheCommonPoolBlocked(false);
        asyncRetryWithTheCommonPoolBlocked(true);
    }

    @Test
    void anAsyncCallWaitingToBeTriedAgainWhenItsEngineClosesFailsAndIsRecordedOnce()
    {
        final RecordedOutcomes outcomes = new RecordedOutcomes();
        run(client -> client.withBean(XioInstrumentation.class, () -> outcomes), (service, client) ->
        {
            service.goAwayNext(1);
            final CompletableFuture<String> call = client.getBean(FlakyClient.class).readAsync("a");
            await().atMost(Duration.ofSeconds(10)).until(() -> service.executions() == 1);
            client.getBean(XioEngine.class).close(); // within the backoff of 1-2 s
            assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
            assertThat(service.executions()).as("the lost attempt only").isEqualTo(1);
            await().atMost(Duration.ofSeconds(5)).until(() -> !outcomes.recorded.isEmpty());
            assertThat(outcomes.recorded).hasSize(1).doesNotContain(XioCallOutcome.SUCCESS);
        }, "xio.clients.flaky.timeout=20s", "xio.client.retry.initial-backoff=2s", "xio.client.retry.max-backoff=2s");
    }

    /**
     * From Java 25 on, CompletableFuture's default executor is the common pool even with one worker: a retry
     * waiting for it waits for the application, past the call's deadline.
     */
    private static void asyncRetryWithTheCommonPoolBlocked(final boolean intercepted)
    {
        final AtomicInteger interceptions = new AtomicInteger();
        final XioClientInterceptor counting = (call, chain) ->
        {
            interceptions.incrementAndGet();
            return chain.proceed();
        };
        run(client -> intercepted ? client.withBean(XioClientInterceptor.class, () -> counting) : client,
            (service, client) ->
            {
                final FlakyClient flaky = client.getBean(FlakyClient.class);
                assertThat(flaky.read("warm-up")).isEqualTo("read warm-up");
                try (BlockedCommonPool blocked = new BlockedCommonPool())
                {
                    service.goAwayNext(1);
                    assertThat(flaky.readAsync("a").get(4, TimeUnit.SECONDS)).isEqualTo("read a");
                }
                assertThat(service.executions()).as("warm-up, the lost attempt, the retry").isEqualTo(3);
                assertThat(interceptions).as("once per call, not per attempt").hasValue(intercepted ? 2 : 0);
            }, "xio.clients.flaky.timeout=5s");
    }

    @Test
    void aRetryCarriesTheCallsMetadataAgainAndEngineInterceptorsMayAddToIt()
    {
        final RecordedOutcomes outcomes = new RecordedOutcomes();
        // An engine interceptor that adds to whatever metadata the message has: the first send sealed it, so the
        // retry must carry a copy, or the interceptor would throw and the retry never leave.
        final io.xio.engine.ClientInterceptor stamp = new io.xio.engine.ClientInterceptor()
        {
            @Override
            public io.xio.engine.CallOptions beforeSend(final io.xio.engine.Session session,
                final io.xio.engine.Outbound message, final io.xio.engine.CallOptions options)
            {
                if (message.metadata() == null)
                {
                    message.metadata(new io.xio.engine.Metadata());
                }
                message.metadata().add("stamp", "yes"); // add, not put: a retry must not carry the first's too
                return options;
            }
        };
        run(client -> client.withBean(XioInstrumentation.class, () -> outcomes)
            .withBean(io.xio.spring.autoconfigure.XioEngineCustomizer.class,
                () -> builder -> builder.clientInterceptor(stamp)), (service, client) ->
            {
                service.goAwayNext(1);
                assertThat(client.getBean(FlakyClient.class).read("a")).isEqualTo("read a");
                assertThat(service.executions()).as("the lost attempt and the retry").isEqualTo(2);
                assertThat(service.stamps()).as("each attempt carries one stamp").containsExactly(1, 1);
            });
    }

    @Test
    void aCallThatIsNotIdempotentFailsAndHasRunOnce()
    {
        final RecordedOutcomes outcomes = new RecordedOutcomes();
        run((service, flaky) ->
        {
            service.goAwayNext(1);
            assertThatThrownBy(() -> flaky.write("a")).isInstanceOf(ConnectionException.class)
                .hasMessageContaining("closed by the peer");
            assertThat(service.executions()).isEqualTo(1);
            service.goAwayNext(1);
            assertThatThrownBy(() -> flaky.writeAsync("b").get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(ConnectionException.class);
            assertThat(service.executions()).isEqualTo(2);
            assertThat(flaky.write("c")).as("the next call opens a fresh session").isEqualTo("wrote c");
            assertThat(service.executions()).isEqualTo(3);
            assertThat(outcomes.recorded).containsExactly(XioCallOutcome.CONNECTION_ERROR,
                XioCallOutcome.CONNECTION_ERROR, XioCallOutcome.SUCCESS);
        }, outcomes);
    }

    @Test
    void retriesEndAtMaxAttemptsWithTheLastFailure()
    {
        run((service, flaky) ->
        {
            service.goAwayNext(100);
            assertThatThrownBy(() -> flaky.read("a")).isInstanceOf(ConnectionException.class);
            assertThat(service.executions()).as("xio.client.retry.max-attempts defaults to 3").isEqualTo(3);
        }, new RecordedOutcomes());
        run((service, flaky) ->
        {
            service.goAwayNext(100);
            assertThatThrownBy(() -> flaky.readAsync("a").join()).cause().isInstanceOf(ConnectionException.class);
            assertThat(service.executions()).as("the named client's own setting").isEqualTo(2);
        }, new RecordedOutcomes(), "xio.client.retry.max-attempts=5", "xio.clients.flaky.retry.max-attempts=2");
    }

    @Test
    void retriesEndAtTheDeadlineOfTheWholeCall()
    {
        run((service, flaky) ->
        {
            service.goAwayNext(1_000);
            // The last attempt's failure: the server closed its session, or (rarely) the deadline came during it.
            assertThatThrownBy(() -> flaky.read("a"))
                .isInstanceOfAny(ConnectionException.class, XioTimeoutException.class);
            // Waits of 25-50 ms within 400 ms: a handful of attempts of the thousand allowed, none begun past the
            // deadline (RetryingCallTest checks that on a clock of its own; timing this call would check the machine).
            assertThat(service.executions()).isBetween(2, 20);
        }, new RecordedOutcomes(), "xio.clients.flaky.timeout=400ms", "xio.client.retry.max-attempts=1000",
            "xio.clients.flaky.retry.initial-backoff=50ms", "xio.clients.flaky.retry.max-backoff=50ms");
    }

    @Test
    void aRetryHasOnlyWhatIsLeftOfTheCallsTimeout()
    {
        run((service, flaky) ->
        {
            service.goAwayNext(1);
            service.holdExecution(2);
            final long start = System.nanoTime();
            assertThatThrownBy(() -> flaky.read("a")).isInstanceOf(XioTimeoutException.class);
            final Duration took = Duration.ofNanos(System.nanoTime() - start);
            // A retry with a timeout of its own would have taken more than 2 s.
            assertThat(took).isGreaterThan(Duration.ofMillis(900)).isLessThan(Duration.ofMillis(1_900));
            assertThat(service.executions()).isEqualTo(2);
        }, new RecordedOutcomes(), "xio.clients.flaky.timeout=1s");
    }
}
