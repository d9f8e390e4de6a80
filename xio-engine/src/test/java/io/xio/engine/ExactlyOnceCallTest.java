package io.xio.engine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.IdempotencyKeys.METADATA_KEY;
import static io.xio.engine.IdempotencyKeys.PREVIOUS_ATTEMPTS_KEY;
import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@link CallOptions#exactlyOnce()} on a session: the call arrives with an idempotency key, made for it (once the
 * client interceptors ran, whose copy of the metadata keeps it) or the application's own (then saying it may have
 * been sent before), a key made for one call is never sent by another unless through
 * {@link IdempotencyKeys#forRetry}, an invalid key is refused at the call, and the call waits for the session's
 * re-attach like any call unless it is also idempotent.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExactlyOnceCallTest
{
    /** The identity entries one request arrived with. */
    private record Arrival(String key, String attempts)
    {
    }

    private static final CallOptions EXACTLY_ONCE = CallOptions.timeout(Duration.ofSeconds(20)).withExactlyOnce(true);
    /** Adds an entry to a copy of each call's metadata, as {@link ClientInterceptor}'s Javadoc says to. */
    private static final ClientInterceptor COPYING = new ClientInterceptor()
    {
        @Override
        public CallOptions beforeSend(final Session session, final Outbound message, final CallOptions options)
        {
            final Metadata old = message.metadata();
            message.metadata((old == null ? new Metadata() : new Metadata(old)).put("tenant", "acme"));
            return options;
        }
    };

    private final TestEngines engines = new TestEngines();
    private final BlockingQueue<Arrival> arrivals = new LinkedBlockingQueue<>();
    private final HeldRequests held = new HeldRequests();

    @AfterEach
    void close()
    {
        held.releaseAll();
        engines.close();
    }

    /**
     * A client session to a server whose "keys" service records what each call arrived with and echoes it (its
     * "hold" service holds them).
     */
    private Session connect(final XioEngine.Builder clientSettings, final String service)
    {
        final XioEngine server = engines.start("server");
        server.register("keys", request ->
        {
            final Metadata metadata = request.metadata();
            arrivals.add(new Arrival(metadata.get(METADATA_KEY), metadata.get(PREVIOUS_ATTEMPTS_KEY)));
            TestEngines.ECHO.onRequest(request);
        });
        server.register("hold", held::add);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        return engines.start(clientSettings).connect(portal.uri().withResource(service).toString());
    }

    private Arrival call(final Session session, final Outbound message, final CallOptions options) throws Exception
    {
        session.request(message, options).get(20, TimeUnit.SECONDS).close();
        return arrivals.poll(20, TimeUnit.SECONDS);
    }

    @Test
    void anExactlyOnceCallArrivesWithAKeyMadeForItAndNoAttemptsEntry() throws Exception
    {
        final Session session = connect(engines.builder("client"), "keys");

        final Arrival first = call(session, Outbound.of(utf8("a")), EXACTLY_ONCE);
        final Arrival second = call(session, Outbound.of(utf8("b")), EXACTLY_ONCE);

        assertThat(IdempotencyKeys.check(first.key())).hasSize(22);
        assertThat(first.attempts()).as("the first attempt of a key made for it").isNull();
        assertThat(second.key()).isNotEqualTo(first.key());
        assertThat(call(session, Outbound.of(utf8("plain")), CallOptions.DEFAULT))
            .isEqualTo(new Arrival(null, null));
        session.send(Outbound.of(utf8("one-way")), EXACTLY_ONCE).get(20, TimeUnit.SECONDS);
        final Arrival oneWay = arrivals.poll(20, TimeUnit.SECONDS);
        assertThat(IdempotencyKeys.check(oneWay.key())).isNotIn(first.key(), second.key());
        assertThat(oneWay.attempts()).isNull();
    }

    @Test
    void theSameMessageSentAgainIsAnotherCallWithAKeyOfItsOwnOrNoneWhenNotExactlyOnce() throws Exception
    {
        final Session session = connect(engines.builder("client"), "keys");
        final Metadata shared = new Metadata().add("tenant", "acme");
        final Outbound message = Outbound.of(utf8("again")).metadata(shared);

        final Arrival first = call(session, message, EXACTLY_ONCE);
        final Arrival second = call(session, message, EXACTLY_ONCE);
        final Arrival plain = call(session, message, CallOptions.DEFAULT);

        assertThat(second.key()).isNotNull().isNotEqualTo(first.key());
        assertThat(second.attempts()).isNull();
        assertThat(plain).isEqualTo(new Arrival(null, null));
        assertThat(shared.get(METADATA_KEY)).as("the application's metadata is copied, not changed").isNull();
    }

    @Test
    void anApplicationsOwnKeyIsKeptAndArrivesSayingItMayHaveBeenSentBefore() throws Exception
    {
        final Session session = connect(engines.builder("client"), "keys");

        final Arrival own = call(session, Outbound.of(utf8("pay")).metadata(new Metadata()
            .add(METADATA_KEY, "order-42:payment")), EXACTLY_ONCE);
        final Arrival counted = call(session, Outbound.of(utf8("pay")).metadata(new Metadata()
            .add(METADATA_KEY, "order-42:payment").add(PREVIOUS_ATTEMPTS_KEY, "3")), EXACTLY_ONCE);

        assertThat(own).isEqualTo(new Arrival("order-42:payment", "0"));
        assertThat(counted).isEqualTo(new Arrival("order-42:payment", "3"));
    }

    @Test
    void anInvalidApplicationKeyIsRefusedAtTheCallNamingTheProblem() throws Exception
    {
        final Session session = connect(engines.builder("client"), "keys");
        final Outbound spaced = Outbound.of(utf8("x")).metadata(new Metadata().add(METADATA_KEY, "order 42"));
        final Outbound counted = Outbound.of(utf8("x")).metadata(new Metadata().add(METADATA_KEY, "order-42")
            .add(PREVIOUS_ATTEMPTS_KEY, "twice"));

        assertThatThrownBy(() -> session.request(spaced, EXACTLY_ONCE)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("idempotency key").hasMessageContaining("not ' ' (at 5)");
        assertThatThrownBy(() -> session.send(counted, EXACTLY_ONCE)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(PREVIOUS_ATTEMPTS_KEY + " is not a number: 'twice'");
        assertThat(session.inFlight()).as("nothing was admitted").isZero();
        assertThat(call(session, Outbound.of(utf8("y")), EXACTLY_ONCE).key()).as("the session goes on").isNotNull();
        assertThat(arrivals).isEmpty();
    }

    @Test
    void anInvalidKeyIsHeardByTheInterceptorsThatRanAsTheCallsOutcome() throws Exception
    {
        final List<Throwable> outcomes = new CopyOnWriteArrayList<>();
        final Session session = connect(engines.builder("client").clientInterceptor(new ClientInterceptor()
        {
            @Override
            public void onOutcome(final Session on, final long requestId, final Message response,
                final Throwable failure)
            {
                outcomes.add(failure);
            }
        }), "keys");

        assertThatThrownBy(() -> session.request(Outbound.of(utf8("x")).metadata(new Metadata()
            .add(METADATA_KEY, "")), EXACTLY_ONCE)).isInstanceOf(IllegalArgumentException.class);

        assertThat(outcomes).singleElement().isInstanceOf(IllegalArgumentException.class);
        assertThat(session.inFlight()).isZero();
    }

    @Test
    void aClientInterceptorsCopyOfTheMetadataSendsTheKeyMadeForTheCallAndTheSameMessageSentAgainGetsANewOne()
        throws Exception
    {
        final Session session = connect(engines.builder("client").clientInterceptor(COPYING), "keys");
        final Outbound message = Outbound.of(utf8("again"));

        final Arrival first = call(session, message, EXACTLY_ONCE);
        final Arrival second = call(session, message, EXACTLY_ONCE);
        final Arrival plain = call(session, message, CallOptions.DEFAULT);

        assertThat(IdempotencyKeys.check(first.key())).hasSize(22);
        assertThat(first.attempts()).isNull();
        assertThat(message.metadata().get("tenant")).as("the interceptor's copy was sent").isEqualTo("acme");
        assertThat(second.key()).as("another call: not the first call's key, which a ledger would answer for")
            .isNotNull().isNotEqualTo(first.key());
        assertThat(second.attempts()).isNull();
        assertThat(plain).isEqualTo(new Arrival(null, null));
    }

    @Test
    void aClientInterceptorMayMakeACallExactlyOnce() throws Exception
    {
        final Session session = connect(engines.builder("client").clientInterceptor(new ClientInterceptor()
        {
            @Override
            public CallOptions beforeSend(final Session on, final Outbound message, final CallOptions options)
            {
                return options.withExactlyOnce(true);
            }
        }), "keys");

        final Arrival arrival = call(session, Outbound.of(utf8("made exactly-once")), CallOptions.DEFAULT);

        assertThat(arrival.key()).as("the options the interceptor returned").isNotNull();
        assertThat(arrival.attempts()).isNull();
    }

    @Test
    void forRetrySendsACallAgainWithItsKeyWhileItsMetadataSentAgainOrCopiedGetsANewOne() throws Exception
    {
        final Session session = connect(engines.builder("client").clientInterceptor(COPYING), "keys");
        final Outbound message = Outbound.of(utf8("pay"));
        // A key made before the interceptors run, as a ServiceClient makes it: their copy carries it.
        message.metadata(IdempotencyKeys.forFirstAttempt(null));

        final Arrival first = call(session, message, EXACTLY_ONCE);
        final Metadata sent = message.metadata();
        final Arrival retried = call(session, message.sameData().metadata(IdempotencyKeys.forRetry(sent, 1)),
            EXACTLY_ONCE);
        final Arrival resent = call(session, message.sameData().metadata(sent), EXACTLY_ONCE);
        final Arrival copied = call(session, message.sameData().metadata(new Metadata(sent)), EXACTLY_ONCE);
        final Arrival own = call(session, Outbound.of(utf8("own")).metadata(IdempotencyKeys.forRetry(new Metadata()
            .add(METADATA_KEY, "order-7"), 2)), EXACTLY_ONCE);

        assertThat(first.key()).isNotNull();
        assertThat(first.attempts()).as("the first attempt of a key made for it").isNull();
        assertThat(retried).isEqualTo(new Arrival(first.key(), "1"));
        assertThat(resent.key()).isNotNull().isNotEqualTo(first.key());
        assertThat(copied.key()).isNotNull().isNotIn(first.key(), resent.key());
        assertThat(own).isEqualTo(new Arrival("order-7", "2"));
        assertThatThrownBy(() -> IdempotencyKeys.forRetry(new Metadata().add("tenant", "acme"), 1))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no idempotency key");
        assertThatThrownBy(() -> IdempotencyKeys.forRetry(sent, -1)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("negative");
    }

    @Test
    void anExactlyOnceCallWaitsForTheReattachLikeAnyCallAndFailsAtOnceOnlyWhenAlsoIdempotent() throws Exception
    {
        // A re-attach far away: what fails meanwhile did not wait for it.
        final Session session = connect(engines.builder("client").reconnectTimeout(Duration.ofMinutes(5)), "hold");
        final int connections = session.connectionCount();
        final CallOptions options = CallOptions.timeout(Duration.ofMinutes(2)).withExactlyOnce(true);
        final XioFuture<Message> write = session.request(Outbound.of(utf8("write")), options);
        final XioFuture<Message> elsewhere = session.request(Outbound.of(utf8("elsewhere")),
            options.withIdempotent(true));
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 2);

        session.abortConnections();

        final Throwable failure = TestEngines.failure(elsewhere);
        assertThat(failure).isInstanceOf(ConnectionException.class)
            .hasMessageEndingWith("(the request was written: it may have run)");
        assertThat(((ConnectionException)failure).mayHaveRun()).isTrue();
        assertThat(write).as("exactly-once alone: waits for the re-attach").isNotDone();
        await().atMost(Duration.ofSeconds(10)).until(() -> session.connectionCount() == connections);
        held.releaseAll();
        try (Message response = write.get(10, TimeUnit.SECONDS))
        {
            assertThat(text(response.header())).isEqualTo("write");
        }
    }

    @Test
    void anOptionAlreadySetIsNotCopied()
    {
        final CallOptions exactlyOnce = CallOptions.DEFAULT.withExactlyOnce(true);

        assertThat(exactlyOnce.withExactlyOnce(true)).isSameAs(exactlyOnce);
        assertThat(CallOptions.DEFAULT.withIdempotent(false).withReceipt(false).withWaitWhenFull(false))
            .isSameAs(CallOptions.DEFAULT);
        assertThat(exactlyOnce.withIdempotent(true)).isNotSameAs(exactlyOnce).isEqualTo(new CallOptions(null,
            false, false, true, false, true));
    }
}
