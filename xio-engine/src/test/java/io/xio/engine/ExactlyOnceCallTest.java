package io.xio.engine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.IdempotencyKeys.METADATA_KEY;
import static io.xio.engine.IdempotencyKeys.PREVIOUS_ATTEMPTS_KEY;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@link CallOptions#exactlyOnce()} on a session: the call arrives with an idempotency key, made for it or the
 * application's own (then saying it may have been sent before), a key made for one call is never sent by another,
 * an invalid key is refused at the call, and the call fails at once when the session loses its last connection.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExactlyOnceCallTest
{
    /** The identity entries one request arrived with. */
    private record Arrival(String key, String attempts)
    {
    }

    private static final CallOptions EXACTLY_ONCE = CallOptions.timeout(Duration.ofSeconds(20)).withExactlyOnce(true);

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
    void anExactlyOnceCallInFlightFailsAtOnceWhenTheLastConnectionIsLostSayingItMayHaveRun() throws Exception
    {
        // A re-attach far away: the call does not wait for it.
        final Session session = connect(engines.builder("client").reconnectTimeout(Duration.ofMinutes(5)), "hold");
        final XioFuture<Message> write = session.request(Outbound.of(utf8("write")),
            CallOptions.timeout(Duration.ofMinutes(2)).withExactlyOnce(true));
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);

        session.abortConnections();

        final Throwable failure = TestEngines.failure(write);
        assertThat(failure).isInstanceOf(ConnectionException.class).hasMessageContaining("exactly-once")
            .hasMessageEndingWith("(the request was written: it may have run)");
        assertThat(((ConnectionException)failure).mayHaveRun()).isTrue();
    }
}
