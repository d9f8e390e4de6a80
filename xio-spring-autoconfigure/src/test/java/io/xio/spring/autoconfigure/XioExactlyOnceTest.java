package io.xio.spring.autoconfigure;

import io.xio.engine.BackPressureException;
import io.xio.engine.IdempotencyKeys;
import io.xio.engine.Metadata;
import io.xio.engine.RemoteException;
import io.xio.engine.XioTimeoutException;
import io.xio.spring.autoconfigure.ExactlyOnceFixtures.KeysSeen;
import io.xio.spring.autoconfigure.ExactlyOnceFixtures.OwnKey;
import io.xio.spring.autoconfigure.ExactlyOnceFixtures.Replays;
import io.xio.spring.autoconfigure.sample.exactlyonce.api.Transfers.InsufficientFunds;
import io.xio.spring.autoconfigure.sample.exactlyonce.api.Transfers.Receipt;
import io.xio.spring.autoconfigure.sample.exactlyonce.client.AsyncTransfersClient;
import io.xio.spring.autoconfigure.sample.exactlyonce.client.ReactiveTransfersClient;
import io.xio.spring.autoconfigure.sample.exactlyonce.client.TransfersClient;
import io.xio.spring.autoconfigure.sample.exactlyonce.client.TransfersClientApplication;
import io.xio.spring.autoconfigure.sample.exactlyonce.server.TransfersServerApplication;
import io.xio.spring.autoconfigure.sample.exactlyonce.server.TransfersService;
import io.xio.spring.call.XioClientInterceptor;
import io.xio.spring.call.XioServerInterceptor;
import io.xio.spring.client.ExactlyOnceUnsettledException;
import io.xio.spring.observation.XioCallOutcome;
import io.xio.spring.observation.XioInstrumentation;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.xio.spring.autoconfigure.ExactlyOnceFixtures.callInJson;
import static io.xio.spring.autoconfigure.ExactlyOnceFixtures.entries;
import static io.xio.spring.autoconfigure.ExactlyOnceFixtures.port;
import static io.xio.spring.autoconfigure.ExactlyOnceFixtures.server;
import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@code @XioMethod(exactlyOnce = true)} end to end over tcp, on a real embedded H2: a {@code @Transactional} service
 * writes with {@code JdbcTemplate}, and the rows and the ledger's entries are counted in the database. A call runs
 * once; a second call with its key gets the stored answer without running (in JSON too, for a caller in JSON); a
 * call whose connection broke after it ran is tried again with its key and replayed; the method's writes and the
 * entry commit or roll back together, as the method's rollback rules say; a duplicate still running is refused with
 * back-pressure; a call without a key is refused; a call its server holds past the deadline ends unsettled with its
 * key, which gets its answer once it committed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioExactlyOnceTest
{
    /** A test given the server's context, its service, and the client's proxy. */
    @FunctionalInterface
    private interface WithClient
    {
        void run(ApplicationContext server, TransfersService service, TransfersClient client) throws Exception;
    }

    private final OwnKey ownKey = new OwnKey();
    private final KeysSeen keysSeen = new KeysSeen();
    private final Replays replays = new Replays();
    private volatile @Nullable ApplicationContext clientContext;

    private void run(final WithClient test, final String[] serverProperties, final String... clientProperties)
    {
        run(test, true, serverProperties, clientProperties);
    }

    /**
     * {@code test} with a client that has the {@link OwnKey} interceptor when {@code intercepted}, so its calls take
     * the engine's futures; else none, so they take the engine's listener path.
     */
    private void run(final WithClient test, final boolean intercepted, final String[] serverProperties,
        final String... clientProperties)
    {
        server(TransfersServerApplication.class)
            .withBean(XioServerInterceptor.class, () -> keysSeen)
            .withBean(XioInstrumentation.class, () -> replays)
            .withPropertyValues(serverProperties)
            .run(server ->
            {
                assertThat(server).hasNotFailed();
                final ApplicationContextRunner clientRunner = runner(TransfersClientApplication.class);
                (intercepted ? clientRunner.withBean(XioClientInterceptor.class, () -> ownKey) : clientRunner)
                    .withPropertyValues("xio.clients.transfers.uri=tcp://127.0.0.1:" + port(server) + "/transfers",
                        "xio.client.retry.initial-backoff=10ms", "xio.client.retry.max-backoff=20ms")
                    .withPropertyValues(clientProperties)
                    .run(client ->
                    {
                        assertThat(client).hasNotFailed();
                        clientContext = client;
                        final TransfersService service = server.getBean(TransfersService.class);
                        try
                        {
                            test.run(server, service, client.getBean(TransfersClient.class));
                        }
                        finally
                        {
                            service.release();
                        }
                    });
            });
    }

    private void run(final WithClient test)
    {
        run(test, new String[0]);
    }

    @Test
    void aCallRunsOnceAndASecondCallWithItsKeyGetsTheStoredAnswerWithoutRunning()
    {
        run((server, service, transfers) ->
        {
            ownKey.key = "order-1";
            final Receipt first = transfers.transfer("t1", 5);
            assertThat(first).isEqualTo(new Receipt("t1", 5, 1));
            // Another call with the same key, whatever its arguments: the first call's answer, the method not run.
            assertThat(transfers.transfer("t1", 7)).isEqualTo(first);
            assertThat(service.executions()).isEqualTo(1);
            assertThat(transfers.rows("t1")).isEqualTo(1);
            assertThat(entries(server, "order-1")).isEqualTo(1);
            assertThat(replays.answers).containsExactly("transfer executed", "transfer replayed");

            ownKey.key = null; // a key made per call: two calls run twice
            transfers.transfer("t2", 1);
            transfers.transfer("t2", 1);
            assertThat(transfers.rows("t2")).isEqualTo(2);
            assertThat(keysSeen.keys.subList(keysSeen.keys.size() - 3, keysSeen.keys.size() - 1))
                .doesNotHaveDuplicates().noneMatch("null"::equals);
            assertThat(keysSeen.keys.get(keysSeen.keys.size() - 1)).as("rows(String) is no exactly-once method")
                .isEqualTo("null");
        });
    }

    @Test
    void oneKeySentToTwoMethodsRunsEachOnceAndNeverReplaysOnesAnswerToTheOther()
    {
        run((server, service, transfers) ->
        {
            ownKey.key = "order-shared";
            final Receipt moved = transfers.transfer("s1", 5);
            // The transfer's answer would decode as a receipt here: the decline runs instead, and throws.
            assertThatThrownBy(() -> transfers.decline("s2")).isInstanceOf(InsufficientFunds.class);
            assertThat(transfers.transfer("s1", 5)).isEqualTo(moved);
            assertThat(entries(server, "order-shared")).isEqualTo(2);
        });
    }

    @Test
    void aCallWaitedForOnAFutureWhoseConnectionBrokeAfterItRanIsTriedAgainWithItsKeyAndReplayed()
    {
        run((server, service, transfers) ->
        {
            service.goAwayNext(1);
            final AsyncTransfersClient async = clientContext.getBean(AsyncTransfersClient.class);
            assertThat(async.transfer("t9", 4).get(10, TimeUnit.SECONDS)).isEqualTo(new Receipt("t9", 4, 1));
            assertThat(service.executions()).as("the lost attempt ran and committed; the retry did not run")
                .isEqualTo(1);
            assertThat(transfers.rows("t9")).isEqualTo(1);
            assertThat(keysSeen.keys.subList(0, 2)).doesNotContain("null")
                .containsExactly(keysSeen.keys.get(0), keysSeen.keys.get(0));
            assertThat(replays.answers).containsExactly("transfer executed", "transfer replayed");
        });
    }

    @Test
    void withoutClientInterceptorsACallWhoseConnectionBrokeIsReplayedBlockingOnAFutureAndOnAMono()
    {
        run((server, service, transfers) ->
        {
            assertThat(clientContext.getBeanProvider(XioClientInterceptor.class).stream()).as("the listener path")
                .isEmpty();
            service.goAwayNext(1);
            assertThat(transfers.transfer("l1", 1)).isEqualTo(new Receipt("l1", 1, 1));
            service.goAwayNext(1);
            assertThat(clientContext.getBean(AsyncTransfersClient.class).transfer("l2", 2).get(10, TimeUnit.SECONDS))
                .isEqualTo(new Receipt("l2", 2, 2));
            service.goAwayNext(1);
            assertThat(clientContext.getBean(ReactiveTransfersClient.class).transfer("l3", 3)
                .block(Duration.ofSeconds(10))).isEqualTo(new Receipt("l3", 3, 3));

            assertThat(service.executions()).as("each lost attempt ran and committed; no retry ran").isEqualTo(3);
            final List<String> keys = List.copyOf(keysSeen.keys);
            assertThat(keys).doesNotContain("null").hasSize(6);
            for (int call = 0; call < 3; call++)
            {
                assertThat(keys.get(2 * call + 1)).as("the retry carries its call's key").isEqualTo(keys.get(2 * call));
            }
            assertThat(Set.of(keys.get(0), keys.get(2), keys.get(4))).as("a key per call").hasSize(3);
            assertThat(keysSeen.previousAttempts).containsExactly("null", "1", "null", "1", "null", "1");
            assertThat(replays.answers).containsExactly("transfer executed", "transfer replayed", "transfer executed",
                "transfer replayed", "transfer executed", "transfer replayed");
            for (final String id : List.of("l1", "l2", "l3"))
            {
                assertThat(transfers.rows(id)).isEqualTo(1);
            }
        }, false, new String[0]);
    }

    @Test
    void aCallWhoseConnectionBrokeAfterItRanIsTriedAgainWithItsKeyAndReplayed()
    {
        run((server, service, transfers) ->
        {
            service.goAwayNext(1);
            assertThat(transfers.transfer("t3", 9)).isEqualTo(new Receipt("t3", 9, 1));
            assertThat(service.executions()).as("the lost attempt ran and committed; the retry did not run")
                .isEqualTo(1);
            assertThat(transfers.rows("t3")).isEqualTo(1);
            assertThat(keysSeen.keys.subList(0, 2)).as("both attempts carry the call's one key")
                .doesNotContain("null").containsExactly(keysSeen.keys.get(0), keysSeen.keys.get(0));
            assertThat(keysSeen.previousAttempts.subList(0, 2)).as("absent on the first attempt of a key made for it")
                .containsExactly("null", "1");
            assertThat(entries(server, keysSeen.keys.get(0))).isEqualTo(1);
            assertThat(replays.answers).containsExactly("transfer executed", "transfer replayed");
        });
    }

    @Test
    void withOneAttemptACallWhoseConnectionBrokeAfterItRanEndsUnsettledWithTheKeyThatResumesIt()
    {
        run((server, service, transfers) ->
        {
            service.goAwayNext(1);
            final Throwable lost = catchThrowable(() -> transfers.transfer("t12", 2));
            assertThat(lost).as("may have run: its key, not a plain connection failure")
                .isInstanceOf(ExactlyOnceUnsettledException.class);
            final String key = ((ExactlyOnceUnsettledException)lost).idempotencyKey();
            assertThat(key).isEqualTo(keysSeen.keys.get(0));

            ownKey.key = key; // the call resumed with its key: it ran, so its answer, the method not run again
            assertThat(transfers.transfer("t12", 2)).isEqualTo(new Receipt("t12", 2, 1));
            assertThat(service.executions()).isEqualTo(1);
            assertThat(transfers.rows("t12")).isEqualTo(1);
            assertThat(replays.answers).containsExactly("transfer executed", "transfer replayed");
        }, new String[0], "xio.client.retry.max-attempts=1");
    }

    @Test
    void aMonoSubscribedAgainIsTheSameCallWithItsKeyAndANewMonoIsANewCall()
    {
        run((server, service, transfers) ->
        {
            final ReactiveTransfersClient reactive = clientContext.getBean(ReactiveTransfersClient.class);
            service.goAwayNext(1);
            final Mono<Receipt> call = reactive.transfer("m1", 3);
            // One attempt per subscription: the first ran, then lost its connection; retryWhen subscribes again.
            assertThat(call.retryWhen(Retry.max(1).filter(ExactlyOnceUnsettledException.class::isInstance))
                .block(Duration.ofSeconds(10))).isEqualTo(new Receipt("m1", 3, 1));
            assertThat(service.executions()).as("the second subscription replayed the first's answer").isEqualTo(1);
            assertThat(keysSeen.keys.subList(0, 2)).doesNotContain("null")
                .containsExactly(keysSeen.keys.get(0), keysSeen.keys.get(0));
            assertThat(keysSeen.previousAttempts.subList(0, 2)).containsExactly("null", "1");

            assertThat(call.block(Duration.ofSeconds(10))).as("subscribed again: the same call, its answer")
                .isEqualTo(new Receipt("m1", 3, 1));
            assertThat(Mono.defer(() -> reactive.transfer("m1", 3)).block(Duration.ofSeconds(10)))
                .as("a new Mono is a new call").isEqualTo(new Receipt("m1", 3, 2));
            assertThat(transfers.rows("m1")).isEqualTo(2);
            assertThat(replays.answers).containsExactly("transfer executed", "transfer replayed", "transfer replayed",
                "transfer executed");
        }, new String[0], "xio.client.retry.max-attempts=1");
    }

    @Test
    void aCallerInterruptedWhileWaitingGetsTheCallUnsettledWithItsKeyOnEitherPath()
    {
        for (final boolean intercepted : new boolean[] {true, false})
        {
            run((server, service, transfers) ->
            {
                final AtomicReference<Throwable> thrown = new AtomicReference<>();
                final Thread caller = new Thread(() -> thrown.set(catchThrowable(() -> transfers.held("i1"))),
                    "interrupted-caller");
                caller.start();
                assertThat(service.awaitHeld()).isTrue();
                final String key = keysSeen.keys.get(keysSeen.keys.size() - 1);
                caller.interrupt(); // before the answer can come: the wait ends interrupted, whatever comes
                service.release();
                caller.join(TimeUnit.SECONDS.toMillis(10));
                assertThat(caller.isAlive()).isFalse();
                assertThat(thrown.get()).as(intercepted ? "waiting on the engine's future" : "on its waiter")
                    .isInstanceOf(ExactlyOnceUnsettledException.class).hasMessageContaining("interrupted");
                assertThat(((ExactlyOnceUnsettledException)thrown.get()).idempotencyKey()).isEqualTo(key);
            }, intercepted, new String[0]);
        }
    }

    @Test
    void anUncheckedExceptionRollsBackTheMethodsWritesAndTheEntryTogether()
    {
        run((server, service, transfers) ->
        {
            ownKey.key = "order-unchecked";
            assertThatThrownBy(() -> transfers.failUnchecked("t4")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("declined t4");
            assertThat(transfers.rows("t4")).isZero();
            assertThat(entries(server, "order-unchecked")).isZero();
            // Nothing committed: the same key runs again.
            assertThatThrownBy(() -> transfers.failUnchecked("t4")).isInstanceOf(IllegalStateException.class);
            assertThat(service.executions()).isEqualTo(2);
            assertThat(transfers.rows("t4")).isZero();
        });
    }

    @Test
    void aCheckedExceptionCommitsWithTheWritesAndIsReplayedAsTheSameError()
    {
        run((server, service, transfers) ->
        {
            ownKey.key = "order-checked";
            assertThatThrownBy(() -> transfers.decline("t5")).isInstanceOf(InsufficientFunds.class)
                .hasMessage("no funds for t5 (execution 1)");
            assertThat(transfers.rows("t5")).as("Spring commits on a checked exception").isEqualTo(1);
            assertThat(entries(server, "order-checked")).isEqualTo(1);
            assertThatThrownBy(() -> transfers.decline("t5")).isInstanceOf(InsufficientFunds.class)
                .hasMessage("no funds for t5 (execution 1)");
            assertThat(service.executions()).isEqualTo(1);
            assertThat(replays.answers).containsExactly("decline executed", "decline replayed");
        });
    }

    @Test
    void aCheckedExceptionTheMethodRollsBackForLeavesNeitherWritesNorEntry()
    {
        run((server, service, transfers) ->
        {
            ownKey.key = "order-rollback-for";
            assertThatThrownBy(() -> transfers.declineAndRollBack("t6")).isInstanceOf(InsufficientFunds.class);
            assertThat(transfers.rows("t6")).isZero();
            assertThat(entries(server, "order-rollback-for")).isZero();
        });
    }

    @Test
    void aCallerInJsonGetsTheStoredAnswerInJson()
    {
        run((server, service, transfers) ->
        {
            ownKey.key = "order-json";
            transfers.transfer("t7", 3);
            final String json = callInJson(server, "transfer(String,long)", "[\"t7\", 3]",
                new Metadata().add(IdempotencyKeys.METADATA_KEY, "order-json")
                    .add(IdempotencyKeys.PREVIOUS_ATTEMPTS_KEY, "1"));
            assertThat(json).isEqualTo("{\"id\":\"t7\",\"amount\":3,\"execution\":1}");
            assertThat(service.executions()).isEqualTo(1);
        });
    }

    @Test
    void aCallWithoutAKeyIsRefusedAsAnInvalidArgumentOrRunsWhenTheServerSaysSo()
    {
        run((server, service, transfers) ->
        {
            assertThatThrownBy(() -> callInJson(server, "transfer(String,long)", "[\"t8\", 1]", new Metadata()))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(RemoteException.class)
                .hasMessageContaining("java.lang.IllegalArgumentException")
                .hasMessageContaining("idempotency key").hasMessageContaining("INVALID_ARGUMENT");
            assertThat(service.executions()).isZero();
        });
        run((server, service, transfers) ->
        {
            assertThat(callInJson(server, "transfer(String,long)", "[\"t8\", 1]", new Metadata()))
                .contains("\"execution\":1");
            assertThat(transfers.rows("t8")).isEqualTo(1);
            assertThat(server.getBean(org.springframework.jdbc.core.JdbcTemplate.class)
                .queryForObject("SELECT COUNT(*) FROM xio_execution_ledger", Integer.class)).isZero();
        }, new String[] {"xio.ledger.run-without-key=true"});
    }

    @Test
    void aCallHeldPastItsDeadlineEndsUnsettledWithItsKeyWhichGetsItsAnswerOnceItCommitted()
    {
        run((server, service, transfers) ->
        {
            final Throwable late = catchThrowable(() -> transfers.held("t11"));

            assertThat(late).as("not a plain timeout: the server may run it still").isInstanceOf(
                ExactlyOnceUnsettledException.class).hasCauseInstanceOf(XioTimeoutException.class);
            final ExactlyOnceUnsettledException unsettled = (ExactlyOnceUnsettledException)late;
            assertThat(unsettled.mayHaveRun()).isTrue();
            assertThat(unsettled.idempotencyKey()).as("the key the call was sent with").isEqualTo(keysSeen.keys.get(0));
            assertThat(service.awaitHeld()).as("the server runs it still").isTrue();
            service.release();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> entries(server, unsettled.idempotencyKey()) == 1);
            ownKey.key = unsettled.idempotencyKey();
            assertThat(transfers.held("t11")).as("its answer, replayed").isEqualTo(new Receipt("t11", 0, 1));
            assertThat(service.executions()).isEqualTo(1);
            assertThat(transfers.rows("t11")).isEqualTo(1);
        }, new String[0], "xio.clients.transfers.timeout=2s");
    }

    @Test
    void aDuplicateOfACallStillRunningIsRefusedEndsUnsettledWithItsKeyAndLaterGetsItsAnswer()
    {
        run((server, service, transfers) ->
        {
            ownKey.key = "order-held";
            final CompletableFuture<Receipt> first = CompletableFuture.supplyAsync(() -> transfers.held("t9"));
            assertThat(service.awaitHeld()).isTrue();
            // The duplicate's claim waits for the first's transaction (at most 200 ms; on H2 its lock timeout, 2 s),
            // then is refused unrun; the client tries it again after a back-pressure refusal, up to its one attempt.
            // The first may be committing as it ends: not "retry later" (under a new key), but unsettled, with its key.
            assertThatThrownBy(() -> transfers.held("t9")).isInstanceOf(ExactlyOnceUnsettledException.class)
                .hasCauseInstanceOf(BackPressureException.class)
                .extracting(failure -> ((ExactlyOnceUnsettledException)failure).idempotencyKey())
                .isEqualTo("order-held");
            service.release();
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(new Receipt("t9", 0, 1));
            assertThat(transfers.held("t9")).as("the first's answer, replayed").isEqualTo(new Receipt("t9", 0, 1));
            assertThat(service.executions()).isEqualTo(1);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> replays.outcomes.contains(XioCallOutcome.BACK_PRESSURE));
        }, new String[] {"xio.ledger.max-claim-wait=200ms"}, "xio.client.retry.max-attempts=1");
    }

    @Test
    void aDuplicateRefusedWhileTheFirstRunsIsTriedAgainUntilItGetsTheFirstsAnswer()
    {
        run((server, service, transfers) ->
        {
            ownKey.key = "order-retried";
            final CompletableFuture<Receipt> first = CompletableFuture.supplyAsync(() -> transfers.held("t10"));
            assertThat(service.awaitHeld()).isTrue();
            final CompletableFuture<Receipt> duplicate = CompletableFuture.supplyAsync(() -> transfers.held("t10"));
            // Refused with back-pressure while the first holds the key, then tried again within its deadline.
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> replays.outcomes.contains(XioCallOutcome.BACK_PRESSURE));
            service.release();
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(new Receipt("t10", 0, 1));
            assertThat(duplicate.get(10, TimeUnit.SECONDS)).isEqualTo(new Receipt("t10", 0, 1));
            assertThat(service.executions()).isEqualTo(1);
            assertThat(transfers.rows("t10")).isEqualTo(1);
        }, new String[] {"xio.ledger.max-claim-wait=100ms"}, "xio.clients.transfers.timeout=10s",
            "xio.client.retry.max-attempts=1000", "xio.client.retry.initial-backoff=50ms",
            "xio.client.retry.max-backoff=100ms");
    }
}
