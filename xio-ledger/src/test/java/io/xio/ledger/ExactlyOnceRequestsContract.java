package io.xio.ledger;

import io.xio.engine.BackPressureException;
import io.xio.engine.CallOptions;
import io.xio.engine.IdempotencyKeys;
import io.xio.engine.InboundRequest;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.RemoteException;
import io.xio.engine.Session;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioException;
import io.xio.engine.XioFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link ExactlyOnceRequests} end to end: a real engine server on 127.0.0.1 whose service writes to a real database
 * (a subclass per database) through the ledger, and a client that sends calls with and without idempotency keys
 * through the engine's public API, as the cluster client will.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class ExactlyOnceRequestsContract extends DatabaseContract
{
    private static final String SERVICE = "transfers";

    private final TestEngines engines = new TestEngines();
    private final ExecutorService workers = Executors.newFixedThreadPool(4);
    private final AtomicInteger executions = new AtomicInteger();
    private final CountDownLatch holding = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private String ledgerTable;
    private String writes;
    private ExactlyOnceExecution execution;
    private XioEngine server;
    private Portal portal;
    private Session client;

    @BeforeEach
    void start() throws SQLException
    {
        ledgerTable = TestDatabase.unique("ledger");
        writes = TestDatabase.unique("writes");
        LedgerSchema.create(database().dataSource(), ledgerTable);
        TestDatabase.execute(database().dataSource(), "CREATE TABLE " + writes + " (call_id VARCHAR(128) NOT NULL)");
        execution = ExactlyOnceExecution.of(JdbcExecutionLedger.builder().table(ledgerTable).build(),
            new DataSourceTransactions(database().dataSource()));
        server = engines.start("server");
        portal = server.bind("tcp://127.0.0.1:0");
    }

    @AfterEach
    void stop() throws InterruptedException
    {
        release.countDown();
        if (client != null)
        {
            client.close();
        }
        engines.close();
        workers.shutdownNow();
        assertThat(workers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aCallRunsOnceAndItsRetryWithTheSameKeyGetsTheSameAnswer() throws Exception
    {
        final ExactlyOnceRequests handler = register(ExactlyOnceRequests.builder(execution, workers, this::transfer));
        final String key = IdempotencyKeys.next();

        assertThat(answer(call("t-1", key, null))).isEqualTo("t-1 done, execution 1");
        assertThat(answer(call("t-1", key, 1))).isEqualTo("t-1 done, execution 1");
        assertThat(answer(call("t-1", key, 2))).isEqualTo("t-1 done, execution 1");

        assertThat(executions.get()).isEqualTo(1);
        assertThat(written("t-1")).isEqualTo(1);
        assertThat(handler.executed()).isEqualTo(1);
        assertThat(handler.replayed()).isEqualTo(2);
    }

    @Test
    void aCallWithoutAKeyIsRefusedWithAnErrorThatSaysWhy() throws Exception
    {
        register(ExactlyOnceRequests.builder(execution, workers, this::transfer));

        final Throwable failure = TestEngines.failure(call("t-2", null, null));

        assertThat(failure).isInstanceOf(RemoteException.class);
        assertThat(((RemoteException)failure).remoteType()).isEqualTo(XioException.class.getName());
        assertThat(((RemoteException)failure).remoteMessage()).contains("idempotency key")
            .contains(IdempotencyKeys.METADATA_KEY);
        assertThat(executions.get()).isZero();
    }

    @Test
    void aServiceBuiltToRunCallsWithoutAKeyRunsThemWithoutTheLedger() throws Exception
    {
        register(ExactlyOnceRequests.builder(execution, workers, this::transfer).runWithoutKey(true));

        assertThat(answer(call("t-3", null, null))).isEqualTo("t-3 done, execution 1");
        assertThat(answer(call("t-3", null, null))).isEqualTo("t-3 done, execution 2");

        assertThat(written("t-3")).isEqualTo(2);
        assertThat(TestDatabase.number(database().dataSource(), "SELECT COUNT(*) FROM " + ledgerTable)).isZero();
    }

    @Test
    void aMalformedKeyIsRefused() throws Exception
    {
        register(ExactlyOnceRequests.builder(execution, workers, this::transfer));

        final Throwable failure = TestEngines.failure(call("t-4", "not a key!", null));

        assertThat(((RemoteException)failure).remoteType()).isEqualTo(IllegalArgumentException.class.getName());
        assertThat(((RemoteException)failure).remoteMessage()).contains("idempotency key");
        assertThat(executions.get()).isZero();
    }

    @Test
    void anApplicationErrorThatCommitsIsAnsweredAlikeToTheRetry() throws Exception
    {
        register(ExactlyOnceRequests.builder(execution, workers, this::transfer));
        final String key = IdempotencyKeys.next();

        final RemoteException first = (RemoteException)TestEngines.failure(call("refuse-1", key, null));
        final RemoteException retry = (RemoteException)TestEngines.failure(call("refuse-1", key, 1));

        assertThat(first.remoteType()).isEqualTo(ExactlyOnceExecutionContract.Refused.class.getName());
        assertThat(first.remoteMessage()).isEqualTo("insufficient funds");
        assertThat(retry.remoteType()).isEqualTo(first.remoteType());
        assertThat(retry.remoteMessage()).isEqualTo(first.remoteMessage());
        assertThat(executions.get()).isEqualTo(1);
        assertThat(written("refuse-1")).as("the refusal's write committed with it").isEqualTo(1);
    }

    @Test
    void aRetryWhileTheFirstAttemptStillRunsIsTurnedAwayWithBackPressureThenReplayed() throws Exception
    {
        final ExactlyOnceRequests handler = register(ExactlyOnceRequests.builder(execution, workers, this::transfer)
            .maxClaimWait(Duration.ofMillis(300)));
        final String key = IdempotencyKeys.next();
        // A retry that claimed the key (its first attempt's server went away, say), then one more while it runs: the
        // first attempt of a key claims nothing, so it would not hold the second back.
        final XioFuture<Message> first = call("hold-1", key, 1);
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();

        final Throwable turnedAway = TestEngines.failure(call("hold-1", key, 2));

        assertThat(turnedAway).isInstanceOf(BackPressureException.class);
        assertThat(((RemoteException)turnedAway.getCause()).isBackPressure()).isTrue();
        assertThat(handler.turnedAway()).isEqualTo(1);
        release.countDown();
        assertThat(answer(first)).isEqualTo("hold-1 done, execution 1");
        assertThat(answer(call("hold-1", key, 3))).isEqualTo("hold-1 done, execution 1");
        assertThat(executions.get()).isEqualTo(1);
        assertThat(written("hold-1")).isEqualTo(1);
    }

    @Test
    void aServiceErrorIsAnsweredWithAReferenceAndNotWithWhatItSays() throws Exception
    {
        register(ExactlyOnceRequests.builder(execution, workers, this::transfer));

        final RemoteException failure = (RemoteException)TestEngines.failure(call("secret-1",
            IdempotencyKeys.next(), null));

        assertThat(failure.remoteType()).isEqualTo(XioException.class.getName());
        assertThat(failure.remoteMessage()).contains("reference").doesNotContain("card_number")
            .doesNotContain(IllegalStateException.class.getName());
        assertThat(written("secret-1")).as("rolled back").isZero();
    }

    @Test
    void aDatabaseErrorOfTheServiceIsNeitherStoredNorSentToThePeer() throws Exception
    {
        register(ExactlyOnceRequests.builder(execution, workers, this::transfer));
        final String key = IdempotencyKeys.next();

        final RemoteException first = (RemoteException)TestEngines.failure(call("sqlerror-1", key, null));
        final RemoteException retry = (RemoteException)TestEngines.failure(call("sqlerror-1", key, 1));

        for (final RemoteException failure : new RemoteException[] {first, retry})
        {
            assertThat(failure.remoteType()).isEqualTo(XioException.class.getName());
            assertThat(failure.remoteMessage()).contains("reference").doesNotContainIgnoringCase("no_such_table");
        }
        assertThat(executions.get()).as("not stored: the retry ran again").isEqualTo(2);
        assertThat(written("sqlerror-1")).isZero();
        assertThat(TestDatabase.number(database().dataSource(), "SELECT COUNT(*) FROM " + ledgerTable)).isZero();
    }

    @Test
    void aFirstAttemptAndItsRetryDeadlockedOnOneRowSettleOnceAndTheCallerGetsTheCommittedAnswer() throws Exception
    {
        final String accounts = TestDatabase.unique("accounts");
        TestDatabase.execute(database().dataSource(),
            "CREATE TABLE " + accounts + " (id INT PRIMARY KEY, balance INT NOT NULL)",
            "INSERT INTO " + accounts + " VALUES (1, 100)");
        final CountDownLatch firstHoldsTheRow = new CountDownLatch(1);
        // The first attempt takes the row, then waits until its retry (which claimed the key) waits for that row;
        // the first attempt's record then waits for the retry's claim: each waits for the other.
        final ExactlyOnceRequests handler = register(ExactlyOnceRequests.builder(execution, workers,
            (request, connection) ->
            {
                final String attempt = text(request.message().header());
                if (attempt.equals("deadlock-retry"))
                {
                    // Where lock timeouts end a deadlock (H2), which wait ends first is not left to timing: the
                    // first attempt's record, never the retry's wait for the row.
                    database().outwaitOtherSessions(connection);
                }
                final byte[] answer = transfer(request, connection);
                TestDatabase.execute(connection, "UPDATE " + accounts + " SET balance = balance - 1 WHERE id = 1");
                if (attempt.equals("deadlock-first"))
                {
                    firstHoldsTheRow.countDown();
                    await().atMost(Duration.ofSeconds(30)).until(() -> database().sessionsWaitingForLocks() > 0);
                }
                return answer;
            }).maxClaimWait(Duration.ofSeconds(10)));
        final String key = IdempotencyKeys.next();
        final XioFuture<Message> first = call("deadlock-first", key, null);
        assertThat(firstHoldsTheRow.await(30, TimeUnit.SECONDS)).isTrue();
        final XioFuture<Message> retry = call("deadlock-retry", key, 1);

        final List<String> answers = new ArrayList<>();
        for (final XioFuture<Message> attempt : List.of(first, retry))
        {
            try
            {
                answers.add(answer(attempt));
            }
            catch (final ExecutionException ex)
            {
                assertThat(ex.getCause()).as("turned away to try again, not failed")
                    .isInstanceOf(BackPressureException.class);
            }
        }

        assertThat(answers).as("one attempt committed, the other was turned away").hasSize(1);
        assertThat(handler.turnedAway()).isEqualTo(1);
        assertThat(answer(call("deadlock-again", key, 2))).as("the caller's next attempt").isEqualTo(answers.get(0));
        assertThat(TestDatabase.number(database().dataSource(), "SELECT balance FROM " + accounts)).isEqualTo(99);
        assertThat(written("deadlock-first") + written("deadlock-retry")).isEqualTo(1);
        assertThat(written("deadlock-again")).isZero();
    }

    /** Serves the service through {@code builder}'s handler, and connects the client to it. */
    private ExactlyOnceRequests register(final ExactlyOnceRequests.Builder builder)
    {
        final ExactlyOnceRequests handler = builder.build();
        server.register(SERVICE, handler);
        client = engines.start("client").connect(portal.uri().withResource(SERVICE).toString());
        return handler;
    }

    /**
     * The service: writes the call id the request carries, and answers it with its execution's number; a call id
     * starting "refuse" is refused with a checked error after its write, one starting "secret" fails with an
     * unchecked one whose message is not for the caller, one starting "sqlerror" runs a statement that fails, one
     * starting "hold" waits for the test.
     */
    private byte[] transfer(final InboundRequest request, final Connection connection) throws Exception
    {
        final String callId = text(request.message().header());
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + writes + " VALUES (?)"))
        {
            insert.setString(1, callId);
            insert.executeUpdate();
        }
        final int execution = executions.incrementAndGet();
        if (callId.startsWith("refuse"))
        {
            throw new ExactlyOnceExecutionContract.Refused("insufficient funds");
        }
        if (callId.startsWith("secret"))
        {
            throw new IllegalStateException("SELECT card_number FROM billing.cards found no card");
        }
        if (callId.startsWith("sqlerror"))
        {
            TestDatabase.execute(connection, "SELECT * FROM no_such_table");
        }
        if (callId.startsWith("hold"))
        {
            holding.countDown();
            assertThat(release.await(60, TimeUnit.SECONDS)).isTrue();
        }
        return (callId + " done, execution " + execution).getBytes(StandardCharsets.UTF_8);
    }

    /** A call as an exactly-once client sends it: the key, and the attempts before this one unless it is the first. */
    private XioFuture<Message> call(final String callId, final String key, final Integer previousAttempts)
    {
        final Metadata metadata = new Metadata();
        if (key != null)
        {
            metadata.add(IdempotencyKeys.METADATA_KEY, key);
        }
        if (previousAttempts != null)
        {
            metadata.add(IdempotencyKeys.PREVIOUS_ATTEMPTS_KEY, previousAttempts.toString());
        }
        return client.request(Outbound.of(utf8(callId)).metadata(metadata),
            CallOptions.timeout(Duration.ofSeconds(30)));
    }

    private static String answer(final XioFuture<Message> call) throws Exception
    {
        try (Message response = call.get(30, TimeUnit.SECONDS))
        {
            return text(response.header());
        }
    }

    private long written(final String callId) throws SQLException
    {
        return TestDatabase.number(database().dataSource(),
            "SELECT COUNT(*) FROM " + writes + " WHERE call_id = '" + callId + "'");
    }
}
