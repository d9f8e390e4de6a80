package io.xio.engine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link ConnectionException#mayHaveRun()} for every call: false for one never written (it ran nowhere), true for
 * one written before its connection or server was lost; each call its own instance even when one cause failed many,
 * and the message says which.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CallMayHaveRunTest
{
    private static final String WRITTEN = "(the request was written: it may have run)";
    private static final String NEVER_WRITTEN = "(the request was never written: it did not run)";
    private static final CallOptions LONG = CallOptions.timeout(Duration.ofMinutes(2));

    private final TestEngines engines = new TestEngines();
    /** Requests the "hold" service has not answered yet. */
    private final HeldRequests held = new HeldRequests();

    @AfterEach
    void close()
    {
        held.releaseAll();
        engines.close();
    }

    private static ConnectionException lost(final CompletableFuture<?> call) throws InterruptedException
    {
        final Throwable failure = TestEngines.failure(call);
        assertThat(failure).isInstanceOf(ConnectionException.class);
        return (ConnectionException)failure;
    }

    @Test
    void aCallOnAClosedSessionWasNeverWrittenAndDidNotRun() throws Exception
    {
        final XioEngine server = engines.start("server");
        server.register("hold", held::add);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final Session session = engines.start("client").connect(portal.uri().withResource("hold").toString());
        session.close();

        final ConnectionException request = lost(session.request(Outbound.of(utf8("late")), LONG));
        final ConnectionException message = lost(session.send(Outbound.of(utf8("late")), LONG));
        final CompletableFuture<Throwable> listened = new CompletableFuture<>();
        session.request(Outbound.of(utf8("late")), LONG, new ResponseListener()
        {
            @Override
            public void onResponse(final long requestId, final Message response)
            {
                response.close();
                listened.complete(null);
            }

            @Override
            public void onFailure(final long requestId, final Throwable failure)
            {
                listened.complete(failure);
            }
        });

        for (final ConnectionException failure : new ConnectionException[] {request, message,
            (ConnectionException)listened.get(10, TimeUnit.SECONDS)})
        {
            assertThat(failure.mayHaveRun()).isFalse();
            assertThat(failure).hasMessageContaining("is closed").hasMessageEndingWith(NEVER_WRITTEN);
        }
        assertThat(held).isEmpty();
    }

    @Test
    void callsFailedByOneCloseGetInstancesOfTheirOwnSayingWhetherEachWasWritten() throws Exception
    {
        final XioEngine server = engines.start("server");
        server.register("hold", held::add);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final Session session = engines.start(engines.builder("client").reconnectTimeout(Duration.ofMinutes(5)))
            .connect(portal.uri().withResource("hold").toString());
        final XioFuture<Message> written = session.request(Outbound.of(utf8("written")), LONG);
        final XioFuture<Message> alsoWritten = session.request(Outbound.of(utf8("also written")), LONG);
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 2);
        // No server to come back to: what is sent now waits for a re-attach that never comes, unwritten.
        portal.close();
        session.abortConnections();
        await().atMost(Duration.ofSeconds(10)).until(() -> session.connectionCount() == 0);
        final XioFuture<Message> unsent = session.request(Outbound.of(utf8("unsent")), LONG);
        final XioFuture<Void> unsentMessage = session.send(Outbound.of(utf8("unsent one-way")), LONG);

        session.close();

        final ConnectionException first = lost(written);
        final ConnectionException second = lost(alsoWritten);
        final ConnectionException never = lost(unsent);
        final ConnectionException neverMessage = lost(unsentMessage);
        assertThat(first).isNotSameAs(second).isNotSameAs(never);
        assertThat(never).isNotSameAs(neverMessage);
        assertThat(first.mayHaveRun()).isTrue();
        assertThat(second.mayHaveRun()).isTrue();
        assertThat(never.mayHaveRun()).isFalse();
        assertThat(neverMessage.mayHaveRun()).isFalse();
        assertThat(first).hasMessageContaining("was closed").hasMessageEndingWith(WRITTEN);
        assertThat(never).hasMessage(first.getMessage().replace(WRITTEN, NEVER_WRITTEN));
        assertThat(held).as("the unsent calls ran nowhere").hasSize(2);
    }

    @Test
    void aCallWrittenToAServerThatGoesAwayMayHaveRun() throws Exception
    {
        final XioEngine server = engines.start("server");
        server.register("hold", held::add);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final Session session = engines.start("client").connect(portal.uri().withResource("hold").toString());
        final XioFuture<Message> call = session.request(Outbound.of(utf8("written")), LONG);
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);

        InboundRequest unanswered;
        while ((unanswered = held.poll()) != null)
        {
            unanswered.message().close(); // the server goes away without an answer
        }
        server.close();

        final ConnectionException failure = lost(call);
        assertThat(failure.mayHaveRun()).isTrue();
        assertThat(failure).hasMessageEndingWith(WRITTEN);
    }

    @Test
    void aSharedFailureBecomesOneCallsInstanceKeepingItsTypeAndCauseAndSayingOnceWhetherItWasWritten()
    {
        final Error stopped = new OutOfMemoryError("test");
        final ContextFailedException shared = new ContextFailedException("context c-0 failed", stopped);
        assertThat(shared.mayHaveRun()).as("not tied to a call: the cautious answer").isTrue();
        assertThat(new ConnectionException("cannot connect").mayHaveRun()).isTrue();

        final ConnectionException unsent = shared.forCall(false);
        final ConnectionException written = unsent.forCall(true);

        assertThat(unsent).isInstanceOf(ContextFailedException.class).isNotSameAs(shared).hasCause(stopped)
            .hasMessage("context c-0 failed " + NEVER_WRITTEN);
        assertThat(unsent.mayHaveRun()).isFalse();
        assertThat(written).isInstanceOf(ContextFailedException.class).hasCause(stopped)
            .hasMessage("context c-0 failed " + WRITTEN);
        assertThat(written.mayHaveRun()).isTrue();
        final SessionDrainingException draining = new SessionDrainingException("going away", GoAway.of("deploy"));
        final ConnectionException refused = draining.forCall(false);
        assertThat(draining.mayHaveRun()).isFalse();
        assertThat(refused).isInstanceOf(SessionDrainingException.class).isNotSameAs(draining).hasCause(draining);
        assertThat(((SessionDrainingException)refused).goAway()).isSameAs(draining.goAway());
        assertThat(refused.mayHaveRun()).isFalse();
    }

    @Test
    void aCallsInstanceOfAFailureWithoutACauseHasThatFailureAsItsCause()
    {
        final ConnectionException closed = new ConnectionException("session s-1 closed by the peer");

        final ConnectionException unsent = closed.forCall(false);
        final ConnectionException written = unsent.forCall(true);

        assertThat(unsent).as("where the close was seen stays in the chain").hasCause(closed)
            .hasMessage("session s-1 closed by the peer " + NEVER_WRITTEN);
        assertThat(written).hasCause(closed).hasMessage("session s-1 closed by the peer " + WRITTEN);
    }
}
